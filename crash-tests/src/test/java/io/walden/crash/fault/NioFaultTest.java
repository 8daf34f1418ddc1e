package io.walden.crash.fault;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link FaultKind} injected below the FileChannel backend, buffered and with O_DIRECT: fail-stop,
 * clear errors, nothing acknowledged after the fault, and a valid prefix after reopening ({@link
 * FaultCase}). Each case counts into {@code faults}.
 */
final class NioFaultTest {
    static Stream<Arguments> cases() {
        return FaultCases.arguments("nio");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void faultIsFailStop(final String backendName, final FaultKind kind) throws Exception {
        FaultCases.run(backendName, kind);
    }
}
