package io.walden.uring.ffm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Finds out once per JVM whether this backend can run here, and if not, why: the platform (Linux on
 * x86_64: the system call numbers are that architecture's), the {@code kernel.io_uring_disabled}
 * sysctl, native access refused to this module, or a ring that cannot be set up (a kernel older than
 * 5.6, a seccomp filter in a container).
 *
 * <p><b>Threading:</b> thread-safe; the probe runs once.
 */
public final class FfmUringSupport {
    private static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");
    private static final String ALTERNATIVE =
            "; use the FileChannel backend instead (io.walden.nio.NioStorageBackend, module wal-nio)";

    private static volatile String unavailableReason;
    private static volatile boolean probed;

    private FfmUringSupport() {}

    /**
     * Why this backend cannot be used here, or null if it can.
     *
     * @return the reason, naming the cause and the alternative, or null.
     */
    public static String unavailableReason() {
        if (!probed) {
            synchronized (FfmUringSupport.class) {
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
            return "the FFM io_uring backend knows the system call numbers of x86_64 only; this is " + arch
                    + ALTERNATIVE;
        }
        final String disabled = readDisabledSysctl();
        if ("2".equals(disabled)) {
            return "io_uring is disabled by the sysctl kernel.io_uring_disabled=2" + ALTERNATIVE;
        }
        try {
            IoUring.open(2).close();
            return null;
        } catch (final IOException ex) {
            return "cannot set up an io_uring instance (" + ex.getMessage() + "): the kernel may be older than 5.6, "
                    + "kernel.io_uring_disabled=" + (disabled == null ? "?" : disabled) + " may forbid it for this"
                    + " user, or a seccomp filter (common in containers) may block io_uring_setup" + ALTERNATIVE;
        } catch (final IllegalCallerException ex) {
            return "native access is not enabled for the module io.walden.uring.ffm (" + ex.getMessage()
                    + "): run with --enable-native-access=io.walden.uring.ffm, or ALL-UNNAMED on the class path"
                    + ALTERNATIVE;
        } catch (final RuntimeException | LinkageError ex) {
            return "cannot call the C library through the Foreign Function API (" + ex + ")" + ALTERNATIVE;
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
