package io.walden.groups;

import io.walden.WalStats;

/**
 * A snapshot of a {@link GroupLog}'s counters.
 *
 * @param groups the groups the log holds.
 * @param indexes the indexes between every group's bounds, gaps included.
 * @param indexHeapBytes the heap the groups' index arrays and key-values take (not their objects).
 * @param purges the purges run since the log was opened.
 * @param segmentsFreed the segments purges freed.
 * @param relocatedRecords the records purges copied: live entries and the records that dropped them to
 *     the relocation log, key-values and bounds to the head of the log.
 * @param relocatedBytes the bytes of those records.
 * @param openScannedBytes the bytes of log the open read to rebuild the indexes.
 * @param openScanNs how long that read took.
 * @param relocationLogBytes the bytes the relocation log spans ({@link GroupLogConfig#relocationWalConfig()}),
 *     from its start to its tail; 0 if it was never needed.
 * @param wal the counters of the Walden log under it.
 */
public record GroupLogStats(
        long groups,
        long indexes,
        long indexHeapBytes,
        long purges,
        long segmentsFreed,
        long relocatedRecords,
        long relocatedBytes,
        long openScannedBytes,
        long openScanNs,
        long relocationLogBytes,
        WalStats wal) {}
