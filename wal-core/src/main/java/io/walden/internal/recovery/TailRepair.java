package io.walden.internal.recovery;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentNames;
import io.walden.internal.recovery.TailJudge.Tail;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.PendingWrite;
import io.walden.internal.segment.WriteLimits;
import io.walden.internal.state.NoSpace;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Carries out what recovery decided about the end of the log, with evidence: cuts the tail segment
 * (the bytes given up kept in the evidence directory, zeroed crash-safely, covered by a discard
 * frame), discards whole segments under {@code TRUNCATE}, withdraws a clean-close record before the
 * log is written again, and keeps or deletes the segments after the end. Each method syncs every
 * change before the next one depends on it (the crash-safety argument of {@link LogRecovery}).
 *
 * <p><b>Threading:</b> the opening thread, which owns the session until the I/O thread starts.
 */
final class TailRepair {
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryWriter writer;
    private final RecoveryEvidence evidence;
    private final RecoveryTally tally;
    private final int capacityBytes;

    TailRepair(
            final StorageSession session,
            final BlockingIo io,
            final RecoveryWriter writer,
            final RecoveryEvidence evidence,
            final RecoveryTally tally,
            final int capacityBytes) {
        this.session = session;
        this.io = io;
        this.writer = writer;
        this.evidence = evidence;
        this.tally = tally;
        this.capacityBytes = capacityBytes;
    }

    /**
     * Gives up the rest of the tail segment from the tail's end: keeps what lies there as evidence,
     * zeroes it, makes the frames before it durable, and covers the rest of the segment with a
     * discard frame.
     *
     * <p>The zeroing survives a crash in its middle: the range is zeroed from its end down, in steps
     * that start at the durable offsets its frames carry, each synced before the next, so no frame
     * left intact ever proves a zeroed byte and the next recovery makes the same cut; a durability
     * mark past the cut is lowered to the cut, and synced, first (docs/design/how-it-works.md,
     * "Recovery is crash-safe by its order").
     *
     * <p>Returns the discard frame's blocks where writing them found no space and nothing had been cut
     * (copy on write: the running log writes them first, {@link RecoveredLog#tailRepair}); else null.
     */
    PendingWrite cutAndDiscard(
            final SegmentScanner scanner,
            final Path path,
            final long base,
            final int handle,
            final Tail tail,
            final SegmentScan result,
            final long nonZeroEnd,
            final long discardEndOffset)
            throws IOException {
        final long fromOffset = tail.endOffset();
        final TailOutcome outcome = tail.outcome();
        if (nonZeroEnd > fromOffset) {
            evidence.keepRange(scanner, path, base, fromOffset, nonZeroEnd);
            final long cutRecords = result.recordsFrom(fromOffset);
            final String kept = " kept in " + evidence.last().getFileName();
            if (outcome == TailOutcome.CUT_TORN_TAIL) {
                tally.tornTailFile = path;
                tally.tornTailOffset = fromOffset;
                tally.tornTailBytesCut = nonZeroEnd - fromOffset;
                tally.tornTailRecordsCut = cutRecords;
                tally.finding("cut the torn tail of " + path.getFileName() + " at offset " + fromOffset
                        + " (positions " + (base + fromOffset) + " to " + (base + nonZeroEnd) + "): "
                        + (nonZeroEnd - fromOffset) + " byte(s) past everything proven durable or of a batch the"
                        + " crash left incomplete, holding " + cutRecords + " valid record(s) never acknowledged;"
                        + kept);
            } else {
                if (outcome == TailOutcome.SKIP_END) {
                    tally.skippedAtEnd(nonZeroEnd - fromOffset);
                } else {
                    tally.dropped(nonZeroEnd - fromOffset);
                }
                tally.finding((outcome == TailOutcome.SKIP_END ? "skipped " : "discarded ") + path.getFileName()
                        + " from offset " + fromOffset + ": " + (nonZeroEnd - fromOffset) + " byte(s) holding "
                        + cutRecords + " valid record(s);" + kept);
            }
            final TreeSet<Long> steps = new TreeSet<>();
            for (final SegmentScan.Run run : result.runs()) {
                if (run.endOffset() > fromOffset && run.startOffset() < nonZeroEnd) {
                    // Every durable offset past the cut that a frame in the range carries.
                    scanner.forEachFrame(
                            path,
                            run.startOffset(),
                            Math.min(nonZeroEnd, run.endOffset()),
                            (offset, frameLength, type, durableOffset) -> {
                                if (offset >= fromOffset && durableOffset > fromOffset) {
                                    steps.add(durableOffset);
                                }
                                return true;
                            });
                }
            }
            lowerDurabilityMark(handle, path, base + fromOffset);
            writer.zeroDownInSteps(handle, path, fromOffset, nonZeroEnd, steps);
        }
        // The frames before the cut become durable before a frame that says so is written.
        io.sync(handle);
        PendingWrite deferred = null;
        try {
            writer.writeDiscardFrame(handle, path, base, fromOffset, discardEndOffset);
            io.sync(handle);
        } catch (final IOException ex) {
            if (!NoSpace.isNoSpace(ex) || nonZeroEnd > fromOffset) {
                throw ex;
            }
            deferred = writer.discardFrameBlocks(path, base, fromOffset, discardEndOffset);
        }
        if (fromOffset < discardEndOffset) {
            tally.finding("positions " + (base + fromOffset) + " to " + (base + discardEndOffset) + " of "
                    + path.getFileName() + " given up: the log continues "
                    + (discardEndOffset < capacityBytes
                            ? "at the write limit its header records, below which every write of the crashed session lay"
                            : "in the next segment")
                    + ", so that no position a reader may have seen before is given to another record"
                    + (deferred != null
                            ? " (its discard frame found no space: the log writes it before any record)"
                            : ""));
        }
        return deferred;
    }

    /**
     * Records the write limit a session starts with in the segment it starts in, and syncs it,
     * before the session writes a frame there ({@link WriteLimits#initialLimit}).
     */
    int recordWriteLimit(final int handle, final Path path, final long startOffset) throws IOException {
        final ByteBuffer header = FileReads.readHeader(path);
        final int limit = writeLimitFor(header, startOffset);
        if (limit != 0 || SegmentHeaderDecoder.writeLimitOffset(header) != 0) {
            writer.writeHeaderLimit(handle, header, limit);
            io.sync(handle);
        }
        return limit;
    }

    /** The write limit a session that starts at an offset records in a segment with this header. */
    int writeLimitFor(final ByteBuffer header, final long startOffset) {
        final int window = WriteLimits.initialLimit(startOffset, capacityBytes);
        // No room for a limit before the end: none, so that a limit an earlier session left in the
        // header, which this session may write past, is not taken for its own after a crash. A
        // recycled segment always has one: the capacity then (its stale bytes may all be written over).
        return window < capacityBytes ? window : SegmentHeaderDecoder.recycled(header) ? capacityBytes : 0;
    }

    private void lowerDurabilityMark(final int handle, final Path path, final long position) throws IOException {
        final ByteBuffer header = FileReads.readHeader(path);
        if (header != null && SegmentHeaderDecoder.durablePosition(header) > position) {
            writer.writeHeaderState(handle, header, position, false);
            io.sync(handle);
        }
    }

    /**
     * Discards every segment from a base on ({@code TRUNCATE}): each file that holds data is kept as
     * evidence, and every base up to the highest the log had gets a segment holding only a discard
     * frame.
     */
    long discardSegments(final SegmentScanner scanner, final TreeMap<Long, Path> segments, final long fromBase)
            throws IOException {
        final long continueAt = (segments.lastKey() / capacityBytes + 1) * capacityBytes;
        // Files whose names are not a multiple of the capacity (foreign files) are moved, not replaced.
        for (final Path path : segments.tailMap(fromBase, true).values()) {
            if (SegmentNames.parseSegmentName(path.getFileName().toString()) % capacityBytes != 0) {
                tally.dropped(Files.size(path));
                evidence.moveSegment(path);
            }
        }
        // Newest first: a crash part way leaves discarded segments after the kept ones, never a gap
        // between kept ones.
        for (long base = continueAt - capacityBytes; base >= fromBase; base -= capacityBytes) {
            final Path existing = segments.get(base);
            final boolean holdsData = existing != null && scanner.holdsData(existing, capacityBytes);
            if (holdsData) {
                tally.dropped(Files.size(existing));
            }
            // An unused prepared segment has nothing to keep: it is simply replaced.
            writer.replaceWithDiscarded(base, existing, holdsData ? evidence : null);
        }
        tally.finding("discarded positions " + fromBase + " to " + continueAt + ": the segments there were kept in "
                + evidence.directory() + " and replaced by segments that hold one discard frame");
        return continueAt;
    }

    /** Keeps the prepared, unused segment at a base as the next one; deletes every other later segment. */
    int keepNextPrepared(
            final TreeMap<Long, Path> segments, final List<Long> bases, final int fromIndex, final long nextBase)
            throws IOException {
        int nextHandle = -1;
        // Newest first, each delete synced on its own: a crash part way leaves an unbroken run of
        // segments (unsynced directory changes survive in any subset), never a gap.
        for (int j = bases.size() - 1; j > fromIndex; j--) {
            final long base = bases.get(j);
            final Path path = segments.get(base);
            if (base == nextBase) {
                nextHandle = session.openFile(path, false);
            } else {
                io.delete(path);
                io.syncDirectory();
            }
        }
        return nextHandle;
    }

    /**
     * Whether the tail segment's header records the clean close at the end position and the segment
     * before it records none: then the running log can withdraw it itself, with its first header write
     * ({@link RecoveredLog#headerDeferred}).
     */
    boolean onlyTailRecordsCleanClose(final TreeMap<Long, Path> segments, final long base, final long endPosition)
            throws IOException {
        final Path previous = segments.get(base - capacityBytes);
        return SegmentHeaderDecoder.cleanEndPosition(FileReads.readHeader(segments.get(base))) == endPosition
                && (previous == null || SegmentHeaderDecoder.cleanEndPosition(FileReads.readHeader(previous)) < 0);
    }

    /** Clears a clean-close record before new writes, so that a later crash never looks like one. */
    boolean clearCleanClose(final TreeMap<Long, Path> segments, final long base, final long endPosition)
            throws IOException {
        boolean clean = false;
        for (long candidate = base; candidate >= base - capacityBytes && candidate >= 0; candidate -= capacityBytes) {
            final Path path = segments.get(candidate);
            if (path == null) {
                continue;
            }
            final ByteBuffer header = FileReads.readHeader(path);
            final long cleanEnd = SegmentHeaderDecoder.cleanEndPosition(header);
            if (cleanEnd < 0) {
                continue;
            }
            clean |= cleanEnd == endPosition;
            final int handle = session.openFile(path, false);
            try {
                // The durable position stays true; only the clean close is withdrawn.
                writer.writeHeaderState(handle, header, SegmentHeaderDecoder.durablePosition(header), false);
                io.sync(handle);
            } finally {
                session.closeFile(handle);
            }
        }
        return clean;
    }
}
