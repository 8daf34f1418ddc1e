package io.walden.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The io_uring probe's words for each outcome of a backend's ring setup, and that it runs once. Runs
 * where io_uring may run at all (Linux on x86_64, the sysctl not 2), as every io_uring backend's tests.
 */
class IoUringProbeTest {
    @BeforeEach
    void onAPlatformWhereIoUringMayRun() throws IOException {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        final Path sysctl = Path.of("/proc/sys/kernel/io_uring_disabled");
        assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")), os + " " + arch);
        assumeTrue(!Files.exists(sysctl) || !Files.readString(sysctl).trim().equals("2"), "io_uring disabled");
    }

    @Test
    void shouldSetUpOnceAndFindNothingWrongWhenTheSetupSucceeds() {
        final AtomicInteger setups = new AtomicInteger();
        final IoUringProbe probe = new IoUringProbe("x86_64 only", () -> {
            setups.incrementAndGet();
            return null;
        });
        assertNull(probe.unavailableReason());
        assertNull(probe.unavailableReason());
        assertEquals(1, setups.get());
    }

    @Test
    void shouldNameTheKernelsLikelyReasonsWhenTheSetupFails() {
        final AtomicInteger setups = new AtomicInteger();
        final IoUringProbe probe = new IoUringProbe(null, () -> {
            setups.incrementAndGet();
            throw new IOException("io_uring_setup failed: Operation not permitted (EPERM)");
        });
        final String reason = probe.unavailableReason();
        assertTrue(
                reason.startsWith("cannot set up an io_uring instance (io_uring_setup failed: Operation not permitted"
                        + " (EPERM)): the kernel may be older than 5.6, kernel.io_uring_disabled="),
                reason);
        assertTrue(reason.contains("seccomp filter"), reason);
        assertTrue(reason.endsWith(IoUringProbe.ALTERNATIVE), reason);
        assertEquals(reason, probe.unavailableReason());
        assertEquals(1, setups.get());
    }

    @Test
    void shouldNameAnyOtherFailureByItsType() {
        final IoUringProbe probe = new IoUringProbe(null, () -> {
            throw new UnsatisfiedLinkError("no libjasyncfio in java.library.path");
        });
        assertTrue(
                probe.unavailableReason()
                        .startsWith(
                                "cannot set up an io_uring instance (java.lang.UnsatisfiedLinkError: no libjasyncfio"),
                probe.unavailableReason());
    }

    @Test
    void shouldPassOnTheBackendsOwnReasonWithTheAlternative() {
        final IoUringProbe probe = new IoUringProbe(null, () -> "native access is not enabled");
        assertEquals("native access is not enabled" + IoUringProbe.ALTERNATIVE, probe.unavailableReason());
    }
}
