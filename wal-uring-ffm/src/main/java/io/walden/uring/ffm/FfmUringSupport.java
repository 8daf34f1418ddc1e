package io.walden.uring.ffm;

import io.walden.spi.IoUringProbe;
import java.io.IOException;

/**
 * Finds out once per JVM whether this backend can run here, and if not, why: the platform (Linux on
 * x86_64: the system call numbers are that architecture's), the {@code kernel.io_uring_disabled}
 * sysctl, or a ring that cannot be set up (a kernel older than 5.6, a seccomp filter in a container),
 * which {@link IoUringProbe} checks; and native access refused to this module, or a C library that
 * cannot be called, which this class tells apart.
 *
 * <p><b>Threading:</b> thread-safe; the probe runs once.
 */
public final class FfmUringSupport {
    private static final IoUringProbe PROBE = new IoUringProbe(
            "the FFM io_uring backend knows the system call numbers of x86_64 only", FfmUringSupport::setUpRing);

    private FfmUringSupport() {}

    /**
     * Why this backend cannot be used here, or null if it can.
     *
     * @return the reason, naming the cause and the alternative, or null.
     */
    public static String unavailableReason() {
        return PROBE.unavailableReason();
    }

    /** Sets up and closes a small ring; the reason if the Foreign Function API refused the call. */
    private static String setUpRing() throws IOException {
        try {
            IoUring.open(2).close();
            return null;
        } catch (final IllegalCallerException ex) {
            return "native access is not enabled for the module io.walden.uring.ffm (" + ex.getMessage()
                    + "): run with --enable-native-access=io.walden.uring.ffm, or ALL-UNNAMED on the class path";
        } catch (final RuntimeException | LinkageError ex) {
            return "cannot call the C library through the Foreign Function API (" + ex + ")";
        }
    }
}
