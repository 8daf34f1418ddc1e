package io.walden.internal.recovery;

import io.walden.format.EvidenceFiles;
import io.walden.format.SegmentNames;
import io.walden.internal.state.NoSpace;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The evidence a recovery keeps of what it cuts or discards, in the log's {@code recovery-evidence}
 * directory ({@link EvidenceFiles} names the files): a copy of a range of a segment, or a whole
 * segment. Each file, and the directory entry that names it, is durable before the method returns, so
 * the log may be changed afterwards.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class RecoveryEvidence {
    private final Path logDirectory;
    private final String stamp = EvidenceFiles.stamp(Instant.now());
    private final List<Path> files = new ArrayList<>();

    RecoveryEvidence(final Path logDirectory) {
        this.logDirectory = logDirectory;
    }

    Path directory() {
        return logDirectory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
    }

    List<Path> files() {
        return List.copyOf(files);
    }

    Path last() {
        return files.get(files.size() - 1);
    }

    void keepRange(
            final SegmentScanner scanner,
            final Path segment,
            final long base,
            final long fromOffset,
            final long toOffset)
            throws IOException {
        final Path file;
        try {
            file = EvidenceFiles.newFile(
                    logDirectory, stamp, EvidenceFiles.rangeName(segment, base + fromOffset, base + toOffset));
        } catch (final IOException ex) {
            throw NoSpace.isNoSpace(ex) ? noRoomFor(toOffset - fromOffset, ex) : ex;
        }
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            scanner.copyRange(segment, fromOffset, toOffset, bytes -> {
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
            });
            out.force(true);
        } catch (final IOException ex) {
            // A partial copy is no evidence, and holds space a full file system needs: gone before
            // the failure is reported (the segment is not changed until the copy is durable).
            try {
                Files.deleteIfExists(file);
            } catch (final IOException deleteFailure) {
                ex.addSuppressed(deleteFailure);
            }
            throw NoSpace.isNoSpace(ex) ? noRoomFor(toOffset - fromOffset, ex) : ex;
        }
        EvidenceFiles.syncDirectory(directory());
        files.add(file);
    }

    /**
     * The space forecast ({@link RecoverySpace}) passed, yet the evidence found no room: XFS, for one,
     * needs a free aligned inode chunk to create a file. Reported as the forecast's refusal is.
     */
    private FileSystemException noRoomFor(final long evidenceBytes, final IOException cause) {
        final FileSystemException refusal = new FileSystemException(
                logDirectory.toString(),
                null,
                "No space left on device: recovery must keep " + evidenceBytes + " bytes of evidence of what it"
                        + " cuts before it cuts it, and the file system has no room for them (" + cause.getMessage()
                        + "; XFS also needs room for a new inode chunk); nothing was changed in the segment it cuts:"
                        + " free at least " + (evidenceBytes + RecoverySpace.SLACK_BYTES) + " bytes on this file"
                        + " system, and more if it still refuses, then open the log again");
        refusal.initCause(cause);
        return refusal;
    }

    /**
     * Keeps a segment file as evidence in place, as a hard link (a copy where there are none), so that
     * the caller replaces it in one rename and its name is never missing.
     */
    void keepSegment(final Path segment) throws IOException {
        final Path target =
                EvidenceFiles.newFile(logDirectory, stamp, segment.getFileName().toString());
        try {
            Files.createLink(target, segment);
        } catch (final UnsupportedOperationException | FileSystemException noLink) {
            try {
                Files.copy(segment, target);
                try (FileChannel copy = FileChannel.open(target, StandardOpenOption.WRITE)) {
                    copy.force(true);
                }
            } catch (final IOException ex) {
                // A partial copy is no evidence, and holds space: gone before the failure is reported.
                ex.addSuppressed(noLink);
                try {
                    Files.deleteIfExists(target);
                } catch (final IOException deleteFailure) {
                    ex.addSuppressed(deleteFailure);
                }
                throw ex;
            }
        }
        EvidenceFiles.syncDirectory(directory());
        files.add(target);
    }

    void moveSegment(final Path segment) throws IOException {
        final Path target =
                EvidenceFiles.newFile(logDirectory, stamp, segment.getFileName().toString());
        Files.move(segment, target, StandardCopyOption.ATOMIC_MOVE);
        EvidenceFiles.syncDirectory(directory());
        EvidenceFiles.syncDirectory(logDirectory);
        files.add(target);
    }
}
