package io.walden.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The block device under a directory and the bytes read from and written to it: {@code
 * /sys/class/block/<device>/stat}, fields 3 and 7 (sectors read and written, 512-byte units). Every
 * reader and writer of the device counts, not only this process: on a shared machine a figure is an
 * upper bound, to compare side by side.
 *
 * <p><b>Threading:</b> immutable.
 *
 * @param name the device's name under {@code /sys/class/block}, e.g. {@code vda} or {@code dm-0}.
 */
record BlockDevice(String name) {
    private static final long SECTOR_BYTES = 512;
    // Fields of /sys/class/block/<device>/stat (Documentation/block/stat.rst), counted from 0.
    private static final int SECTORS_READ_FIELD = 2;
    private static final int SECTORS_WRITTEN_FIELD = 6;

    /**
     * The device that holds a directory, from {@code df}; a {@code /dev/mapper} name is resolved to its
     * {@code dm-N} device.
     *
     * @param directory an existing directory.
     * @return the device.
     * @throws IOException if df cannot tell, or the system has no statistics for the device.
     * @throws InterruptedException if interrupted while df runs.
     */
    static BlockDevice of(final Path directory) throws IOException, InterruptedException {
        final Process df = new ProcessBuilder("df", "--output=source", directory.toString())
                .redirectErrorStream(true)
                .start();
        final String[] lines = new String(df.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .trim()
                .split("\n");
        if (!df.waitFor(10, TimeUnit.SECONDS) || df.exitValue() != 0 || lines.length < 2) {
            throw new IOException("cannot tell the device of " + directory + " from df: " + String.join(" ", lines));
        }
        Path source = Path.of(lines[lines.length - 1].trim());
        if (Files.exists(source)) {
            source = source.toRealPath();
        }
        final BlockDevice device = new BlockDevice(source.getFileName().toString());
        device.bytesWritten();
        return device;
    }

    /**
     * Bytes written to the device since boot.
     *
     * @return bytes.
     * @throws IOException if its statistics cannot be read.
     */
    long bytesWritten() throws IOException {
        return sectors(SECTORS_WRITTEN_FIELD) * SECTOR_BYTES;
    }

    /**
     * Bytes read from the device since boot.
     *
     * @return bytes.
     * @throws IOException if its statistics cannot be read.
     */
    long bytesRead() throws IOException {
        return sectors(SECTORS_READ_FIELD) * SECTOR_BYTES;
    }

    private long sectors(final int field) throws IOException {
        final Path stat = Path.of("/sys/class/block", name, "stat");
        if (!Files.isReadable(stat)) {
            throw new IOException("no statistics for device '" + name + "' (" + stat + ")");
        }
        final String[] fields = Files.readString(stat).trim().split("\\s+");
        return Long.parseLong(fields[field]);
    }

    /**
     * Writes every dirty page to its device ({@code sync}) and drops the clean page cache ({@code
     * /proc/sys/vm/drop_caches}, which needs root), so that later reads and partial-page writes of the
     * files go to the device.
     *
     * @throws IOException if the cache cannot be dropped (not root, or no such file).
     * @throws InterruptedException if interrupted while sync runs.
     */
    static void dropPageCache() throws IOException, InterruptedException {
        final Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (!sync.waitFor(60, TimeUnit.SECONDS) || sync.exitValue() != 0) {
            throw new IOException("sync failed");
        }
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
        } catch (final IOException ex) {
            throw new IOException("cannot drop the page cache (/proc/sys/vm/drop_caches needs root): " + ex, ex);
        }
    }

    /**
     * Writes the dirty pages of the file system that holds a directory to its device ({@code sync -f}).
     *
     * @param directory a directory of the file system.
     * @throws IOException if sync fails.
     * @throws InterruptedException if interrupted.
     */
    static void syncFileSystem(final Path directory) throws IOException, InterruptedException {
        final Process sync = new ProcessBuilder("sync", "-f", directory.toString())
                .inheritIO()
                .start();
        if (!sync.waitFor(60, TimeUnit.SECONDS) || sync.exitValue() != 0) {
            throw new IOException("sync -f " + directory + " failed");
        }
    }
}
