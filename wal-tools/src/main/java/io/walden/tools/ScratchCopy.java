package io.walden.tools;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A throw-away copy of a log directory, for {@code repair --dry-run}: recovery runs on the copy, so
 * what it reports is what it would do to the log, and not a byte of the log changes. Copies every
 * regular file of the log directory but its lock file ({@code recovery-evidence/} stays behind:
 * recovery never reads it), leaving blocks of zeros as holes, so a log's zero-filled segment tails
 * take no space where the file system makes sparse files. {@link #close} deletes the copy.
 *
 * <p>The copy needs up to the log's size in the scratch directory, plus a segment that recovery may
 * prepare there; it is refused beforehand, naming the directory and {@code --scratch}, when the file
 * system has less room.
 *
 * <p><b>Threading:</b> one thread.
 */
final class ScratchCopy implements AutoCloseable {
    private static final int CHUNK_BYTES = 1024 * 1024;

    private final Path path;

    private ScratchCopy(final Path path) {
        this.path = path;
    }

    /**
     * Copies a log directory into a new directory under {@code scratchRoot}.
     *
     * @param log the log directory as listed (its files must not change meanwhile: no process has the
     *     log open).
     * @param scratchRoot where to make the copy.
     * @param capacityBytes the log's segment capacity, which recovery may need once more.
     * @return the copy; close it to delete it.
     * @throws ToolException ({@link Walden#EXIT_UNREADABLE}) if there is no room for it.
     * @throws IOException if copying fails.
     */
    static ScratchCopy of(final LogDirectory log, final Path scratchRoot, final long capacityBytes) throws IOException {
        final List<Path> files = files(log.path());
        long bytes = capacityBytes;
        for (final Path file : files) {
            bytes += Files.size(file);
        }
        Files.createDirectories(scratchRoot);
        final long free = Files.getFileStore(scratchRoot).getUsableSpace();
        if (free < bytes) {
            throw new ToolException(
                    Walden.EXIT_UNREADABLE,
                    "repair --dry-run copies the log in " + log.path() + " to " + scratchRoot + " and runs recovery on"
                            + " the copy: that needs up to " + bytes + " bytes, and " + free + " are free there. Give"
                            + " --scratch a directory on a file system with room (the copy is deleted afterwards)."
                            + " Nothing was changed");
        }
        final ScratchCopy copy = new ScratchCopy(Files.createTempDirectory(scratchRoot, "walden-repair-dry-run-"));
        try {
            for (final Path file : files) {
                copySparse(file, copy.path.resolve(file.getFileName().toString()));
            }
        } catch (final IOException | RuntimeException ex) {
            copy.close();
            throw ex;
        }
        return copy;
    }

    /** @return the copy's directory. */
    Path path() {
        return path;
    }

    /** Deletes the copy. */
    @Override
    public void close() {
        try (Stream<Path> walk = Files.walk(path)) {
            for (final Path entry : walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(entry);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(
                    "cannot delete the dry run's copy of the log in " + path + ": delete that directory by hand", ex);
        }
    }

    private static List<Path> files(final Path directory) throws IOException {
        try (Stream<Path> listing = Files.list(directory)) {
            return listing.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static void copySparse(final Path from, final Path to) throws IOException {
        final ByteBuffer chunk = ByteBuffer.allocate(CHUNK_BYTES);
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            final long size = in.size();
            long at = 0;
            while (at < size) {
                chunk.clear();
                final int read = in.read(chunk, at);
                if (read < 0) {
                    throw new IOException(from + " ended at " + at + " while it was copied: is a process writing it?");
                }
                chunk.flip();
                if (!zeros(chunk)) {
                    long written = at;
                    while (chunk.hasRemaining()) {
                        written += out.write(chunk, written);
                    }
                }
                at += read;
            }
            if (size > 0 && out.size() < size) {
                // A file ending in zeros gets its size from its last byte, a zero.
                out.write(ByteBuffer.allocate(1), size - 1);
            }
        }
    }

    private static boolean zeros(final ByteBuffer chunk) {
        for (int i = chunk.position(); i < chunk.limit(); i++) {
            if (chunk.get(i) != 0) {
                return false;
            }
        }
        return true;
    }
}
