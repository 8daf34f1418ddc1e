package io.walden.crash.fault;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.uring.UringSupport;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link FaultKind} injected below the io_uring backend, buffered and with O_DIRECT; the same checks
 * as {@link NioFaultTest}. Skipped, with the reason, only where the kernel offers no io_uring.
 */
final class UringFaultTest {
    static Stream<Arguments> cases() {
        return FaultCases.arguments("uring");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void faultIsFailStop(final String backendName, final FaultKind kind) throws Exception {
        final String unavailable = UringSupport.unavailableReason();
        assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        FaultCases.run(backendName, kind);
    }
}
