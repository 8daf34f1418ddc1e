package io.walden.internal;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The evidence a recovery keeps of what it cuts or discards, in the log's {@code recovery-evidence}
 * directory: a copy of a range of a segment, or a whole segment moved there. Each file, and the
 * directory entry that names it, is durable before the method returns, so the log may be changed
 * afterwards.
 *
 * <p>Files are named by the recovery's start time, so that evidence of successive recoveries stays
 * apart: {@code <stamp>-<segment>-<from position>-<to position>.cut} for a range, {@code
 * <stamp>-<segment file name>} for a segment.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class RecoveryEvidence {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final Path logDirectory;
    private final String stamp = STAMP.format(Instant.now());
    private final List<Path> files = new ArrayList<>();

    /**
     * Keeps evidence for a recovery of the log in a directory.
     *
     * @param logDirectory the log's directory.
     */
    RecoveryEvidence(final Path logDirectory) {
        this.logDirectory = logDirectory;
    }

    /** @return the evidence directory. */
    Path directory() {
        return logDirectory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
    }

    /** @return the files kept so far, oldest first. */
    List<Path> files() {
        return List.copyOf(files);
    }

    /** @return the file kept last. */
    Path last() {
        return files.get(files.size() - 1);
    }

    /**
     * Copies [from, to) of a segment into a new evidence file and makes it durable.
     *
     * @param scanner reads the segment.
     * @param segment the segment file.
     * @param base its base position.
     * @param fromOffset the range's start.
     * @param toOffset the range's end.
     * @throws IOException if the copy fails.
     */
    void keepRange(
            final SegmentScanner scanner,
            final Path segment,
            final long base,
            final long fromOffset,
            final long toOffset)
            throws IOException {
        final Path file = newFile(String.format(
                "%s-%020d-%020d.cut",
                segment.getFileName().toString().replace(SegmentNames.SEGMENT_SUFFIX, ""),
                base + fromOffset,
                base + toOffset));
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            scanner.copyRange(segment, fromOffset, toOffset, bytes -> {
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
            });
            out.force(true);
        }
        syncDirectory(directory());
        files.add(file);
    }

    /**
     * Moves a whole segment file into the evidence directory, durably in both directories.
     *
     * @param segment the segment file.
     * @throws IOException if the move fails.
     */
    void moveSegment(final Path segment) throws IOException {
        final Path target = newFile(segment.getFileName().toString());
        Files.move(segment, target, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(directory());
        syncDirectory(logDirectory);
        files.add(target);
    }

    private Path newFile(final String name) throws IOException {
        final Path evidenceDirectory = directory();
        if (!Files.isDirectory(evidenceDirectory)) {
            try {
                Files.createDirectory(evidenceDirectory);
            } catch (final FileAlreadyExistsException ex) {
                // Created meanwhile; fine.
            }
            syncDirectory(logDirectory);
        }
        Path file = evidenceDirectory.resolve(stamp + "-" + name);
        for (int i = 2; Files.exists(file); i++) {
            file = evidenceDirectory.resolve(stamp + "-" + i + "-" + name);
        }
        return file;
    }

    private static void syncDirectory(final Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
