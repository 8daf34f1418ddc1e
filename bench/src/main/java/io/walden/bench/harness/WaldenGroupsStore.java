package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.bench.BenchLogs;
import io.walden.groups.GroupBatch;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupLogStats;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Every group in one Walden {@link GroupLog} with the group layer's and Walden's defaults (system
 * properties {@code walden.*} first, for A/B runs of one setting); each writer fills its own {@link
 * GroupBatch} and appends it {@code SYNCED}: one Walden batch, atomic over its groups.
 *
 * <p><b>Threading:</b> as {@link GroupStore}; the group log is thread-safe.
 */
final class WaldenGroupsStore implements GroupStore {
    private final GroupLog log;

    WaldenGroupsStore(final Path directory, final String backend) {
        final WalConfig walConfig = WalConfig.builder(directory)
                .fromSystemProperties()
                .backend(BenchLogs.backend(backend))
                .build();
        this.log = GroupLog.open(GroupLogConfig.builder(walConfig).build());
    }

    @Override
    public Writer writer(final int writerIndex) {
        final GroupBatch batch = new GroupBatch();
        return plan -> {
            batch.clear();
            for (int k = 0, groups = plan.groups(); k < groups; k++) {
                final long groupId = plan.groupId(k);
                final long first = plan.firstIndex(k);
                for (int i = 0, entries = plan.entries(k); i < entries; i++) {
                    batch.add(groupId, first + i, plan.entry(k, i));
                }
            }
            log.append(batch, Durability.SYNCED);
        };
    }

    @Override
    public String runDetail() {
        final GroupLogStats stats = log.stats();
        final WalStats wal = stats.wal();
        return WaldenSeparateStore.describe(1, wal.syncs(), wal.appendBytes(), wal.writeBytes(), wal.segmentsRolled())
                + String.format(
                        Locale.ROOT,
                        "; group index heap %,d B for %,d indexes (%,.0f B per group)",
                        stats.indexHeapBytes(),
                        stats.indexes(),
                        stats.indexHeapBytes() / (double) Math.max(1, stats.groups()));
    }

    @Override
    public String openDetail() {
        final GroupLogStats stats = log.stats();
        return String.format(
                Locale.ROOT,
                "GroupLogStats: openScannedBytes %,d, openScanNs %,d (%.1f ms); %,d groups, %,d indexes, index heap"
                        + " %,d B",
                stats.openScannedBytes(),
                stats.openScanNs(),
                stats.openScanNs() / 1e6,
                stats.groups(),
                stats.indexes(),
                stats.indexHeapBytes());
    }

    @Override
    public long openScannedBytes() {
        return log.stats().openScannedBytes();
    }

    @Override
    public long openScanNs() {
        return log.stats().openScanNs();
    }

    @Override
    public long lastIndex(final long groupId) {
        return log.lastIndex(groupId);
    }

    @Override
    public void close() {
        log.close();
    }
}
