package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.bench.BenchLogs;
import java.nio.file.Path;

/**
 * The baseline of the group layer: the same batches appended to one plain Walden log, each a {@link
 * WalBatch} of the batch's entries, {@code SYNCED}, with no group record header, index or planning: what
 * the load costs on one log of one group. The ratio of {@code walden-groups} to it is what many groups
 * cost.
 *
 * <p><b>Threading:</b> as {@link GroupStore}; the log is thread-safe.
 */
final class WaldenOneLogStore implements GroupStore {
    private final Wal wal;

    WaldenOneLogStore(final Path directory, final String backend) {
        this.wal = Wal.open(WalConfig.builder(directory)
                .fromSystemProperties()
                .backend(BenchLogs.backend(backend))
                .build());
    }

    @Override
    public Writer writer(final int writerIndex) {
        final WalBatch batch = new WalBatch();
        return plan -> {
            batch.clear();
            for (int k = 0, groups = plan.groups(); k < groups; k++) {
                for (int i = 0, entries = plan.entries(k); i < entries; i++) {
                    batch.add(plan.entry(k, i));
                }
            }
            wal.append(batch, Durability.SYNCED);
        };
    }

    @Override
    public String runDetail() {
        final WalStats stats = wal.stats();
        return WaldenSeparateStore.describe(
                1, stats.syncs(), stats.appendBytes(), stats.writeBytes(), stats.segmentsRolled());
    }

    @Override
    public void close() {
        wal.close();
    }
}
