package io.walden.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Finds out once whether the kernel lets this process use io_uring, and if not, why: the platform
 * (Linux, and the architecture the backend is built for), the {@code kernel.io_uring_disabled}
 * sysctl, or a ring that cannot be set up (a kernel older than 5.6, the sysctl forbidding it to
 * this user, a seccomp filter returning EPERM or ENOSYS). Each io_uring backend holds one probe and
 * sets up a ring its own way ({@link RingSetup}); every reason is worded alike and names the
 * FileChannel backend as the alternative. It is in the SPI because both io_uring backends need it;
 * it knows neither binding.
 *
 * <p><b>Threading:</b> thread-safe; the probe runs once, on the first call to {@link
 * #unavailableReason()}.
 */
public final class IoUringProbe {
    /** What every reason ends with: the backend to use instead. */
    public static final String ALTERNATIVE =
            "; use the FileChannel backend instead (io.walden.nio.NioStorageBackend, module wal-nio)";

    private static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");

    /** How a backend finds out whether it can set up a ring. */
    @FunctionalInterface
    public interface RingSetup {
        /**
         * Sets up a ring (a small one, or the backend's shared one) and closes what it opened.
         *
         * @return null if it could; else why not, where the kernel is not to blame (native access
         *     refused, a library that cannot be called), without the alternative, which the probe adds.
         * @throws Throwable if setting up the ring failed otherwise: the probe names the kernel's likely
         *     reasons along with it.
         */
        String setUp() throws Throwable;
    }

    private final String x86OnlyReason;
    private final RingSetup setup;
    // Written once under this probe's lock; read by any thread.
    private volatile String unavailableReason;
    private volatile boolean probed;

    /**
     * Creates a probe, which runs on the first call to {@link #unavailableReason()}.
     *
     * @param x86OnlyReason why the backend runs on x86_64 only, for example "jasyncfio 0.0.7 ships a
     *     native library for linux-amd64 only"; null if it runs on any architecture.
     * @param setup how the backend sets up a ring.
     */
    public IoUringProbe(final String x86OnlyReason, final RingSetup setup) {
        this.x86OnlyReason = x86OnlyReason;
        this.setup = setup;
    }

    /**
     * @return why the backend cannot use io_uring here, naming the cause and the alternative, or
     *     null if it can.
     */
    public String unavailableReason() {
        if (!probed) {
            synchronized (this) {
                if (!probed) {
                    unavailableReason = probe();
                    probed = true;
                }
            }
        }
        return unavailableReason;
    }

    private String probe() {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return "io_uring needs Linux; this is " + os + ALTERNATIVE;
        }
        if (x86OnlyReason != null && !arch.equals("amd64") && !arch.equals("x86_64")) {
            return x86OnlyReason + "; this is " + arch + ALTERNATIVE;
        }
        final String disabled = readDisabledSysctl();
        if ("2".equals(disabled)) {
            return "io_uring is disabled by the sysctl kernel.io_uring_disabled=2" + ALTERNATIVE;
        }
        try {
            final String refused = setup.setUp();
            return refused == null ? null : refused + ALTERNATIVE;
        } catch (final Throwable ex) {
            final String cause = ex instanceof IOException ? ex.getMessage() : String.valueOf(ex);
            return "cannot set up an io_uring instance (" + cause + "): the kernel may be older than 5.6, "
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
