package io.walden.bench;

import io.walden.WalStats;

/**
 * Prints {@link WalStats} for people: the whole snapshot, or what changed between two snapshots.
 *
 * <p><b>Threading:</b> stateless.
 */
final class StatsText {
    private StatsText() {}

    /**
     * Prints a snapshot.
     *
     * @param stats the snapshot.
     */
    static void print(final WalStats stats) {
        System.out.printf(
                "stats: backend=%s appends=%,d appendBytes=%,d writes=%,d writeBytes=%,d syncs=%,d%n"
                        + "       recordsPerSync mean=%.1f max=%d, bytesPerSync mean=%.0f max=%d,"
                        + " syncLatency mean=%.1f us max=%.1f us%n"
                        + "       backPressureWaits=%,d segmentsRolled=%d bufferCapacityBytes=%,d%n",
                stats.backend(),
                stats.appends(),
                stats.appendBytes(),
                stats.writes(),
                stats.writeBytes(),
                stats.syncs(),
                stats.recordsPerSyncMean(),
                stats.recordsPerSyncMax(),
                stats.bytesPerSyncMean(),
                stats.bytesPerSyncMax(),
                stats.syncLatencyNsMean() / 1e3,
                stats.syncLatencyNsMax() / 1e3,
                stats.backPressureWaits(),
                stats.segmentsRolled(),
                stats.bufferCapacityBytes());
    }

    /**
     * Describes the syncs between two snapshots of one log: count, records per sync and latency.
     *
     * @param before the earlier snapshot.
     * @param after the later snapshot.
     * @return one line.
     */
    static String syncDelta(final WalStats before, final WalStats after) {
        final long syncs = after.syncs() - before.syncs();
        final double records =
                after.recordsPerSyncMean() * after.syncs() - before.recordsPerSyncMean() * before.syncs();
        final double latencyNs =
                after.syncLatencyNsMean() * after.syncs() - before.syncLatencyNsMean() * before.syncs();
        return String.format(
                "%,d appends, %,d syncs, recordsPerSync mean %.2f, syncLatency mean %.1f us, backPressureWaits %,d",
                after.appends() - before.appends(),
                syncs,
                syncs == 0 ? 0.0 : records / syncs,
                syncs == 0 ? 0.0 : latencyNs / syncs / 1e3,
                after.backPressureWaits() - before.backPressureWaits());
    }
}
