package io.walden;

import java.nio.file.Path;
import java.util.List;

/**
 * What opening a log found and did.
 *
 * @param newLog true if the directory held no log and a new one was created.
 * @param logId identity of the log, stored in every segment header.
 * @param segmentCapacityBytes capacity of the log's segments (the log's, which wins over the
 *     configured value for an existing log).
 * @param segments segment files validated.
 * @param records data records validated.
 * @param bytesScanned bytes of frames read and validated.
 * @param startPosition first position the log holds.
 * @param endPosition where the next record goes.
 * @param tornTailFile file whose tail was cut, or null.
 * @param tornTailOffset offset in that file where the cut starts, or -1.
 * @param tornTailBytesCut non-zero bytes zeroed after the cut.
 * @param droppedBytes bytes discarded because of corruption under {@link RecoveryPolicy#TRUNCATE}.
 * @param skippedBytes bytes skipped because of corruption under {@link RecoveryPolicy#SKIP}.
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
        Path tornTailFile,
        long tornTailOffset,
        long tornTailBytesCut,
        long droppedBytes,
        long skippedBytes,
        List<String> findings,
        long durationNs) {

    /** @return a one-paragraph summary for logs and command lines. */
    public String summary() {
        return String.format(
                "%s log %016x: %d segment(s), %d record(s), %d bytes scanned in %.1f ms (%.0f MB/s); positions [%d, %d)"
                        + "; torn tail cut: %d byte(s)%s; dropped %d, skipped %d byte(s)%s",
                newLog ? "created" : "recovered",
                logId,
                segments,
                records,
                bytesScanned,
                durationNs / 1e6,
                durationNs == 0 ? 0.0 : bytesScanned * 1e3 / durationNs,
                startPosition,
                endPosition,
                tornTailBytesCut,
                tornTailFile == null ? "" : " in " + tornTailFile.getFileName() + " at offset " + tornTailOffset,
                droppedBytes,
                skippedBytes,
                findings.isEmpty() ? "" : "; findings: " + String.join(" | ", findings));
    }
}
