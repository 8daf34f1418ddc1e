package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.recovery.RecoveryRule.Verdict;
import io.walden.internal.recovery.SegmentScan.Run;
import java.nio.file.Path;

/**
 * Judges the end of the tail segment, the first one that valid frames do not fill, with {@link
 * RecoveryRule} and {@link TailDecision}, walking on past damage that {@link RecoveryPolicy#SKIP}
 * skips. Reads nothing: the scan counted the records wherever a cut may fall.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class TailJudge {
    record Tail(long endOffset, TailOutcome outcome) {}

    private final int capacityBytes;
    private final RecoveryPolicy policy;
    private final RecoveryTally tally;

    TailJudge(final int capacityBytes, final RecoveryPolicy policy, final RecoveryTally tally) {
        this.capacityBytes = capacityBytes;
        this.policy = policy;
        this.tally = tally;
    }

    /**
     * Judges a segment that valid frames do not fill: how it ends, or null if SKIP skips the rest of
     * it and later segments continue the log. Throws the corruption that the policy refuses.
     */
    Tail judge(
            final Path path,
            final long base,
            final SegmentScan scan,
            final long provenOffset,
            final long cleanEnd,
            final Path laterSegment) {
        final Run prefix = scan.prefix();
        int runIndex = prefix == null ? 0 : 1;
        long validEnd = prefix == null ? SegmentHeaderDescriptor.HEADER_LENGTH : prefix.endOffset();
        long openBatch = prefix == null ? -1 : prefix.openBatchOffset();
        if (prefix != null) {
            tally.countRun(prefix);
        }
        tally.provenDurablePosition = base + Math.max(provenOffset, Math.max(cleanEnd, 0));
        while (validEnd < capacityBytes) {
            final boolean nextRun = runIndex < scan.runs().size();
            final boolean dataAfter = nextRun || scan.gapAt(validEnd).holdsData();
            final Verdict verdict = RecoveryRule.judge(
                    validEnd, capacityBytes, dataAfter, provenOffset, cleanEnd, laterSegment != null, openBatch);
            final long damageOffset =
                    verdict.corrupt() ? RecoveryRule.damageOffset(verdict, validEnd, cleanEnd) : validEnd;
            final TailOutcome outcome = TailDecision.decide(
                    verdict, cleanEnd >= 0, policy, damageOffset == validEnd, nextRun, laterSegment != null);
            final String reason = verdict.corrupt()
                    ? reason(verdict, scan, provenOffset, validEnd, cleanEnd, laterSegment, base)
                    : null;
            switch (outcome) {
                case CLEAN_END, CUT_TORN_TAIL -> {
                    tally.closedCleanly = outcome == TailOutcome.CLEAN_END;
                    return keepTo(base, scan, RecoveryRule.endOffset(validEnd, openBatch), validEnd, outcome);
                }
                case REFUSE -> throw new WalCorruptionException(path, damageOffset, reason);
                case SKIP_TO_NEXT_RUN -> {
                    final Run next = scan.runs().get(runIndex++);
                    tally.skipped(path, base, validEnd, next.startOffset(), openBatch >= 0, reason);
                    tally.countRun(next);
                    validEnd = next.endOffset();
                    openBatch = next.openBatchOffset();
                }
                case SKIP_TO_LATER_SEGMENT -> {
                    tally.skipped(path, base, validEnd, capacityBytes, openBatch >= 0, reason);
                    return null;
                }
                case SKIP_END -> {
                    tally.finding("skipped the corrupt end of " + path.getFileName() + " from offset " + validEnd + ": "
                            + reason);
                    return keepTo(base, scan, validEnd, validEnd, outcome);
                }
                case DISCARD, DISCARD_LATER_TOO -> {
                    tally.finding("truncated at " + path.getFileName() + " offset " + damageOffset + ": " + reason);
                    return keepTo(base, scan, damageOffset, validEnd, outcome);
                }
                default -> throw new IllegalStateException("unknown outcome " + outcome);
            }
        }
        // SKIP skipped the last damage of a segment that valid frames fill from there on.
        return null;
    }

    /** Ends the log at {@code endOffset}, uncounting the records kept up to {@code validEnd} past it. */
    private Tail keepTo(
            final long base,
            final SegmentScan scan,
            final long endOffset,
            final long validEnd,
            final TailOutcome outcome) {
        if (endOffset < validEnd) {
            tally.uncount(scan.recordsBetween(endOffset, validEnd));
        }
        tally.recoveredEndPosition = base + endOffset;
        return new Tail(endOffset, outcome);
    }

    private String reason(
            final Verdict verdict,
            final SegmentScan scan,
            final long provenOffset,
            final long validEnd,
            final long cleanEnd,
            final Path laterSegment,
            final long base) {
        final String problem = validEnd < capacityBytes ? scan.gapAt(validEnd).problem() : "valid frames";
        return switch (verdict) {
            case CORRUPT_BELOW_DURABLE ->
                problem + ", below offset " + provenOffset + ", which "
                        + (provenOffset > scan.provenDurableOffset()
                                ? "the segment header recorded as synced when the log went idle"
                                : "the valid frame at offset " + scan.provingFrameOffset()
                                        + " proves was synced before it was written")
                        + ": damage to synced data, not a torn write";
            case CORRUPT_AFTER_CLEAN_CLOSE ->
                (validEnd < cleanEnd
                                ? problem
                                : validEnd > cleanEnd
                                        ? "frames after offset " + cleanEnd
                                        : "non-zero bytes after offset " + cleanEnd)
                        + ", but the segment header records that the log was closed cleanly at offset " + cleanEnd
                        + " (position " + (base + cleanEnd) + "): after a clean close no write can be torn";
            case CORRUPT_BEFORE_LATER_SEGMENT ->
                problem + " (the segment ends early), but the later segment "
                        + laterSegment.getFileName() + " holds data, and no byte is written to a segment before the one"
                        + " before it is complete and synced";
            default -> throw new IllegalStateException("not corruption: " + verdict);
        };
    }
}
