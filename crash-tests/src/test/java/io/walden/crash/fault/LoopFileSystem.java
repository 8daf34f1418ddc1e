package io.walden.crash.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small real ext4 file system on a loop device over an image file, to fill to ENOSPC: {@code truncate
 * -s}, {@code mkfs.ext4 -q -F}, {@code mount -o loop} (the loop device is released again by {@code
 * umount}). Needs root.
 *
 * <p><b>Threading:</b> used by one thread.
 */
final class LoopFileSystem implements AutoCloseable {
    private static final long COMMAND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private final Path image;
    private final Path mountPoint;
    private boolean mounted;

    private LoopFileSystem(final Path image, final Path mountPoint) {
        this.image = image;
        this.mountPoint = mountPoint;
    }

    /**
     * Why no loop file system can be mounted here, or null if it can be tried: only a user who is not root
     * is a reason; anything else that goes wrong is a failure of {@link #mount}.
     *
     * @return the reason, or null.
     * @throws IOException if {@code id -u} cannot be run.
     * @throws InterruptedException if interrupted.
     */
    static String unavailableReason() throws IOException, InterruptedException {
        final String uid = run(List.of("id", "-u")).trim();
        return "0".equals(uid) ? null : "mounting a loop file system needs root; this user is uid " + uid;
    }

    /**
     * Creates and mounts a file system.
     *
     * @param workDirectory where the image and the mount point go (on a real disk).
     * @param sizeBytes size of the image.
     * @return the mounted file system; close it to unmount.
     * @throws IOException if any step fails, with the command's output.
     * @throws InterruptedException if interrupted.
     */
    static LoopFileSystem mount(final Path workDirectory, final long sizeBytes)
            throws IOException, InterruptedException {
        return mount(workDirectory, sizeBytes, List.of());
    }

    /**
     * Makes and mounts an ext4 image as {@link #mount(Path, long)}, with options for {@code mkfs.ext4}
     * (e.g. {@code -N 32} for a file system that runs out of inodes first).
     *
     * @param workDirectory where the image and the mount point go.
     * @param sizeBytes the image's size.
     * @param mkfsOptions extra options for mkfs.ext4.
     * @return the mounted file system; close it to unmount.
     * @throws IOException if any step fails, with the command's output.
     * @throws InterruptedException if interrupted.
     */
    static LoopFileSystem mount(final Path workDirectory, final long sizeBytes, final List<String> mkfsOptions)
            throws IOException, InterruptedException {
        Files.createDirectories(workDirectory);
        final Path image = workDirectory.resolve("fs.img").toAbsolutePath();
        final Path mountPoint = workDirectory.resolve("mnt").toAbsolutePath();
        final LoopFileSystem fileSystem = new LoopFileSystem(image, mountPoint);
        if (Files.readString(Path.of("/proc/self/mounts")).contains(" " + mountPoint + " ")) {
            // Left mounted by a test JVM that died: unmount it first.
            fileSystem.mounted = true;
            fileSystem.close();
        }
        Files.deleteIfExists(image);
        Files.createDirectories(mountPoint);
        run(List.of("truncate", "-s", Long.toString(sizeBytes), image.toString()));
        final List<String> mkfs = new java.util.ArrayList<>(List.of("mkfs.ext4", "-q", "-F"));
        mkfs.addAll(mkfsOptions);
        mkfs.add(image.toString());
        run(mkfs);
        run(List.of("mount", "-o", "loop", image.toString(), mountPoint.toString()));
        fileSystem.mounted = true;
        return fileSystem;
    }

    /** @return where it is mounted. */
    Path mountPoint() {
        return mountPoint;
    }

    /**
     * Writes a file until the file system reports ENOSPC.
     *
     * @param file the file to grow.
     * @return the bytes written.
     * @throws IOException if a write fails with anything but ENOSPC, or never fails.
     */
    static long fill(final Path file) throws IOException {
        final ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
        long written = 0;
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            while (true) {
                chunk.clear();
                try {
                    while (chunk.hasRemaining()) {
                        written += channel.write(chunk);
                    }
                } catch (final IOException ex) {
                    if (ex.getMessage() != null && ex.getMessage().contains("No space left on device")) {
                        channel.force(true);
                        return written;
                    }
                    throw ex;
                }
                if (written > (1L << 34)) {
                    throw new IOException("wrote 16 GiB to " + file + " without ENOSPC: not a small file system");
                }
            }
        }
    }

    /** Unmounts (releasing the loop device) and deletes the image. */
    @Override
    public void close() throws IOException {
        if (mounted) {
            try {
                try {
                    run(List.of("umount", mountPoint.toString()));
                } catch (final IOException ex) {
                    // Busy (a file still open): detach lazily so that nothing is left mounted.
                    run(List.of("umount", "-l", mountPoint.toString()));
                }
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while unmounting " + mountPoint, ex);
            }
            mounted = false;
        }
        Files.deleteIfExists(image);
        Files.deleteIfExists(mountPoint);
    }

    private static String run(final List<String> command) throws IOException, InterruptedException {
        final Process process =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(COMMAND_TIMEOUT_NS, TimeUnit.NANOSECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 60 s");
        }
        final String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(
                    String.join(" ", command) + " failed with status " + process.exitValue() + ": " + text.trim());
        }
        return text;
    }
}
