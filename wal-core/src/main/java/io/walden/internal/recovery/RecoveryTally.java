package io.walden.internal.recovery;

import io.walden.RecoveryReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.LongArrayList;

/**
 * What one recovery counted, found and did, for its {@link RecoveryReport}; the recovery's parts
 * write to it and only the report reads it.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class RecoveryTally {
    private final List<String> findings = new ArrayList<>();
    private final List<SkippedRange> skippedRanges = new ArrayList<>();
    private long records;
    private long bytesScanned;
    private long droppedBytes;
    private long skippedBytes;

    // What the newest segment told about the log's end.
    boolean closedCleanly;
    long recoveredEndPosition = -1;
    long provenDurablePosition = -1;
    Path tornTailFile;
    long tornTailOffset = -1;
    long tornTailBytesCut;
    long tornTailRecordsCut;

    void finding(final String finding) {
        findings.add(finding);
    }

    void countRun(final SegmentScan.Run run) {
        records += run.records();
        bytesScanned += run.endOffset() - run.startOffset();
    }

    void countKept(final SegmentScan result) {
        for (final SegmentScan.Run run : result.runs()) {
            countRun(run);
        }
    }

    void uncount(final long count) {
        records -= count;
    }

    void dropped(final long bytes) {
        droppedBytes += bytes;
    }

    /** Skipped at the end of the log: no range for readers to skip, since nothing follows. */
    void skippedAtEnd(final long bytes) {
        skippedBytes += bytes;
    }

    /**
     * A range that SKIP skipped inside a segment; {@code batchOpen}: the frame before it says its batch
     * goes on; {@code path} null for one a running log skipped. Readers step over it until recovery
     * covers it with frames ({@link #covered}).
     */
    record SkippedRange(Path path, long base, long fromOffset, long toOffset, boolean batchOpen) {}

    /** Records a range readers skip (SKIP), with its finding. */
    void skipped(
            final Path path,
            final long base,
            final long fromOffset,
            final long toOffset,
            final boolean batchOpen,
            final String reason) {
        skippedRanges.add(new SkippedRange(path, base, fromOffset, toOffset, batchOpen));
        skippedBytes += toOffset - fromOffset;
        findings.add("skipped corrupt bytes at positions [" + (base + fromOffset) + ", " + (base + toOffset) + "): "
                + reason);
    }

    /**
     * Records a range the open of a log that is still running skipped and left (no segment named: such
     * a range is reported and stepped over, never covered here).
     */
    void skippedWhenOpened(final long fromPosition, final long toPosition) {
        skipped(null, 0, fromPosition, toPosition, false, "skipped when the log was opened");
    }

    /** The ranges skipped and not covered yet, in log order. */
    List<SkippedRange> uncoveredRanges() {
        return List.copyOf(skippedRanges);
    }

    /** A skipped range is now covered by frames that every reader skips: readers need not be told of it. */
    void covered(final SkippedRange range) {
        skippedRanges.remove(range);
    }

    /** The skipped ranges that readers step over, as position pairs [from, to). */
    long[] skippedRanges() {
        final LongArrayList pairs = new LongArrayList();
        for (final SkippedRange range : skippedRanges) {
            pairs.addLong(range.base() + range.fromOffset());
            pairs.addLong(range.base() + range.toOffset());
        }
        return pairs.toLongArray();
    }

    RecoveryReport report(
            final boolean newLog,
            final long logId,
            final int capacityBytes,
            final int segmentCount,
            final long startPosition,
            final long endPosition,
            final List<Path> evidence,
            final long durationNs) {
        return new RecoveryReport(
                newLog,
                logId,
                capacityBytes,
                segmentCount,
                records,
                bytesScanned,
                startPosition,
                endPosition,
                closedCleanly,
                recoveredEndPosition,
                provenDurablePosition,
                tornTailFile,
                tornTailOffset,
                tornTailBytesCut,
                tornTailRecordsCut,
                droppedBytes,
                skippedBytes,
                List.copyOf(evidence),
                List.copyOf(findings),
                durationNs);
    }
}
