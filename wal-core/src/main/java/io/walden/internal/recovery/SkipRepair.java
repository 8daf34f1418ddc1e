package io.walden.internal.recovery;

import io.walden.internal.recovery.RecoveryTally.SkippedRange;
import io.walden.internal.segment.BlockingIo;
import io.walden.spi.StorageSession;
import java.io.IOException;

/**
 * Makes what {@link io.walden.RecoveryPolicy#SKIP} skipped inside segments stay skipped, under every
 * policy: each range is kept as evidence, zeroed, and covered by the frames {@link SkipCover} chooses
 * (a discard frame, then a padding frame), so that the log opens under {@code FAIL} afterwards with the
 * same records.
 *
 * <p>Runs before any other change of the open (a cut tail, a withdrawn clean close), while what proved
 * the range to be damage, not a torn write, still stands; and in an order that keeps it so after a
 * crash at any step: the evidence is durable before the range is zeroed; the zeros are synced before a
 * frame is written into the range; the padding frame, which proves the zeros below it synced, is synced
 * before the discard frame at the range's start, the last to become valid. Until then the range's start
 * is still damage below what the log proves, and the next open under {@code SKIP} skips and covers it
 * again.
 *
 * <p><b>Threading:</b> the opening thread, which owns the session until the I/O thread starts.
 */
final class SkipRepair {
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryWriter writer;
    private final RecoveryEvidence evidence;
    private final RecoveryTally tally;
    private final int capacityBytes;

    SkipRepair(
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

    /** The evidence bytes covering every skipped range may take at most: the ranges' sizes. */
    static long evidenceBytes(final RecoveryTally tally) {
        long bytes = 0;
        for (final SkippedRange range : tally.uncoveredRanges()) {
            bytes += range.toOffset() - range.fromOffset();
        }
        return bytes;
    }

    /** Covers every range the scan skipped that a cover fits, in log order. */
    void coverAll(final SegmentScanner scanner) throws IOException {
        for (final SkippedRange range : tally.uncoveredRanges()) {
            final SkipCover.Cover cover =
                    SkipCover.cover(range.fromOffset(), range.toOffset(), capacityBytes, range.batchOpen());
            if (cover == null) {
                tally.finding("skipped positions [" + position(range, range.fromOffset()) + ", "
                        + position(range, range.toOffset()) + ") of "
                        + range.path().getFileName() + " left as they"
                        + " are: the batch of the record before them goes on there, and no discard frame, the one"
                        + " frame that ends a batch, fits before the next 4096-byte block; every open under SKIP"
                        + " skips them again, and the default policy FAIL refuses the log");
                continue;
            }
            cover(scanner, range, cover);
        }
    }

    private void cover(final SegmentScanner scanner, final SkippedRange range, final SkipCover.Cover cover)
            throws IOException {
        final long from = range.fromOffset();
        final long to = range.toOffset();
        // Past the next run, the range ends where its non-zero bytes do: zeros need no keeping.
        final long dataEnd = to < capacityBytes ? to : scanner.dataEnd(range.path(), from, to);
        String kept = "";
        if (dataEnd > from) {
            evidence.keepRange(scanner, range.path(), range.base(), from, dataEnd);
            kept = " kept in " + evidence.last().getFileName() + ",";
        }
        final int handle = session.openFile(range.path(), false);
        try {
            if (dataEnd > from) {
                writer.zeroRange(handle, range.path(), from, dataEnd);
                io.sync(handle);
            }
            writer.writePaddingFrame(handle, range.path(), range.base(), cover.discardEndOffset(), to);
            io.sync(handle);
            writer.writeDiscardFrame(handle, range.path(), range.base(), from, cover.discardEndOffset());
            io.sync(handle);
        } finally {
            session.closeFile(handle);
        }
        tally.covered(range);
        tally.finding("skipped positions [" + position(range, from) + ", " + position(range, to) + ") of "
                + range.path().getFileName() + " made permanent:" + kept + " zeroed and covered by "
                + (cover.discardEndOffset() > from ? "a discard frame" : "")
                + (cover.discardEndOffset() > from && cover.discardEndOffset() < to ? " and " : "")
                + (cover.discardEndOffset() < to ? "a padding frame" : "")
                + "; the log now opens under every policy with the records this open keeps");
    }

    private static long position(final SkippedRange range, final long offset) {
        return range.base() + offset;
    }
}
