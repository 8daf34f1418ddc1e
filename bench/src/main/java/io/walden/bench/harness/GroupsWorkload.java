package io.walden.bench.harness;

import java.util.Locale;

/**
 * The workload of the {@code groups} command, modelled on TiKV raft-engine's stress tool ({@code
 * stress/src/main.rs}): {@code writers} threads each loop over batches of {@code entriesPerBatch}
 * entries of {@code entryBytes} spread over {@code groupsPerBatch} distinct groups, appended durably,
 * one batch at a time. Writer {@code w} owns the groups whose id {@code g} (1 to {@code groups}) has
 * {@code (g - 1) % writers == w}, so that no two writers write one group at once and each group's
 * indexes stay consecutive; it draws each batch's groups among its own, at random (its own seeded
 * {@link java.util.Random}).
 *
 * <p>Unlike raft-engine's {@code --write-entry-count} (entries per region), {@code entriesPerBatch}
 * counts the entries of the whole batch: the first {@code entriesPerBatch % groupsPerBatch} of its
 * groups get one more entry than the others.
 *
 * @param groups the groups, ids 1 to {@code groups}.
 * @param writers writer threads.
 * @param entryBytes payload bytes per entry.
 * @param entriesPerBatch entries per batch, over all its groups.
 * @param groupsPerBatch distinct groups per batch.
 * @param warmupMs warm-up before measuring.
 * @param measureMs measured time.
 * @param seed seed of writer {@code w}'s random numbers is {@code seed + w}.
 */
record GroupsWorkload(
        int groups,
        int writers,
        int entryBytes,
        int entriesPerBatch,
        int groupsPerBatch,
        long warmupMs,
        long measureMs,
        long seed) {

    /**
     * What is wrong with the workload, if anything.
     *
     * @return a message naming the options, or null if the workload can run.
     */
    String problem() {
        if (groups < 1 || writers < 1 || entryBytes < 1 || entriesPerBatch < 1 || groupsPerBatch < 1) {
            return "--groups, --writers, --entry-bytes, --entries-per-batch and --groups-per-batch must be at least 1";
        }
        if (measureMs < 1 || warmupMs < 0) {
            return "--seconds must be at least 1 and --warmup-ms at least 0";
        }
        if (groupsPerBatch > groups / writers) {
            return "--groups-per-batch (" + groupsPerBatch + ") must be at most --groups / --writers (" + groups + " / "
                    + writers + " = " + groups / writers + "): each writer draws a batch's groups among its own";
        }
        if (entriesPerBatch < groupsPerBatch) {
            return "--entries-per-batch (" + entriesPerBatch + ") must be at least --groups-per-batch ("
                    + groupsPerBatch + "): every group of a batch gets an entry";
        }
        return null;
    }

    /**
     * The ids of the groups a writer owns, ascending.
     *
     * @param writer 0 to {@code writers - 1}.
     * @return the ids.
     */
    long[] ownedGroups(final int writer) {
        final long[] ids = new long[(groups - writer + writers - 1) / writers];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1L + writer + (long) i * writers;
        }
        return ids;
    }

    /**
     * How many entries the k-th group of a batch gets.
     *
     * @param k 0 to {@code groupsPerBatch - 1}.
     * @return its entries.
     */
    int entriesOfGroup(final int k) {
        return entriesPerBatch / groupsPerBatch + (k < entriesPerBatch % groupsPerBatch ? 1 : 0);
    }

    /**
     * Payload bytes of one batch.
     *
     * @return bytes.
     */
    long batchPayloadBytes() {
        return (long) entriesPerBatch * entryBytes;
    }

    /**
     * One line that says what runs.
     *
     * @return the text.
     */
    String describe() {
        return String.format(
                Locale.ROOT,
                "%,d groups, %d writer(s) (writer w owns groups g with (g - 1) %% %d == w), batches of %d entries of"
                        + " %,d B over %d groups (%s per group), SYNCED; %,d ms warm-up + %,d ms measured; seed %d",
                groups,
                writers,
                writers,
                entriesPerBatch,
                entryBytes,
                groupsPerBatch,
                entriesPerBatch % groupsPerBatch == 0
                        ? Integer.toString(entriesPerBatch / groupsPerBatch)
                        : entriesOfGroup(groupsPerBatch - 1) + "-" + entriesOfGroup(0),
                warmupMs,
                measureMs,
                seed);
    }
}
