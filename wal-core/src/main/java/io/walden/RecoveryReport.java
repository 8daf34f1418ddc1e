package io.walden;

import java.nio.file.Path;
import java.util.List;

/**
 * What opening a log found and did.
 *
 * <p>After a crash the log never continues where its records ended: recovery covers the positions from
 * there up to the segment header's write limit (or the segment's end) with a discard frame, and {@link
 * #endPosition()} is past it, so no position a reader may have seen is given to another record. {@link
 * #recoveredEndPosition()} is where the valid records ended, before any range this or an earlier
 * recovery gave up.
 *
 * @param newLog true if the directory held no log and a new one was created.
 * @param logId identity of the log, stored in every segment header.
 * @param segmentCapacityBytes capacity of the log's segments, which wins over the configured one.
 * @param segments segment files validated.
 * @param records data records validated and kept.
 * @param bytesScanned bytes of frames read and validated.
 * @param startPosition first position the log holds.
 * @param endPosition where the next record goes.
 * @param closedCleanly whether the last session closed cleanly: every invalid byte is then corruption.
 * @param recoveredEndPosition where the valid records of the log ended (before any discarded range).
 * @param provenDurablePosition the highest position a valid frame of the newest segment proves synced
 *     (or the clean end); damage below it is corruption.
 * @param tornTailFile file whose tail was cut, or null.
 * @param tornTailOffset offset in that file where the cut starts, or -1.
 * @param tornTailBytesCut bytes of the cut range that held data (up to its last non-zero byte).
 * @param tornTailRecordsCut valid data frames in the cut range, past everything proven durable.
 * @param droppedBytes bytes discarded because of corruption under {@link RecoveryPolicy#TRUNCATE}.
 * @param skippedBytes bytes skipped because of corruption under {@link RecoveryPolicy#SKIP}.
 * @param evidence the files in {@code recovery-evidence} that keep what recovery cut or discarded.
 * @param findings what was found, one sentence per finding naming the file and offset.
 * @param durationNs time the recovery took.
 */
public record RecoveryReport(
        boolean newLog,
        long logId,
        int segmentCapacityBytes,
        int segments,
        long records,
        long bytesScanned,
        long startPosition,
        long endPosition,
        boolean closedCleanly,
        long recoveredEndPosition,
        long provenDurablePosition,
        Path tornTailFile,
        long tornTailOffset,
        long tornTailBytesCut,
        long tornTailRecordsCut,
        long droppedBytes,
        long skippedBytes,
        List<Path> evidence,
        List<String> findings,
        long durationNs) {

    /** @return a one-paragraph summary for logs and command lines. */
    public String summary() {
        return String.format(
                "%s log %016x: %d segment(s), %d record(s), %d bytes scanned in %.1f ms (%.0f MB/s); positions [%d, %d)"
                        + "; %s; records end at %d, proven durable to %d; torn tail cut: %d byte(s), %d record(s)%s"
                        + "; dropped %d, skipped %d byte(s)%s%s",
                newLog ? "created" : "recovered",
                logId,
                segments,
                records,
                bytesScanned,
                durationNs / 1e6,
                durationNs == 0 ? 0.0 : bytesScanned * 1e3 / durationNs,
                startPosition,
                endPosition,
                closedCleanly ? "closed cleanly" : newLog ? "new" : "not closed cleanly",
                recoveredEndPosition,
                provenDurablePosition,
                tornTailBytesCut,
                tornTailRecordsCut,
                tornTailFile == null ? "" : " in " + tornTailFile.getFileName() + " at offset " + tornTailOffset,
                droppedBytes,
                skippedBytes,
                evidence.isEmpty() ? "" : "; evidence kept in " + evidence,
                findings.isEmpty() ? "" : "; findings: " + String.join(" | ", findings));
    }
}
