package io.walden;

/**
 * A snapshot of a log's counters since it was opened, read one by one while it runs: approximately
 * consistent.
 *
 * @param backend name of the storage backend in use.
 * @param appends records framed by the I/O thread.
 * @param appendBytes payload bytes of those records.
 * @param writes write requests completed.
 * @param writeBytes bytes those writes carried, padding and block rewrites included.
 * @param syncs data syncs completed (segment preparation excluded); zero with O_DSYNC.
 * @param recordsPerSyncMean records newly covered per sync, mean (and {@code ...Max}, the most).
 * @param bytesPerSyncMean bytes newly covered per sync, mean (and {@code ...Max}, the most).
 * @param syncLatencyNsMean time from submitting a sync to its completion, mean (and {@code ...Max}).
 * @param syncLatency the distribution of that time for each data sync, or, with O_DSYNC, each write.
 * @param backPressureWaits appends that found the buffer full and had to wait.
 * @param segmentsRolled segments the log moved past.
 * @param segmentsRecycled segments made from a file retention freed, not a new one.
 * @param segmentsDeletedForSpace segments retention freed and deleted although recycling would have
 *     kept them, because the file system was short of space (less than a segment free, or the next
 *     segment waiting for space) or refused the rename for space.
 * @param writesWaitedForSpace writes to the active segment (its records or its header) that failed
 *     with ENOSPC or EDQUOT: each waited and was written again (back-pressure, not a failure).
 * @param durabilityMarks header rewrites on going idle that record the last records synced.
 * @param appendsRunByCaller appends whose I/O the appending thread ran itself, waking no other thread.
 * @param writesInFlightPeak the most writes in flight at once; above 1 only with O_DSYNC.
 * @param writesBeside writes submitted while other writes were in flight (pipelined group commit).
 * @param pipelinePaddingBytes padding that ended a group on a block for the next to go beside it.
 * @param bufferCapacityBytes size of the log buffer, the bound on memory for unwritten records.
 * @param startPosition the first position the log holds (retention moves it).
 * @param tailPosition where the next record goes: everything appended so far lies below it.
 * @param writtenPosition records below it are written to the file (visible to {@code WRITTEN}).
 * @param durablePosition records below it are durable (visible to {@code SYNCED}).
 * @param failed whether the log failed: it acknowledges nothing more and must be reopened.
 * @param failure what failed, or null.
 * @param fileSystemType the type of the file system holding the log, from the mount table, or {@code
 *     unknown}.
 * @param survivesPowerLoss false on tmpfs or ramfs, where {@code SYNCED} records survive no power loss.
 * @param durabilityNote what the backend does beyond its options to keep their promise here, or null.
 * @param recordsCompressed records stored encoded by {@link WalConfig#compression()} (zero without).
 * @param compressedInputBytes those records' bytes as appended.
 * @param compressedStoredBytes their bytes as stored.
 */
public record WalStats(
        String backend,
        long appends,
        long appendBytes,
        long writes,
        long writeBytes,
        long syncs,
        double recordsPerSyncMean,
        long recordsPerSyncMax,
        double bytesPerSyncMean,
        long bytesPerSyncMax,
        double syncLatencyNsMean,
        long syncLatencyNsMax,
        LatencyHistogram syncLatency,
        long backPressureWaits,
        long segmentsRolled,
        long segmentsRecycled,
        long segmentsDeletedForSpace,
        long writesWaitedForSpace,
        long durabilityMarks,
        long appendsRunByCaller,
        int writesInFlightPeak,
        long writesBeside,
        long pipelinePaddingBytes,
        int bufferCapacityBytes,
        long startPosition,
        long tailPosition,
        long writtenPosition,
        long durablePosition,
        boolean failed,
        String failure,
        String fileSystemType,
        boolean survivesPowerLoss,
        String durabilityNote,
        long recordsCompressed,
        long compressedInputBytes,
        long compressedStoredBytes) {

    /** @return bytes appended but not yet written: how far the disk is behind the appenders. */
    public long unwrittenBytes() {
        return Math.max(0, tailPosition - writtenPosition);
    }

    /** @return stored bytes per appended byte of the records stored encoded; 1 if none was. */
    public double compressionRatio() {
        return compressedInputBytes == 0 ? 1.0 : compressedStoredBytes / (double) compressedInputBytes;
    }

    /** @return bytes written but not yet durable: what a crash of the machine now could lose. */
    public long unsyncedBytes() {
        return Math.max(0, writtenPosition - durablePosition);
    }
}
