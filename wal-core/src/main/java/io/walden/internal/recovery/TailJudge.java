package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.WalCorruptionException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Judges the end of the tail segment, the first one that valid frames do not fill: {@link
 * RecoveryRule} says whether the end of its valid frames is a torn write or corruption, from ground
 * truth (the clean close its header records, the durable offsets its frames carry, whether a later
 * segment holds data); {@link TailDecision} says what the policy makes of that. Walks on past skipped
 * damage under {@link RecoveryPolicy#SKIP}.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class TailJudge {
    /** What recovery does at the end of the tail segment. */
    enum TailKind {
        /** A clean close: the log continues where it ended. */
        CLEAN,
        /** A crash: the rest of the segment is given up (a torn tail in it is cut). */
        CRASH,
        /** SKIP skips the corrupt rest of the segment, which nothing valid follows. */
        SKIP_END,
        /** The rest of the segment is discarded, or the bytes after a clean end. */
        DISCARD,
        /** TRUNCATE: the rest of the segment and every later segment are discarded. */
        DISCARD_LATER_TOO
    }

    /**
     * How the tail segment ends.
     *
     * @param endOffset where its kept frames end.
     * @param kind what to do there.
     */
    record Tail(long endOffset, TailKind kind) {}

    private final int capacityBytes;
    private final RecoveryPolicy policy;
    private final RecoveryTally tally;

    /**
     * Creates the judge of one recovery.
     *
     * @param capacityBytes the log's segment capacity.
     * @param policy the recovery policy.
     * @param tally where the judge counts records and adds findings.
     */
    TailJudge(final int capacityBytes, final RecoveryPolicy policy, final RecoveryTally tally) {
        this.capacityBytes = capacityBytes;
        this.policy = policy;
        this.tally = tally;
    }

    /**
     * Judges a segment that valid frames do not fill.
     *
     * @param scanner the scanner, to count records in a range.
     * @param path the segment file.
     * @param base its base position.
     * @param result its scan.
     * @param provenOffset the highest offset proven durable (by a frame, or the header's mark).
     * @param cleanEnd where a clean close ended the log in this segment, or -1.
     * @param laterSegment a later segment that holds data, or null.
     * @return how the segment ends, or null if SKIP skips the rest of it and later segments continue
     *     the log.
     * @throws IOException if the segment cannot be read.
     * @throws WalCorruptionException on corruption that the policy refuses.
     */
    Tail judge(
            final SegmentScanner scanner,
            final Path path,
            final long base,
            final SegmentScanner.Result result,
            final long provenOffset,
            final long cleanEnd,
            final Path laterSegment)
            throws IOException {
        final boolean laterData = laterSegment != null;
        final List<SegmentScanner.Run> runs = result.runs();
        int runIndex = runs.isEmpty() || runs.get(0).startOffset() != SegmentHeaderDescriptor.HEADER_LENGTH ? 0 : 1;
        long validEnd = result.prefixEndOffset();
        long openBatch = result.prefixOpenBatchOffset();
        if (runIndex == 1) {
            tally.countRun(runs.get(0));
        }
        tally.provenDurablePosition = base + Math.max(provenOffset, Math.max(cleanEnd, 0));
        while (true) {
            if (validEnd == capacityBytes) {
                // SKIP skipped the last damage of a segment that valid frames fill from there on.
                return null;
            }
            final boolean dataAfter =
                    runIndex < runs.size() || gapAt(result, validEnd).holdsData();
            final RecoveryRule.Verdict verdict = RecoveryRule.judge(
                    validEnd, capacityBytes, dataAfter, provenOffset, cleanEnd, laterData, openBatch);
            final long damageOffset =
                    verdict.corrupt() ? RecoveryRule.damageOffset(verdict, validEnd, cleanEnd) : validEnd;
            final TailDecision.Action action = TailDecision.decide(
                    verdict.corrupt(),
                    cleanEnd >= 0,
                    policy,
                    damageOffset == validEnd,
                    runIndex < runs.size(),
                    laterData);
            final String reason = verdict.corrupt()
                    ? reason(verdict, result, provenOffset, validEnd, cleanEnd, laterSegment, base)
                    : null;
            switch (action) {
                case CONTINUE, CUT_TORN_TAIL -> {
                    tally.closedCleanly = action == TailDecision.Action.CONTINUE;
                    final long endOffset = RecoveryRule.endOffset(validEnd, openBatch);
                    if (endOffset < validEnd) {
                        tally.uncount(countRecordsBetween(scanner, runs, endOffset, validEnd, path, base));
                    }
                    tally.recoveredEndPosition = base + endOffset;
                    return new Tail(
                            endOffset, action == TailDecision.Action.CONTINUE ? TailKind.CLEAN : TailKind.CRASH);
                }
                case REFUSE -> throw new WalCorruptionException(path, damageOffset, reason);
                case SKIP_TO_NEXT_RUN -> {
                    final SegmentScanner.Run next = runs.get(runIndex++);
                    tally.skipped(base, validEnd, next.startOffset(), reason);
                    tally.countRun(next);
                    validEnd = next.endOffset();
                    openBatch = next.openBatchOffset();
                }
                case SKIP_TO_LATER_SEGMENT -> {
                    tally.skipped(base, validEnd, capacityBytes, reason);
                    return null;
                }
                case SKIP_END -> {
                    tally.finding("skipped the corrupt end of " + path.getFileName() + " from offset " + validEnd + ": "
                            + reason);
                    tally.recoveredEndPosition = base + validEnd;
                    return new Tail(validEnd, TailKind.SKIP_END);
                }
                case DISCARD, DISCARD_LATER_TOO -> {
                    tally.finding("truncated at " + path.getFileName() + " offset " + damageOffset + ": " + reason);
                    if (damageOffset < validEnd) {
                        tally.uncount(countRecordsBetween(scanner, runs, damageOffset, validEnd, path, base));
                    }
                    tally.recoveredEndPosition = base + damageOffset;
                    return new Tail(
                            damageOffset,
                            action == TailDecision.Action.DISCARD_LATER_TOO
                                    ? TailKind.DISCARD_LATER_TOO
                                    : TailKind.DISCARD);
                }
                default -> throw new IllegalStateException("unknown action " + action);
            }
        }
    }

    /**
     * The gap of a scan that starts at an offset.
     *
     * @param result the scan.
     * @param offset where the gap starts.
     * @return the gap.
     * @throws IllegalStateException if no gap starts there.
     */
    static SegmentScanner.Gap gapAt(final SegmentScanner.Result result, final long offset) {
        for (final SegmentScanner.Gap gap : result.gaps()) {
            if (gap.startOffset() == offset) {
                return gap;
            }
        }
        throw new IllegalStateException("no gap at offset " + offset);
    }

    /**
     * Data frames of the runs in [from, to); a run that either bound cuts through is walked frame by
     * frame.
     *
     * @param scanner the scanner.
     * @param runs the segment's runs.
     * @param fromOffset the range's start.
     * @param toOffset its end.
     * @param path the segment file.
     * @param base its base position.
     * @return the count.
     * @throws IOException if the segment cannot be read.
     */
    static long countRecordsBetween(
            final SegmentScanner scanner,
            final List<SegmentScanner.Run> runs,
            final long fromOffset,
            final long toOffset,
            final Path path,
            final long base)
            throws IOException {
        long count = 0;
        for (final SegmentScanner.Run run : runs) {
            if (run.startOffset() >= fromOffset && run.endOffset() <= toOffset) {
                count += run.records();
            } else if (run.endOffset() > fromOffset && run.startOffset() < toOffset) {
                final long from = Math.max(fromOffset, run.startOffset());
                final long[] inRun = {0};
                scanner.forEachFrame(
                        path,
                        run.startOffset(),
                        Math.min(toOffset, run.endOffset()),
                        (offset, frameLength, type, durableOffset) -> {
                            if (offset >= from && type == FrameDescriptor.TYPE_DATA) {
                                inRun[0]++;
                            }
                            return true;
                        });
                count += inRun[0];
            }
        }
        return count;
    }

    private String reason(
            final RecoveryRule.Verdict verdict,
            final SegmentScanner.Result result,
            final long provenOffset,
            final long validEnd,
            final long cleanEnd,
            final Path laterSegment,
            final long base) {
        final String problem =
                validEnd < capacityBytes ? gapAt(result, validEnd).problem() : "valid frames";
        return switch (verdict) {
            case CORRUPT_BELOW_DURABLE ->
                problem + ", below offset " + provenOffset + ", which "
                        + (provenOffset > result.provenDurableOffset()
                                ? "the segment header recorded as synced when the log went idle"
                                : "the valid frame at offset " + result.provingFrameOffset()
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
