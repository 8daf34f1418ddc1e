package io.walden.internal;

import io.walden.WalStats;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters behind {@link WalStats}. Most are written only by the I/O thread, per batch rather than
 * per record, and read by any thread; back-pressure waits are counted by producers on their slow
 * path.
 *
 * <p><b>Threading:</b> single writer per field as marked; readers take racy snapshots.
 */
public final class StatsCounters {
    // Written by the I/O thread only.
    volatile long appends;
    volatile long appendBytes;
    volatile long writes;
    volatile long writeBytes;
    volatile long syncs;
    volatile long syncRecordsTotal;
    volatile long syncRecordsMax;
    volatile long syncBytesTotal;
    volatile long syncBytesMax;
    volatile long syncLatencyNsTotal;
    volatile long syncLatencyNsMax;
    volatile long segmentsRolled;
    volatile long segmentsHurried;
    volatile long durabilityMarks;

    // Incremented by producers on the slow path.
    private final AtomicLong backPressureWaits = new AtomicLong();

    /** Counts an append that had to wait for space. */
    public void recordBackPressureWait() {
        backPressureWaits.incrementAndGet();
    }

    void recordSync(final long records, final long bytes, final long latencyNs) {
        syncs = syncs + 1;
        syncRecordsTotal = syncRecordsTotal + records;
        syncBytesTotal = syncBytesTotal + bytes;
        syncLatencyNsTotal = syncLatencyNsTotal + latencyNs;
        if (records > syncRecordsMax) {
            syncRecordsMax = records;
        }
        if (bytes > syncBytesMax) {
            syncBytesMax = bytes;
        }
        if (latencyNs > syncLatencyNsMax) {
            syncLatencyNsMax = latencyNs;
        }
    }

    /**
     * Takes a snapshot.
     *
     * @param backend backend name.
     * @param bufferCapacityBytes buffer size.
     * @param fileSystemType the type of the log's file system.
     * @param durabilityNote what the backend does differently to stay durable there, or null.
     * @return the snapshot.
     */
    public WalStats snapshot(
            final String backend,
            final int bufferCapacityBytes,
            final String fileSystemType,
            final String durabilityNote) {
        final long syncCount = syncs;
        final double divisor = Math.max(1, syncCount);
        return new WalStats(
                backend,
                appends,
                appendBytes,
                writes,
                writeBytes,
                syncCount,
                syncRecordsTotal / divisor,
                syncRecordsMax,
                syncBytesTotal / divisor,
                syncBytesMax,
                syncLatencyNsTotal / divisor,
                syncLatencyNsMax,
                backPressureWaits.get(),
                segmentsRolled,
                segmentsHurried,
                durabilityMarks,
                bufferCapacityBytes,
                fileSystemType,
                FileSystemCheck.survivesPowerLoss(fileSystemType),
                durabilityNote);
    }
}
