package io.walden.testing;

import io.walden.spi.FileSystemTypes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A directory on a file system that refuses O_DIRECT (open answers EINVAL), for the tests of what a
 * backend says then. Where it is:
 *
 * <ul>
 *   <li>on tmpfs ({@code /dev/shm}) where the kernel's tmpfs has no direct I/O (before Linux 6.6,
 *       which added it);
 *   <li>else on a ramfs mounted for the test, which has no direct I/O on any kernel (mounting needs
 *       root, as the crash tests' loop file system does; CI runs as root).
 * </ul>
 *
 * <p>Where neither is possible, {@link #create} skips the test, saying why. A probe with {@code dd
 * oflag=direct} tells whether tmpfs refuses O_DIRECT: the JDK's own O_DIRECT option is an internal
 * API that JDK 21 and later warn about, and tests compile with warnings as errors.
 *
 * <p><b>Threading:</b> one thread.
 */
public final class NoDirectIoDirectory implements AutoCloseable {
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");
    private static final long COMMAND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private final Path path;
    private final Path mountPoint;

    private NoDirectIoDirectory(final Path path, final Path mountPoint) {
        this.path = path;
        this.mountPoint = mountPoint;
    }

    /**
     * Makes a directory on a file system without O_DIRECT, or skips the test if none can be had.
     *
     * @param scratch a directory of the test's own (on a real disk), where a ramfs is mounted if needed.
     * @return the directory; close it to delete it (and unmount the ramfs).
     * @throws IOException if the probe or the mount fails for another reason than a missing right.
     * @throws InterruptedException if interrupted.
     */
    public static NoDirectIoDirectory create(final Path scratch) throws IOException, InterruptedException {
        final String sharedMemoryType = Files.isDirectory(SHARED_MEMORY) ? FileSystemTypes.type(SHARED_MEMORY) : null;
        if ("tmpfs".equals(sharedMemoryType)) {
            final Path directory = Files.createTempDirectory(SHARED_MEMORY, "walden-no-direct-io-");
            if (refusesDirectIo(directory)) {
                return new NoDirectIoDirectory(directory, null);
            }
            TestFiles.deleteRecursively(directory);
        }
        final String uid = run(List.of("id", "-u")).output().trim();
        Assumptions.assumeTrue(
                "0".equals(uid),
                () -> "no file system without O_DIRECT to test on: "
                        + (sharedMemoryType == null
                                ? "no tmpfs at /dev/shm"
                                : "tmpfs".equals(sharedMemoryType)
                                        ? "tmpfs at /dev/shm supports O_DIRECT on this kernel (Linux 6.6 and later)"
                                        : "/dev/shm is " + sharedMemoryType + ", not tmpfs")
                        + ", and mounting a ramfs needs root; this user is uid " + uid);
        final Path mountPoint = Files.createDirectories(scratch.resolve("ramfs").toAbsolutePath());
        final Command mount =
                run(List.of("mount", "-t", "ramfs", "-o", "mode=0700", "walden-test", mountPoint.toString()));
        if (mount.status() != 0) {
            throw new IOException("mount -t ramfs on " + mountPoint + " failed: " + mount.output());
        }
        final NoDirectIoDirectory directory = new NoDirectIoDirectory(mountPoint, mountPoint);
        if (!refusesDirectIo(mountPoint)) {
            directory.close();
            throw new IOException("ramfs at " + mountPoint + " accepts O_DIRECT: no file system to test on");
        }
        return directory;
    }

    /** @return the directory; the file system below it refuses O_DIRECT. */
    public Path path() {
        return path;
    }

    /** @return the type of its file system, as {@link FileSystemTypes#type} names it. */
    public String fileSystemType() {
        return FileSystemTypes.type(path);
    }

    /** Deletes what the directory holds and, for a ramfs, unmounts it. */
    @Override
    public void close() throws IOException {
        if (mountPoint == null) {
            TestFiles.deleteRecursively(path);
            return;
        }
        try {
            if (run(List.of("umount", mountPoint.toString())).status() != 0) {
                // Busy (a file still open): detach lazily so that nothing is left mounted.
                run(List.of("umount", "-l", mountPoint.toString()));
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting " + mountPoint, ex);
        }
        Files.deleteIfExists(mountPoint);
    }

    private static boolean refusesDirectIo(final Path directory) throws IOException, InterruptedException {
        final Path probe = directory.resolve("o_direct-probe");
        final Command dd =
                run(List.of("dd", "if=/dev/zero", "of=" + probe, "bs=4096", "count=1", "oflag=direct", "status=none"));
        Files.deleteIfExists(probe);
        return dd.status() != 0;
    }

    private static Command run(final List<String> command) throws IOException, InterruptedException {
        final Process process =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(COMMAND_TIMEOUT_NS, TimeUnit.NANOSECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 60 s");
        }
        return new Command(process.exitValue(), new String(output, StandardCharsets.UTF_8).trim());
    }

    private record Command(int status, String output) {}
}
