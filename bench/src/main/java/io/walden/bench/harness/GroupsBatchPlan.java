package io.walden.bench.harness;

import java.util.Arrays;
import java.util.Random;

/**
 * One writer's next batch of the {@code groups} workload: which groups, from which index, how many
 * entries each, and the entries' bytes. {@link #next()} draws the next batch's groups among the
 * writer's own (distinct, at random) and moves their next indexes past it; a store reads the batch
 * through the accessors. Allocates nothing per batch.
 *
 * <p>The entries' bytes are {@code entriesPerBatch} random arrays made once per writer and reused by
 * every batch (as raft-engine's stress tool reuses its batch of entries): incompressible within an
 * entry.
 *
 * <p><b>Threading:</b> owned by one writer thread.
 */
final class GroupsBatchPlan {
    private final GroupsWorkload workload;
    private final Random random;
    private final long[] owned;
    // Next index of owned[i]; a group's entries start at index 1.
    private final long[] nextIndexes;
    // A permutation of 0..owned.length - 1, whose first groupsPerBatch places are the batch's groups.
    private final int[] order;
    private final long[] groupIds;
    private final long[] firstIndexes;
    private final int[] counts;
    private final int[] firstSlots;
    private final byte[][] entries;

    GroupsBatchPlan(final GroupsWorkload workload, final int writer) {
        this.workload = workload;
        this.random = new Random(workload.seed() + writer);
        this.owned = workload.ownedGroups(writer);
        this.nextIndexes = new long[owned.length];
        Arrays.fill(nextIndexes, 1);
        this.order = new int[owned.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        final int groups = workload.groupsPerBatch();
        this.groupIds = new long[groups];
        this.firstIndexes = new long[groups];
        this.counts = new int[groups];
        this.firstSlots = new int[groups];
        this.entries = new byte[workload.entriesPerBatch()][workload.entryBytes()];
        for (final byte[] entry : entries) {
            random.nextBytes(entry);
        }
    }

    /** Draws the next batch: its groups, their first indexes and entry counts. */
    void next() {
        int slot = 0;
        for (int k = 0; k < groupIds.length; k++) {
            // A partial Fisher-Yates shuffle: place k takes one of the places not drawn yet.
            final int pick = k + random.nextInt(order.length - k);
            final int chosen = order[pick];
            order[pick] = order[k];
            order[k] = chosen;
            final int count = workload.entriesOfGroup(k);
            groupIds[k] = owned[chosen];
            firstIndexes[k] = nextIndexes[chosen];
            counts[k] = count;
            firstSlots[k] = slot;
            nextIndexes[chosen] += count;
            slot += count;
        }
    }

    /** @return the batch's groups. */
    int groups() {
        return groupIds.length;
    }

    /** @param k a group of the batch. @return its id. */
    long groupId(final int k) {
        return groupIds[k];
    }

    /** @param k a group of the batch. @return the index of its first entry in the batch. */
    long firstIndex(final int k) {
        return firstIndexes[k];
    }

    /** @param k a group of the batch. @return its entries in the batch. */
    int entries(final int k) {
        return counts[k];
    }

    /**
     * The bytes of an entry.
     *
     * @param k a group of the batch.
     * @param i its i-th entry in the batch, from 0.
     * @return the entry's bytes (do not change them).
     */
    byte[] entry(final int k, final int i) {
        return entries[firstSlots[k] + i];
    }

    /**
     * Entries of the batch.
     *
     * @return {@code entriesPerBatch}.
     */
    int totalEntries() {
        return entries.length;
    }

    /**
     * The last index this writer gave each of its groups, 0 for a group it never wrote.
     *
     * @param lastIndexes by group id; this writer's groups are filled in.
     */
    void lastIndexesInto(final long[] lastIndexes) {
        for (int i = 0; i < owned.length; i++) {
            lastIndexes[(int) owned[i]] = nextIndexes[i] - 1;
        }
    }
}
