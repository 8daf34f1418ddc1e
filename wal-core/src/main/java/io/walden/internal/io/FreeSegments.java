package io.walden.internal.io;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The segment files retention freed and keeps for reuse, up to {@code WalConfig.recycledSegmentsMax}:
 * each named {@code <base it had>.wal.free}, which recovery does not read, and made a next segment by
 * {@link SegmentPreparer} instead of a new file (docs/design/recycling.md).
 *
 * <p>Retention asks {@link #wantsMore()} before it frees a segment: if so it renames it instead of
 * deleting it, and {@link #add adds} it once the rename is durable. At open the free files are found
 * again; one of another size is left alone, and those past the bound are deleted.
 *
 * <p><b>Threading:</b> created by the opening thread; then owned by the holder of the I/O duty.
 */
final class FreeSegments {
    private static final System.Logger LOGGER = System.getLogger(FreeSegments.class.getName());

    private final Path directory;
    private final int max;
    private final ArrayDeque<Path> files = new ArrayDeque<>();
    // Renames retention submitted whose directory sync has not completed yet.
    private int pending;

    FreeSegments(final Path directory, final int max) {
        this.directory = directory;
        this.max = max;
    }

    static FreeSegments find(final Path directory, final long segmentCapacityBytes, final int max) throws IOException {
        final FreeSegments free = new FreeSegments(directory, max);
        free.addExisting(segmentCapacityBytes);
        return free;
    }

    private void addExisting(final long segmentCapacityBytes) throws IOException {
        final TreeMap<Long, Path> found = new TreeMap<>();
        try (Stream<Path> entries = Files.list(directory)) {
            for (final Path path : (Iterable<Path>) entries::iterator) {
                final long base = SegmentNames.parseFreeName(path.getFileName().toString());
                if (base >= 0 && Files.isRegularFile(path) && Files.size(path) == segmentCapacityBytes) {
                    found.put(base, path);
                }
            }
        }
        for (final Path path : found.values()) {
            if (files.size() < max) {
                files.add(path);
            } else {
                Files.delete(path);
                LOGGER.log(
                        Level.INFO, "deleted " + path + ": more freed segment files than recycledSegmentsMax=" + max);
            }
        }
    }

    /** Whether retention should keep the next segment it frees rather than delete it. */
    boolean wantsMore() {
        return files.size() + pending < max;
    }

    /** Retention submitted the rename of a segment to its free name. */
    Path renaming(final long base) {
        pending++;
        return directory.resolve(SegmentNames.freeName(base));
    }

    void add(final Path path) {
        pending--;
        files.add(path);
    }

    /** The submitted rename failed and changed nothing: the segment is deleted instead. */
    void renameFailed() {
        pending--;
    }

    /** The rename failed, or the log closed before it was durable: the file is not offered. */
    void dropPending() {
        pending = 0;
    }

    /** A free file to reuse, oldest first, or null if there is none. */
    Path take() {
        return files.poll();
    }

    int size() {
        return files.size();
    }
}
