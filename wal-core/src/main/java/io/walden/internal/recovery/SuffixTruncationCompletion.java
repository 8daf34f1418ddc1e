package io.walden.internal.recovery;

import io.walden.WalCorruptionException;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.SuffixTruncationRecord;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.TreeMap;

/**
 * Finishes a suffix truncation ({@code truncateAfter}) that its record says began: every later
 * segment up to the continue position is replaced by one that holds a discard frame (newest first),
 * the segment that holds the cut is zeroed from the cut on and closed with a discard frame, and the
 * record is deleted. Each step is synced before the next, and the record stays until the end, so a
 * crash at any step is completed again by the next open. Nothing is kept as evidence; the records
 * before the cut must be intact.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class SuffixTruncationCompletion {
    private final Path directory;
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryWriter writer;
    private final RecoveryTally tally;
    private final long logId;
    private final int capacityBytes;
    private final int maxFrameBytes;

    SuffixTruncationCompletion(
            final Path directory,
            final BlockingIo io,
            final RecoveryWriter writer,
            final RecoveryTally tally,
            final SegmentInventory.Identity identity,
            final int maxFrameBytes) {
        this.directory = directory;
        this.session = io == null ? null : io.session();
        this.io = io;
        this.writer = writer;
        this.tally = tally;
        this.logId = identity.logId();
        this.capacityBytes = identity.capacityBytes();
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * Reads the record, if the directory holds one, and refuses one that is not a valid record of
     * this log. A read-only inspection reports it as a finding and gets null. Cold path.
     */
    SuffixTruncationRecord read() throws IOException {
        final Path path = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (!Files.exists(path)) {
            return null;
        }
        final ByteBuffer block = ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            if (channel.size() != SuffixTruncationDescriptor.LENGTH || !FileReads.readFully(channel, block, 0)) {
                throw new WalCorruptionException(
                        path,
                        0,
                        "the suffix-truncation record is " + channel.size() + " bytes long, not "
                                + SuffixTruncationDescriptor.LENGTH
                                + "; it is written whole and renamed into place, so it is damaged");
            }
        }
        final SuffixTruncationRecord record;
        try {
            record = SuffixTruncationRecord.read(block.clear(), capacityBytes);
        } catch (final IllegalArgumentException ex) {
            throw new WalCorruptionException(path, 0, "the suffix-truncation record is damaged: " + ex.getMessage());
        }
        if (record.logId() != logId) {
            throw new WalCorruptionException(
                    path,
                    SuffixTruncationDescriptor.LOG_ID_OFFSET,
                    "the suffix-truncation record belongs to another log (identity " + Long.toHexString(record.logId())
                            + ", this log's is " + Long.toHexString(logId) + ")");
        }
        if (session == null) {
            tally.finding("a suffix truncation (truncateAfter) is pending: the next open discards positions "
                    + record.cutPosition() + " to " + record.continuePosition()
                    + "; what follows describes the log before it");
        }
        return session == null ? null : record;
    }

    /** Refuses if the segment that holds the cut is gone or its kept records are damaged. */
    /**
     * Deletes a segment prepared ahead at the continue position that holds no record, so that the log
     * continues at its first frame, in a new one, as the record says: the prepared file's write limit
     * would make the next recovery continue at that limit instead.
     */
    void dropUnusedAt(final TreeMap<Long, Path> segments, final long base) throws IOException {
        final Path path = segments.get(base);
        if (path == null) {
            return;
        }
        try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes)) {
            if (scanner.holdsData(path, capacityBytes)) {
                return;
            }
        }
        io.delete(path);
        io.syncDirectory();
        segments.remove(base);
    }

    void complete(final TreeMap<Long, Path> segments, final SuffixTruncationRecord record, final long knownEndPosition)
            throws IOException {
        final long cut = record.cutPosition();
        final long cutBase = cut - cut % capacityBytes;
        final long cutOffset = cut - cutBase;
        final long firstDiscardBase = cutOffset == 0 ? cutBase : cutBase + capacityBytes;
        final Path recordPath = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (segments.firstKey() > (cutOffset == 0 ? cutBase - capacityBytes : cutBase)) {
            throw new WalCorruptionException(
                    recordPath,
                    SuffixTruncationDescriptor.CUT_POSITION_OFFSET,
                    "a pending suffix truncation keeps the log up to position " + cut
                            + ", but the segment that holds it is gone (the oldest segment starts at "
                            + segments.firstKey() + ")");
        }
        for (long base = record.continuePosition() - capacityBytes; base >= firstDiscardBase; base -= capacityBytes) {
            writer.replaceWithDiscarded(base, segments.get(base), null);
        }
        if (cutOffset != 0) {
            final Path path = segments.get(cutBase);
            if (path == null) {
                throw new WalCorruptionException(
                        recordPath,
                        SuffixTruncationDescriptor.CUT_POSITION_OFFSET,
                        "a pending suffix truncation cuts segment " + SegmentNames.segmentName(cutBase)
                                + ", which is missing");
            }
            cutSegment(path, cutBase, cutOffset, knownEndPosition);
        }
        io.delete(recordPath);
        io.syncDirectory();
        tally.finding("completed a suffix truncation (truncateAfter): positions " + cut + " to "
                + record.continuePosition() + " discarded; the log continues at " + record.continuePosition());
    }

    private void cutSegment(final Path path, final long base, final long cutOffset, final long knownEndPosition)
            throws IOException {
        // Where the segment's frames end, if the caller knows (an open log it stopped): nothing after
        // that was ever written, so neither the scan nor the search for non-zero bytes need go further.
        final long knownEndOffset =
                knownEndPosition > base && knownEndPosition - base <= capacityBytes ? knownEndPosition - base : -1;
        try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes)) {
            final SegmentScan result =
                    scanner.scan(path, base, knownEndOffset > 0 ? knownEndOffset : capacityBytes, -1);
            if (result.prefixEndOffset() < cutOffset) {
                throw new WalCorruptionException(
                        path,
                        result.prefixEndOffset(),
                        "a pending suffix truncation keeps this segment's records up to offset " + cutOffset
                                + ", but they are damaged from offset " + result.prefixEndOffset() + ": "
                                + result.gapAt(result.prefixEndOffset()).problem());
            }
            final int handle = session.openFile(path, false);
            try {
                // The header first: no clean close, and no durable position past the cut.
                final ByteBuffer header = FileReads.readHeader(path);
                final long durable = SegmentHeaderDecoder.durablePosition(header);
                final long cutPosition = base + cutOffset;
                final long keptDurable = durable <= cutPosition
                        ? durable
                        : cutOffset > SegmentHeaderDescriptor.HEADER_LENGTH ? cutPosition : 0;
                writer.writeHeaderState(handle, header, keptDurable, false);
                final long nonZeroEnd =
                        knownEndOffset > 0 ? knownEndOffset : scanner.dataEnd(path, cutOffset, capacityBytes);
                if (nonZeroEnd > cutOffset) {
                    writer.zeroRange(handle, path, cutOffset, nonZeroEnd);
                }
                io.sync(handle);
                writer.writeDiscardFrame(handle, path, base, cutOffset);
                io.sync(handle);
            } finally {
                session.closeFile(handle);
            }
        }
    }
}
