package io.walden.bench.harness;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The stores of the {@code groups} command, in the order {@code --store all} runs them.
 *
 * <p><b>Threading:</b> constants.
 */
enum GroupStoreKind {
    /** Every group in one Walden {@code GroupLog}; a batch is one atomic append. */
    WALDEN_GROUPS("walden-groups"),
    /** The baseline: the same batches on one plain Walden log, no group layer (one group's cost). */
    WALDEN_ONE_LOG("walden-one-log"),
    /** A Walden log per group; a batch is one append per group, not atomic across them. */
    WALDEN_SEPARATE("walden-separate"),
    /** A RocksDB per group, laid out as SOFAJRaft's {@code RocksDBLogStorage}; one write per group. */
    ROCKSDB_PER_GROUP("rocksdb-per-group"),
    /** One RocksDB for every group, key = group id + index; a batch is one atomic write. */
    ROCKSDB_SHARED("rocksdb-shared");

    /** The value of {@code --store}. */
    final String id;

    GroupStoreKind(final String id) {
        this.id = id;
    }

    /**
     * The stores a {@code --store} value names.
     *
     * @param value a store's id or {@code all}.
     * @return the stores.
     * @throws IllegalArgumentException for an unknown value.
     */
    static List<GroupStoreKind> parse(final String value) {
        if ("all".equals(value)) {
            return List.of(values());
        }
        for (final GroupStoreKind kind : values()) {
            if (kind.id.equals(value)) {
                return List.of(kind);
            }
        }
        throw new IllegalArgumentException("unknown store '" + value
                + "': walden-groups, walden-one-log, walden-separate, rocksdb-per-group, rocksdb-shared or all");
    }

    /**
     * Opens the store in an empty or existing directory.
     *
     * @param directory the store's directory.
     * @param workload the groups.
     * @param settings the sizes of the stores with a log per group.
     * @return the open store.
     * @throws Exception if it cannot be opened; a store of many logs closes what it opened first.
     */
    GroupStore open(final Path directory, final GroupsWorkload workload, final GroupStoreSettings settings)
            throws Exception {
        return switch (this) {
            case WALDEN_GROUPS -> new WaldenGroupsStore(directory, settings.backend());
            case WALDEN_ONE_LOG -> new WaldenOneLogStore(directory, settings.backend());
            case WALDEN_SEPARATE -> new WaldenSeparateStore(directory, workload, settings);
            case ROCKSDB_PER_GROUP -> new RocksDbPerGroupStore(directory, workload, settings.rocksDbWriteBufferBytes());
            case ROCKSDB_SHARED -> new RocksDbSharedStore(directory);
        };
    }

    /**
     * What the store is and how a batch is appended to it.
     *
     * @param workload the groups.
     * @param settings the sizes.
     * @return one paragraph.
     */
    String describe(final GroupsWorkload workload, final GroupStoreSettings settings) {
        final int n = workload.groups();
        return switch (this) {
            case WALDEN_GROUPS ->
                "one GroupLog over one Walden log (Walden's defaults: segment 64 MiB, buffer 8 MiB; backend "
                        + settings.backend() + "); one GroupBatch per writer, append(batch, SYNCED): a batch is"
                        + " atomic over its groups";
            case WALDEN_ONE_LOG ->
                "the baseline: one plain Walden log (defaults, backend " + settings.backend() + "), each batch one"
                        + " WalBatch of its entries, SYNCED, with no group header, index or planning: the load as one"
                        + " group's";
            case WALDEN_SEPARATE ->
                String.format(
                        Locale.ROOT,
                        "%,d Walden logs, one per group, each its own directory and I/O thread (segment %s, buffer %s,"
                                + " backend %s); a batch is %d appends, one WalBatch per group, %s; NOT atomic across"
                                + " groups: a crash can keep some groups' entries of a batch and lose the others'",
                        n,
                        GroupStoreSettings.size(settings.separateSegmentBytes()),
                        GroupStoreSettings.size(settings.separateBufferBytes()),
                        settings.backend(),
                        workload.groupsPerBatch(),
                        settings.separateConcurrent()
                                ? "appended BUFFERED, then every log asked to sync and each awaited SYNCED (the logs"
                                        + " sync at once)"
                                : "each SYNCED, one after the other");
            case ROCKSDB_PER_GROUP ->
                String.format(
                        Locale.ROOT,
                        "%,d RocksDB instances, one per group, as SOFAJRaft's RocksDBLogStorage lays them out (jraft's"
                                + " options, column families 'Configuration' and default, entries in default, key ="
                                + " 8-byte big-endian index; WAL on, sync=true), %s; a batch is %d WriteBatches, one"
                                + " per group, written one after the other; NOT atomic across groups",
                        n,
                        JraftRocksDb.describeOptions(settings.rocksDbWriteBufferBytes()),
                        workload.groupsPerBatch());
            case ROCKSDB_SHARED ->
                "one RocksDB for every group (jraft's options, " + JraftRocksDb.describeOptions(0)
                        + "; key = 8-byte group id + 8-byte index, big-endian; WAL on, sync=true); one WriteBatch per"
                        + " batch: atomic over its groups";
        };
    }
}
