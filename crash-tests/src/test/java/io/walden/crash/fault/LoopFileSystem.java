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
 * A small real file system (ext4, XFS or btrfs) on a loop device over an image file, to fill to
 * ENOSPC: {@code truncate -s}, {@code mkfs.<type>}, {@code mount -o loop} (the loop device is released
 * again by {@code umount}). Needs root, and for XFS and btrfs their tools ({@code xfsprogs}, {@code
 * btrfs-progs}, which {@code .ci/run} installs). XFS refuses file systems below 300 MB unless made for
 * a test, as here (the variables fstests sets).
 *
 * <p><b>Threading:</b> used by one thread.
 */
public final class LoopFileSystem implements AutoCloseable {
    /** The file systems it makes, each with its {@code mkfs} command. */
    public enum Type {
        EXT4(List.of("mkfs.ext4", "-q", "-F"), false),
        XFS(List.of("mkfs.xfs", "-q", "-f"), false),
        BTRFS(List.of("mkfs.btrfs", "-q", "-f"), false),
        /** btrfs with {@code chattr +C} on its root: files made in it are overwritten in place. */
        BTRFS_NOCOW(List.of("mkfs.btrfs", "-q", "-f"), true);

        private final List<String> mkfs;
        private final boolean noCopyOnWrite;

        Type(final List<String> mkfs, final boolean noCopyOnWrite) {
            this.mkfs = mkfs;
            this.noCopyOnWrite = noCopyOnWrite;
        }

        /** @return its name in lower case ({@code btrfs_nocow} for the variant). */
        public String mountName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** @return whether it copies on write (btrfs without {@code chattr +C}). */
        boolean copiesOnWrite() {
            return this == BTRFS;
        }
    }

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
    public static String unavailableReason() throws IOException, InterruptedException {
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
        return mount(workDirectory, sizeBytes, Type.EXT4, List.of());
    }

    /**
     * Creates and mounts a file system of a type.
     *
     * @param workDirectory where the image and the mount point go (on a real disk).
     * @param sizeBytes size of the image.
     * @param type the file system.
     * @return the mounted file system; close it to unmount.
     * @throws IOException if any step fails (the tool missing, too), with the command's output.
     * @throws InterruptedException if interrupted.
     */
    public static LoopFileSystem mount(final Path workDirectory, final long sizeBytes, final Type type)
            throws IOException, InterruptedException {
        return mount(workDirectory, sizeBytes, type, List.of());
    }

    /**
     * Makes and mounts an image as {@link #mount(Path, long)}, with options for {@code mkfs} (e.g.
     * {@code -N 32} for an ext4 that runs out of inodes first).
     *
     * @param workDirectory where the image and the mount point go.
     * @param sizeBytes the image's size.
     * @param type the file system.
     * @param mkfsOptions extra options for mkfs.
     * @return the mounted file system; close it to unmount.
     * @throws IOException if any step fails, with the command's output.
     * @throws InterruptedException if interrupted.
     */
    static LoopFileSystem mount(
            final Path workDirectory, final long sizeBytes, final Type type, final List<String> mkfsOptions)
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
        final List<String> mkfs = new java.util.ArrayList<>(type.mkfs);
        mkfs.addAll(mkfsOptions);
        mkfs.add(image.toString());
        run(mkfs);
        run(List.of("mount", "-o", "loop", image.toString(), mountPoint.toString()));
        fileSystem.mounted = true;
        if (type.noCopyOnWrite) {
            run(List.of("chattr", "+C", mountPoint.toString()));
        }
        return fileSystem;
    }

    /** @return where it is mounted. */
    public Path mountPoint() {
        return mountPoint;
    }

    /**
     * Writes a file until the file system reports ENOSPC (nothing, if it cannot even be created for
     * lack of space).
     *
     * @param file the file to grow.
     * @return the bytes written.
     * @throws IOException if a write fails with anything but ENOSPC, or never fails.
     */
    static long fill(final Path file) throws IOException {
        final ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
        long written = 0;
        try {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        } catch (final IOException ex) {
            if (String.valueOf(ex.getMessage()).contains("No space left on device")) {
                // Full already, so full that no file can be made (XFS needs room for its inodes).
                return 0;
            }
            throw ex;
        }
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

    /**
     * Deletes files and syncs their file system ({@code sync -f}), as an operator freeing space would
     * before opening a log: btrfs counts the space of deleted files as free only once its transaction
     * commits (every 30 s by default). Writes of an open log do not need this: btrfs commits by itself
     * when a reservation finds no space.
     *
     * @param files the files to delete, on this kind of file system.
     * @throws IOException if a delete or the sync fails.
     * @throws InterruptedException if interrupted.
     */
    static void freeSpace(final Path... files) throws IOException, InterruptedException {
        for (final Path file : files) {
            // A filler made on a file system already full may not exist.
            Files.deleteIfExists(file);
        }
        syncFileSystem(files[0].toAbsolutePath().getParent());
    }

    /**
     * Syncs the file system holding a path ({@code sync -f}): its free space then counts what deletes
     * freed (XFS inactivates deleted inodes in the background; btrfs frees at its commit).
     *
     * @param path a path on it.
     * @throws IOException if the sync fails.
     * @throws InterruptedException if interrupted.
     */
    static void syncFileSystem(final Path path) throws IOException, InterruptedException {
        run(List.of("sync", "-f", path.toString()));
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
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // mkfs.xfs makes a file system below 300 MB only for a test suite; these say it is one.
        builder.environment().put("TEST_DIR", "1");
        builder.environment().put("TEST_DEV", "1");
        builder.environment().put("QA_CHECK_FS", "1");
        final Process process = builder.start();
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
