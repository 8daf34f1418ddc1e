package io.walden;

/**
 * A snapshot of a log's counters since it was opened. Counters are read one by one while the log
 * runs, so a snapshot is consistent only approximately.
 *
 * @param backend name of the storage backend in use.
 * @param appends records framed by the I/O thread.
 * @param appendBytes payload bytes of those records.
 * @param writes write requests completed.
 * @param writeBytes bytes those writes carried, padding and block rewrites included.
 * @param syncs data syncs completed (segment preparation syncs excluded); zero with O_DSYNC, where
 *     every completed write is already durable.
 * @param recordsPerSyncMean records newly covered per sync, mean.
 * @param recordsPerSyncMax records newly covered per sync, max.
 * @param bytesPerSyncMean bytes newly covered per sync, mean.
 * @param bytesPerSyncMax bytes newly covered per sync, max.
 * @param syncLatencyNsMean time from submitting a sync to its completion, mean.
 * @param syncLatencyNsMax time from submitting a sync to its completion, max.
 * @param syncLatency the distribution of the time from submission to completion of each data sync,
 *     or, with O_DSYNC, each write; see {@link LatencyHistogram#percentileNs(double)}.
 * @param backPressureWaits appends that found the buffer full and had to wait.
 * @param segmentsRolled segments the log moved past.
 * @param segmentsHurried segments made ready before their zero-fill finished, for appenders about to
 *     need them (a bandwidth-bound load); syncs into the unfilled part may commit extent metadata.
 * @param segmentsRecycled segments the log rolled into that were made from a file retention freed
 *     ({@code WalConfig.recycledSegmentsMax}) instead of a new, zero-filled one.
 * @param durabilityMarks header rewrites made on going idle, at most one per pause, recording that the
 *     last records synced are durable (so that recovery can tell damage to them from a torn write).
 * @param appendsRunByCaller appends whose write (and sync, for {@code SYNCED}) the appending thread
 *     ran itself, because nothing else was waiting: no other thread was woken for them.
 * @param writesInFlightPeak the most writes in flight at once: 1 unless writes are durable (O_DSYNC)
 *     and groups went side by side ({@code WalConfig.Builder.durableWritesInFlightMax}).
 * @param writesBeside writes submitted while other writes were in flight: how often the pipelined
 *     group commit found depth worth its cost (0 with fdatasync, or where depth does not pay).
 * @param pipelinePaddingBytes bytes of padding that ended a group on a block boundary so that the next
 *     could be written beside it (direct I/O, several writes in flight): space used for no record.
 * @param bufferCapacityBytes size of the log buffer, the bound on memory for unwritten records.
 * @param startPosition the first position the log holds (retention moves it).
 * @param tailPosition where the next record goes: everything appended so far lies below it.
 * @param writtenPosition records below it are written to the file (visible to {@code WRITTEN}).
 * @param durablePosition records below it are durable (visible to {@code SYNCED}).
 * @param failed whether the log failed: it acknowledges nothing more and must be reopened.
 * @param failure what failed, or null.
 * @param fileSystemType the type of the file system holding the log, as the mount table names it
 *     ({@code ext4}, {@code xfs}, {@code tmpfs}, {@code fuse.sshfs}, ...), or {@code unknown}.
 * @param survivesPowerLoss false when that file system lives in memory (tmpfs, ramfs): then {@code
 *     SYNCED} records survive a process crash but no power loss or reboot.
 * @param durabilityNote what the storage backend does differently from its options to keep their
 *     promise on this file system (for example fdatasync instead of O_DSYNC), or null.
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
        long segmentsHurried,
        long segmentsRecycled,
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
        String durabilityNote) {

    /** @return bytes appended but not yet written: how far the disk is behind the appenders. */
    public long unwrittenBytes() {
        return Math.max(0, tailPosition - writtenPosition);
    }

    /** @return bytes written but not yet durable: what a crash of the machine now could lose. */
    public long unsyncedBytes() {
        return Math.max(0, writtenPosition - durablePosition);
    }
}
