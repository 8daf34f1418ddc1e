package io.walden.uring;

import io.walden.spi.IoUringProbe;

/**
 * Finds out once per JVM whether io_uring can run here, and if not, why: the platform (jasyncfio's
 * native library is built for linux-amd64 only), the {@code kernel.io_uring_disabled} sysctl, or a
 * failure to start the shared event loop's ring (a kernel too old, or a seccomp filter in a container
 * returning EPERM or ENOSYS). The checks are {@link IoUringProbe}'s.
 *
 * <p><b>Threading:</b> thread-safe; the probe runs once.
 */
public final class UringSupport {
    private static final IoUringProbe PROBE =
            new IoUringProbe("jasyncfio 0.0.7 ships a native library for linux-amd64 only", () -> {
                UringExecutors.shared();
                return null;
            });

    private UringSupport() {}

    /**
     * Why io_uring cannot be used here, or null if it can.
     *
     * @return the reason, naming the cause and the alternative, or null.
     */
    public static String unavailableReason() {
        return PROBE.unavailableReason();
    }
}
