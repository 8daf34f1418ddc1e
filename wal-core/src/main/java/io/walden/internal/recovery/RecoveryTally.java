package io.walden.internal.recovery;

import io.walden.RecoveryReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.LongArrayList;

/**
 * What one recovery counted, found and did, gathered as it goes for its {@link RecoveryReport}: the
 * records and bytes it kept, the end it decided and why, the torn tail it cut, the bytes it dropped or
 * skipped, and one sentence per finding. The recovery's parts write to it; nothing reads it but the
 * report.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class RecoveryTally {
    private final List<String> findings = new ArrayList<>();
    private final LongArrayList skippedRanges = new LongArrayList();
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

    /**
     * Adds a finding.
     *
     * @param finding one sentence naming the file and offset.
     */
    void finding(final String finding) {
        findings.add(finding);
    }

    /**
     * Counts the records and bytes of a run of valid frames that the log keeps.
     *
     * @param run the run.
     */
    void countRun(final SegmentScan.Run run) {
        records += run.records();
        bytesScanned += run.endOffset() - run.startOffset();
    }

    /**
     * Counts every run of a segment that the log keeps whole.
     *
     * @param result the segment's scan.
     */
    void countKept(final SegmentScan result) {
        for (final SegmentScan.Run run : result.runs()) {
            countRun(run);
        }
    }

    /**
     * Takes back records counted in a range the log gives up.
     *
     * @param count the records.
     */
    void uncount(final long count) {
        records -= count;
    }

    /**
     * Counts bytes discarded under {@code TRUNCATE}.
     *
     * @param bytes the bytes.
     */
    void dropped(final long bytes) {
        droppedBytes += bytes;
    }

    /**
     * Counts bytes skipped at the end of the log under {@code SKIP}, which stay out of the ranges
     * readers skip (nothing follows them).
     *
     * @param bytes the bytes.
     */
    void skippedAtEnd(final long bytes) {
        skippedBytes += bytes;
    }

    /**
     * Records a range readers skip (SKIP), with its finding.
     *
     * @param base the segment's base position.
     * @param fromOffset the range's start in the segment.
     * @param toOffset its end.
     * @param reason why it is corrupt.
     */
    void skipped(final long base, final long fromOffset, final long toOffset, final String reason) {
        skippedRanges.addLong(base + fromOffset);
        skippedRanges.addLong(base + toOffset);
        skippedBytes += toOffset - fromOffset;
        findings.add("skipped corrupt bytes at positions [" + (base + fromOffset) + ", " + (base + toOffset) + "): "
                + reason);
    }

    /** @return the skipped ranges, as position pairs [from, to). */
    long[] skippedRanges() {
        return skippedRanges.toLongArray();
    }

    /**
     * The report.
     *
     * @param newLog whether the log was created.
     * @param logId the log's identity.
     * @param capacityBytes its segment capacity.
     * @param segmentCount its segments.
     * @param startPosition its first position.
     * @param endPosition where it continues.
     * @param evidence the evidence files kept.
     * @param durationNs how long the recovery took.
     * @return the report.
     */
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
