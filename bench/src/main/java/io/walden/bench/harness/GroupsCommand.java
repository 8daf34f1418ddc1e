package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Many Raft groups' logs under one durable write load, modelled on TiKV raft-engine's stress tool: writer
 * threads append batches of entries spread over several groups, each batch durable before the writer
 * goes on ({@link GroupsWorkload}), to one or each of four stores in turn, in this JVM: every group in
 * one Walden group log, a Walden log per group, a RocksDB per group (SOFAJRaft's layout) and one shared
 * RocksDB ({@link GroupStoreKind}). Per store: entries and batches per second, the latency of a batch,
 * device bytes per payload byte, heap and resident memory per group with the store open and idle, threads
 * while running, and the time to open the store empty and to reopen it after the run ({@link GroupsRun}).
 * Then a table of the stores side by side, with each figure divided by {@code walden-groups}'.
 *
 * <p>Output for scripts: a line {@value GroupsResult#PREFIX} per store ({@link GroupsResult#toLine()}).
 *
 * <p><b>Threading:</b> the main thread; each store's writers are threads the driver starts.
 */
@Command(
        name = "groups",
        mixinStandardHelpOptions = true,
        description = "Many Raft groups, durable batches over several groups (after raft-engine's stress tool): one"
                + " Walden group log vs a Walden log per group vs a RocksDB per group (jraft's layout) vs one"
                + " shared RocksDB.")
public final class GroupsCommand implements Callable<Integer> {
    @Option(
            names = "--store",
            defaultValue = "all",
            description =
                    "walden-groups, walden-one-log, walden-separate, rocksdb-per-group, rocksdb-shared or all (default all,"
                            + " in that order)")
    String store;

    @Option(names = "--groups", defaultValue = "100", description = "groups (default 100)")
    int groups;

    @Option(names = "--writers", defaultValue = "4", description = "writer threads (default 4)")
    int writers;

    @Option(names = "--entry-bytes", defaultValue = "1024", description = "bytes per entry (default 1024)")
    int entryBytes;

    @Option(
            names = "--entries-per-batch",
            defaultValue = "10",
            description = "entries per batch, over all its groups (default 10)")
    int entriesPerBatch;

    @Option(names = "--groups-per-batch", defaultValue = "5", description = "groups per batch (default 5)")
    int groupsPerBatch;

    @Option(names = "--seconds", defaultValue = "10", description = "measured seconds per store (default 10)")
    int seconds;

    @Option(names = "--warmup-ms", defaultValue = "1000", description = "warm-up per store (default 1000)")
    long warmupMs;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the writers' random numbers (default 42)")
    long seed;

    @Option(
            names = "--backend",
            defaultValue = "nio",
            description = "Walden backend of both Walden stores (default nio)")
    String backend;

    @Option(
            names = "--separate-syncs",
            defaultValue = "sequential",
            description = "walden-separate: sequential (each group's append SYNCED in turn; default) or concurrent"
                    + " (append every group's entries, then wait for all: the logs sync at once)")
    String separateSyncs;

    @Option(
            names = "--separate-segment-kib",
            defaultValue = "0",
            description = "walden-separate: segment per log, KiB (default 512 MiB / groups, 1 to 64 MiB)")
    int separateSegmentKib;

    @Option(
            names = "--separate-buffer-kib",
            defaultValue = "0",
            description = "walden-separate: log buffer per log, KiB (default 64 MiB / groups, 64 KiB to 8 MiB)")
    int separateBufferKib;

    @Option(
            names = "--rocksdb-write-buffer-kib",
            defaultValue = "0",
            description = "rocksdb-per-group: write buffer per instance, KiB (default 512 MiB / groups, 1 to 128 MiB)")
    int rocksDbWriteBufferKib;

    @Option(names = "--dir", description = "directory for the stores; default a fresh one under target/")
    Path dir;

    @Option(names = "--keep", description = "keep the stores' directories")
    boolean keep;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public GroupsCommand() {}

    /**
     * The workload the options describe.
     *
     * @return the workload.
     * @throws CommandLine.ParameterException if the options do not make one.
     */
    GroupsWorkload workload() {
        final GroupsWorkload workload = new GroupsWorkload(
                groups,
                writers,
                entryBytes,
                entriesPerBatch,
                groupsPerBatch,
                warmupMs,
                TimeUnit.SECONDS.toMillis(seconds),
                seed);
        final String problem = workload.problem();
        if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
        return workload;
    }

    /**
     * The stores the options name.
     *
     * @return the stores, in the order they run.
     * @throws CommandLine.ParameterException for an unknown store.
     */
    List<GroupStoreKind> stores() {
        try {
            return GroupStoreKind.parse(store);
        } catch (final IllegalArgumentException ex) {
            throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage());
        }
    }

    /**
     * The sizes of the stores with a log per group.
     *
     * @return the settings.
     * @throws CommandLine.ParameterException for a bad --separate-syncs or backend.
     */
    GroupStoreSettings settings() {
        if (!separateSyncs.equals("sequential") && !separateSyncs.equals("concurrent")) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--separate-syncs must be sequential or concurrent, not " + separateSyncs);
        }
        if (separateSegmentKib < 0 || separateBufferKib < 0 || rocksDbWriteBufferKib < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "sizes must not be negative");
        }
        return GroupStoreSettings.of(
                groups,
                backend,
                separateSyncs.equals("concurrent"),
                separateSegmentKib,
                separateBufferKib,
                rocksDbWriteBufferKib);
    }

    @Override
    public Integer call() throws Exception {
        final GroupsWorkload workload = workload();
        final List<GroupStoreKind> kinds = stores();
        final GroupStoreSettings settings = settings();
        final Path base = dir != null ? Files.createDirectories(dir) : BenchFiles.freshDirectory("groups-");
        final BlockDevice device = device(base);
        System.out.println("groups: " + workload.describe());
        System.out.printf(
                Locale.ROOT,
                "in %s (device %s), JVM heap max %,d MiB, %d processors%n",
                base,
                device == null
                        ? "unknown: device bytes not counted"
                        : device.name() + ": device bytes count every writer to it, an upper bound on a shared machine",
                Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors());
        final List<GroupsResult> results = new ArrayList<>();
        try {
            for (final GroupStoreKind kind : kinds) {
                results.add(runStore(kind, workload, settings, base, device));
            }
        } finally {
            if (dir == null && !keep) {
                BenchFiles.deleteRecursively(base);
            }
        }
        GroupsTable.print(System.out, results);
        return results.stream().allMatch(GroupsResult::measured) ? 0 : 1;
    }

    private GroupsResult runStore(
            final GroupStoreKind kind,
            final GroupsWorkload workload,
            final GroupStoreSettings settings,
            final Path base,
            final BlockDevice device)
            throws Exception {
        System.out.println();
        System.out.println(kind.id + ": " + kind.describe(workload, settings));
        final Path directory = base.resolve(kind.id);
        if (Files.exists(directory)) {
            // Writers start every group at index 1: a store left by an earlier run would mix with this one.
            final GroupsResult result =
                    GroupsResult.failed(kind.id, workload, directory + " exists: remove it or give another --dir");
            print(result);
            return result;
        }
        GroupsResult result;
        try {
            result = new GroupsRun(kind, workload, settings, directory, device).run();
        } catch (final Exception | Error ex) {
            result = GroupsResult.failed(kind.id, workload, GroupsRun.oneLine(ex));
        } finally {
            if (!keep) {
                BenchFiles.deleteRecursively(directory);
            }
        }
        print(result);
        return result;
    }

    private static void print(final GroupsResult r) {
        if (!r.measured()) {
            System.out.println("  " + r.store() + " " + r.note());
        } else {
            System.out.printf(
                    Locale.ROOT,
                    "  %s: %s entries/s, %s batches/s (%s MB/s); batch p50 %s us, p99 %s us, p99.9 %s us, max %s us;"
                            + " device %s B per payload B; heap %s B/group, resident %s B/group; threads %s JVM,"
                            + " %s OS; open %s ms, reopen %s ms; %s cores%s%n",
                    r.store(),
                    Report.count(r.entriesPerS()),
                    Report.count(r.batchesPerS()),
                    Report.decimal(r.entriesPerS() * r.entryBytes() / 1e6),
                    Report.decimal(r.p50Us()),
                    Report.decimal(r.p99Us()),
                    Report.decimal(r.p999Us()),
                    Report.decimal(r.maxUs()),
                    Report.decimal(r.deviceBytesPerPayloadByte()),
                    Report.count(r.heapBytesPerGroup()),
                    Report.count(r.residentBytesPerGroup()),
                    Report.count(r.jvmThreads()),
                    Report.count(r.osThreads()),
                    Report.decimal(r.openMs()),
                    Report.decimal(r.reopenMs()),
                    Report.decimal(r.cpuCores()),
                    r.note().isEmpty() ? "" : "; " + r.note());
        }
        System.out.println(GroupsResult.PREFIX + r.toLine());
    }

    private static BlockDevice device(final Path base) {
        try {
            return BlockDevice.of(base);
        } catch (final IOException ex) {
            System.out.println("device bytes not counted: " + ex.getMessage());
            return null;
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
