package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.bench.BenchLogs;
import java.nio.file.Path;
import java.util.Locale;
import org.agrona.CloseHelper;

/**
 * A Walden log per group, each in its own directory ({@code g<id>}) with its own I/O thread, with the
 * segment and buffer of {@link GroupStoreSettings}. A batch is one append per group of it, each of that
 * group's entries as one {@link WalBatch}: one after the other, each {@code SYNCED}, or (concurrent)
 * all appended {@code BUFFERED}, every log asked for a sync ({@code await(lsn, SYNCED, 0)}), then each
 * awaited {@code SYNCED}. Nothing makes a batch atomic across groups. A record is the entry's bytes
 * alone: a log's positions stand for the group's indexes.
 *
 * <p><b>Threading:</b> as {@link GroupStore}; each log is thread-safe, and the workload's writers own
 * disjoint groups, so each log has one appender.
 */
final class WaldenSeparateStore implements GroupStore {
    private final Wal[] logs;
    private final boolean concurrent;
    private final int groupsPerBatch;

    WaldenSeparateStore(final Path directory, final GroupsWorkload workload, final GroupStoreSettings settings) {
        this.concurrent = settings.separateConcurrent();
        this.groupsPerBatch = workload.groupsPerBatch();
        this.logs = new Wal[workload.groups()];
        int opened = 0;
        try {
            for (; opened < logs.length; opened++) {
                logs[opened] = Wal.open(WalConfig.builder(directory.resolve("g" + (opened + 1)))
                        .fromSystemProperties()
                        .backend(BenchLogs.backend(settings.backend()))
                        .segmentCapacityBytes(settings.separateSegmentBytes())
                        .bufferCapacityBytes(settings.separateBufferBytes())
                        .build());
            }
        } catch (final RuntimeException | Error ex) {
            CloseHelper.quietCloseAll(logs);
            throw new IllegalStateException(
                    "opened " + opened + " of " + logs.length + " Walden logs, then: " + ex, ex);
        }
    }

    @Override
    public Writer writer(final int writerIndex) {
        final WalBatch[] batches = new WalBatch[groupsPerBatch];
        for (int k = 0; k < batches.length; k++) {
            batches[k] = new WalBatch();
        }
        final long[] lastLsns = new long[groupsPerBatch];
        return plan -> {
            for (int k = 0, groups = plan.groups(); k < groups; k++) {
                final WalBatch batch = batches[k].clear();
                for (int i = 0, entries = plan.entries(k); i < entries; i++) {
                    batch.add(plan.entry(k, i));
                }
                final Wal log = logs[(int) plan.groupId(k) - 1];
                log.append(batch, concurrent ? Durability.BUFFERED : Durability.SYNCED);
                lastLsns[k] = batch.lsn(batch.size() - 1);
            }
            if (concurrent) {
                awaitAll(plan, lastLsns);
            }
        };
    }

    private void awaitAll(final GroupsBatchPlan plan, final long[] lastLsns) {
        final int groups = plan.groups();
        for (int k = 0; k < groups; k++) {
            // Asks the log for a sync and returns at once, so that every log of the batch syncs together.
            logs[(int) plan.groupId(k) - 1].await(lastLsns[k], Durability.SYNCED, 0);
        }
        for (int k = 0; k < groups; k++) {
            logs[(int) plan.groupId(k) - 1].await(lastLsns[k], Durability.SYNCED);
        }
    }

    @Override
    public String runDetail() {
        long syncs = 0;
        long appendBytes = 0;
        long writeBytes = 0;
        long rolled = 0;
        for (final Wal log : logs) {
            final WalStats stats = log.stats();
            syncs += stats.syncs();
            appendBytes += stats.appendBytes();
            writeBytes += stats.writeBytes();
            rolled += stats.segmentsRolled();
        }
        return describe(logs.length, syncs, appendBytes, writeBytes, rolled);
    }

    /**
     * Walden logs' I/O figures in words.
     *
     * @param logs how many logs.
     * @param syncs their data syncs.
     * @param appendBytes their record bytes.
     * @param writeBytes the bytes their writes carried.
     * @param rolled the segments they moved past.
     * @return the text.
     */
    static String describe(
            final int logs, final long syncs, final long appendBytes, final long writeBytes, final long rolled) {
        return String.format(
                Locale.ROOT,
                "Walden, %,d log(s) since open: %,d data syncs, %,d B of records, %,d B written (%.2f per record byte),"
                        + " %,d segment(s) rolled (a segment is zero-filled when it is prepared)",
                logs,
                syncs,
                appendBytes,
                writeBytes,
                appendBytes == 0 ? Double.NaN : writeBytes / (double) appendBytes,
                rolled);
    }

    @Override
    public void close() {
        CloseHelper.closeAll(logs);
    }
}
