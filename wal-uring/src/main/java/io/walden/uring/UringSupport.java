package io.walden.uring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Finds out once per JVM whether io_uring can run here, and if not, why: the platform, the {@code
 * kernel.io_uring_disabled} sysctl, or a failure to set up a ring (a kernel too old, or a seccomp
 * filter in a container returning EPERM or ENOSYS).
 *
 * <p><b>Threading:</b> thread-safe; the probe runs once.
 */
public final class UringSupport {
    private static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");
    private static final String ALTERNATIVE =
            "; use the FileChannel backend instead (io.walden.nio.NioStorageBackend, module wal-nio)";

    private static volatile String unavailableReason;
    private static volatile boolean probed;

    private UringSupport() {}

    /**
     * Why io_uring cannot be used here, or null if it can.
     *
     * @return the reason, naming the cause and the alternative, or null.
     */
    public static String unavailableReason() {
        if (!probed) {
            synchronized (UringSupport.class) {
                if (!probed) {
                    unavailableReason = probe();
                    probed = true;
                }
            }
        }
        return unavailableReason;
    }

    private static String probe() {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return "io_uring needs Linux; this is " + os + ALTERNATIVE;
        }
        if (!arch.equals("amd64") && !arch.equals("x86_64")) {
            return "jasyncfio 0.0.7 ships a native library for linux-amd64 only; this is " + arch + ALTERNATIVE;
        }
        final String disabled = readDisabledSysctl();
        if ("2".equals(disabled)) {
            return "io_uring is disabled by the sysctl kernel.io_uring_disabled=2" + ALTERNATIVE;
        }
        try {
            UringExecutors.shared();
            return null;
        } catch (final Throwable ex) {
            return "cannot set up an io_uring instance (" + ex + "): the kernel may be older than 5.6, "
                    + "kernel.io_uring_disabled=" + (disabled == null ? "?" : disabled) + " may forbid it for this"
                    + " user, or a seccomp filter (common in containers) may block io_uring_setup" + ALTERNATIVE;
        }
    }

    private static String readDisabledSysctl() {
        try {
            return Files.readString(DISABLED_SYSCTL).trim();
        } catch (final IOException | RuntimeException ex) {
            return null;
        }
    }
}
