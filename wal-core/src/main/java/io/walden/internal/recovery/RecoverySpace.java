package io.walden.internal.recovery;

import io.walden.format.SegmentNames;
import io.walden.internal.state.NoSpace;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Refuses a recovery that would run out of space part way, before it changes anything, by comparing
 * what it must write to new blocks (the evidence of a cut tail, a new segment) with the free space;
 * the refusal says how much to free. A forecast, not a reservation: a write that fails later is
 * reported the same way ({@link NoSpace}).
 *
 * <p><b>Threading:</b> stateless.
 */
final class RecoverySpace {
    /** Room for what files need besides their bytes: directory entries, blocks, an XFS inode chunk. */
    static final long SLACK_BYTES = 64 * 1024;

    /** The base in the name of the probe file ({@link #fileCanBeMade}): no segment has it. */
    private static final long PROBE_BASE = Long.MAX_VALUE;

    private RecoverySpace() {}

    /**
     * Whether a new segment fits beside the evidence now. Where it does not, the log opens at the end
     * of its last segment and the running log prepares the next one once space appears (appends wait
     * meanwhile), so that a service can open a log that crashed on a full disk and free space with
     * retention.
     */
    static boolean segmentFits(
            final Path directory, final long evidenceBytes, final long segmentBytes, final long reclaimableBytes)
            throws IOException {
        final FileStore store = Files.getFileStore(directory);
        return store.getTotalSpace() == 0
                || store.getUsableSpace() + reclaimableBytes >= evidenceBytes + segmentBytes + SLACK_BYTES;
    }

    /**
     * Refuses with a {@link FileSystemException} whose reason is the file system's "No space left
     * on device", so that it is reported as {@code STORAGE_SPACE} like the write it forestalls.
     */
    static void require(
            final Path directory, final long evidenceBytes, final long segmentBytes, final long reclaimableBytes)
            throws IOException {
        if (evidenceBytes == 0 && segmentBytes == 0) {
            return;
        }
        final long neededBytes = evidenceBytes + segmentBytes + SLACK_BYTES;
        final FileStore store = Files.getFileStore(directory);
        if (store.getTotalSpace() == 0) {
            // A file system that keeps no account of its space (ramfs reports none): nothing to check.
            return;
        }
        final long freeBytes = store.getUsableSpace() + reclaimableBytes;
        if (freeBytes >= neededBytes && (evidenceBytes == 0 || fileCanBeMade(directory))) {
            return;
        }
        throw new FileSystemException(
                directory.toString(),
                null,
                "No space left on device: recovery must write " + neededBytes + " bytes before the log can open ("
                        + (evidenceBytes > 0 ? evidenceBytes + " bytes of evidence of what it cuts" : "")
                        + (evidenceBytes > 0 && segmentBytes > 0 ? ", " : "")
                        + (segmentBytes > 0 ? "a new segment of " + segmentBytes + " bytes" : "")
                        + ") and " + freeBytes + " bytes are free (with what its leftover temporary files hold"
                        + (freeBytes >= neededBytes
                                ? ", but no new file can be made: XFS needs room for an inode chunk"
                                : "")
                        + "); nothing was changed: free at least "
                        + Math.max(SLACK_BYTES, neededBytes - freeBytes)
                        + " bytes on this file system, then open the log"
                        + " again");
    }

    /**
     * Whether a file can be made in the directory: free bytes do not promise it (XFS needs a free
     * inode chunk). The evidence is recovery's first new file; a probe made and removed at once tells,
     * named as a leftover temporary that the next open removes should a crash come between.
     */
    private static boolean fileCanBeMade(final Path directory) throws IOException {
        final Path probe = directory.resolve(SegmentNames.temporaryName(PROBE_BASE));
        try {
            Files.createFile(probe);
        } catch (final IOException ex) {
            if (NoSpace.isNoSpace(ex)) {
                return false;
            }
            throw ex;
        }
        Files.delete(probe);
        return true;
    }
}
