package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.recovery.TailJudge.Tail;
import io.walden.internal.segment.FileReads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

/**
 * Recovery's walk over the segments: scans each in order, counts what the complete ones keep, and has
 * {@link TailJudge} judge the end of the tail segment. It also follows where the records end before any
 * range an earlier recovery gave up ({@code recoveredEndPosition}).
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class LogScan {
    private final int capacityBytes;
    private final RecoveryPolicy policy;
    private final RecoveryTally tally;

    LogScan(final int capacityBytes, final RecoveryPolicy policy, final RecoveryTally tally) {
        this.capacityBytes = capacityBytes;
        this.policy = policy;
        this.tally = tally;
    }

    /** The tail segment's index in the bases (-1: none), its scan and how it ends. */
    record Decision(int tailIndex, SegmentScan scan, Tail tail) {}

    Decision scan(
            final SegmentScanner scanner,
            final TreeMap<Long, Path> segments,
            final SegmentInventory.Structure structure)
            throws IOException {
        final TailJudge judge = new TailJudge(capacityBytes, policy, tally);
        final List<Long> bases = structure.bases();
        final boolean structuralDamageLater = structure.discardFromBase() >= 0;
        // Where the positions that earlier recoveries or truncations gave up after the last record
        // begin, or -1: the records end there, whatever discard frames follow them.
        long discardedFrom = -1;
        for (int i = 0; i < bases.size(); i++) {
            final long base = bases.get(i);
            final Path path = segments.get(base);
            final long ownCleanEnd = SegmentHeaderDecoder.cleanEndPosition(FileReads.readHeader(path));
            final SegmentScan result =
                    scanner.scan(path, base, capacityBytes, ownCleanEnd >= 0 ? ownCleanEnd - base : -1);
            if (result.complete()) {
                final long openBatch =
                        result.runs().get(result.runs().size() - 1).openBatchOffset();
                if (openBatch >= 0) {
                    throw new WalCorruptionException(
                            path,
                            openBatch,
                            "the batch that starts at offset " + openBatch + " runs to the end of the segment, which"
                                    + " valid frames fill; a batch never continues into another segment");
                }
                tally.countKept(result);
                discardedFrom = discardedAfterRecords(discardedFrom, base, result, capacityBytes);
                continue;
            }
            final Path laterData = structuralDamageLater
                    ? segments.get(structure.discardFromBase())
                    : laterSegmentWithData(scanner, segments, bases, i);
            final long cleanEnd =
                    ownCleanEnd >= 0 ? ownCleanEnd - base : cleanEndAfterPrevious(result, segments, bases, i);
            final long headerDurable = SegmentHeaderDecoder.durablePosition(FileReads.readHeader(path));
            final long proven = Math.max(result.provenDurableOffset(), headerDurable > 0 ? headerDurable - base : 0);
            final Tail tail = judge.judge(path, base, result, proven, cleanEnd, laterData);
            if (tail == null) {
                // SKIP: the rest of this segment is skipped; a later segment holds the rest of the log.
                discardedFrom = discardedAfterRecords(discardedFrom, base, result, capacityBytes);
                continue;
            }
            discardedFrom = discardedAfterRecords(discardedFrom, base, result, tail.endOffset());
            if (discardedFrom >= 0 && discardedFrom < tally.recoveredEndPosition) {
                tally.recoveredEndPosition = discardedFrom;
            }
            return new Decision(i, result, tail);
        }
        final long lastEnd = bases.get(bases.size() - 1) + capacityBytes;
        tally.recoveredEndPosition = discardedFrom >= 0 ? discardedFrom : lastEnd;
        tally.provenDurablePosition = lastEnd;
        return new Decision(-1, null, null);
    }

    /**
     * Follows where the records end across the kept runs of a segment below an offset: a run with data
     * ends the discarded range before it, and a discard frame after the last record starts one (a range
     * an earlier recovery gave up and a crash left in place).
     */
    private static long discardedAfterRecords(
            final long discardedFrom, final long base, final SegmentScan result, final long belowOffset) {
        long from = discardedFrom;
        for (final SegmentScan.Run run : result.runs()) {
            if (run.startOffset() >= belowOffset) {
                break;
            }
            if (run.records() > 0) {
                from = -1;
            }
            if (run.discardOffset() >= 0 && run.discardOffset() < belowOffset && from < 0) {
                from = base + run.discardOffset();
            }
        }
        return from;
    }

    /**
     * Where a segment without a clean end of its own ends cleanly all the same: at its first frame
     * offset when the session before closed at the end of the previous segment, which the log had not
     * rolled over yet (this one is then an unused prepared segment); else -1.
     */
    private long cleanEndAfterPrevious(
            final SegmentScan result, final TreeMap<Long, Path> segments, final List<Long> bases, final int index)
            throws IOException {
        final long base = bases.get(index);
        if (index > 0 && !result.holdsData()) {
            final long previousBase = bases.get(index - 1);
            final long previous =
                    SegmentHeaderDecoder.cleanEndPosition(FileReads.readHeader(segments.get(previousBase)));
            if (previous == base) {
                return SegmentHeaderDescriptor.HEADER_LENGTH;
            }
        }
        return -1;
    }

    private Path laterSegmentWithData(
            final SegmentScanner scanner, final TreeMap<Long, Path> segments, final List<Long> bases, final int index)
            throws IOException {
        for (int j = index + 1; j < bases.size(); j++) {
            final Path path = segments.get(bases.get(j));
            if (scanner.holdsData(path, capacityBytes)) {
                return path;
            }
        }
        return null;
    }
}
