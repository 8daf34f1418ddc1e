package io.walden;

import java.nio.file.Path;
import java.util.List;

/**
 * What opening a log found and did.
 *
 * <p>Positions after a crash: a log that was not closed cleanly never continues where its records
 * ended. Recovery covers the positions from there up to the write limit that the segment's header
 * records (nothing was ever written at or past it) with a discard frame, and the log continues at the
 * limit, in the same segment; without a usable limit, the discard frame covers the rest of the
 * segment and the log continues at the first frame position of the next one. Either way no position
 * a reader may have seen before the crash (a record written but lost, or cut as a torn tail) is ever
 * given to another record. {@link #endPosition()} is that new position; {@link
 * #recoveredEndPosition()} is where the valid records ended, before any range this or an earlier
 * recovery gave up (a crash during or right after a recovery leaves its discard frame in place).
 *
 * @param newLog true if the directory held no log and a new one was created.
 * @param logId identity of the log, stored in every segment header.
 * @param segmentCapacityBytes capacity of the log's segments (the log's, which wins over the
 *     configured value for an existing log).
 * @param segments segment files validated.
 * @param records data records validated and kept.
 * @param bytesScanned bytes of frames read and validated.
 * @param startPosition first position the log holds.
 * @param endPosition where the next record goes.
 * @param closedCleanly whether the previous session closed the log cleanly: then no write can have
 *     been torn, and every invalid byte is corruption.
 * @param recoveredEndPosition where the valid records of the log ended (before any discarded range).
 * @param provenDurablePosition the highest position that a valid frame of the newest segment proves
 *     was synced (or the clean end); damage below it is always corruption.
 * @param tornTailFile file whose tail was cut, or null.
 * @param tornTailOffset offset in that file where the cut starts, or -1.
 * @param tornTailBytesCut bytes of the cut range that held data (up to its last non-zero byte).
 * @param tornTailRecordsCut valid data frames found in the cut range: records written past everything
 *     proven durable, which the crash left incomplete before them.
 * @param droppedBytes bytes discarded because of corruption under {@link RecoveryPolicy#TRUNCATE}.
 * @param skippedBytes bytes skipped because of corruption under {@link RecoveryPolicy#SKIP}.
 * @param evidence files in the log's {@code recovery-evidence} directory where recovery kept what it
 *     cut or discarded, byte for byte, before changing the log.
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
