package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The {@code groups} scenario of the full {@code run} ({@link Plan#groupsStores()}): the {@link #WORKLOAD}
 * on each store in a fresh JVM ({@code walden-bench.jar groups --store <store> ...}, as every scenario),
 * each store's {@value GroupsResult#PREFIX} line turned into a row (system {@value GroupsResult#SYSTEM},
 * backend the store, records the entries, latency per batch).
 *
 * <p><b>Threading:</b> the calling thread; the stores run one at a time.
 */
final class GroupsScenario {
    /** The workload of the run's groups scenario: 100 groups, 4 writers, 10 entries of 1 KiB over 5 groups. */
    static final GroupsWorkload WORKLOAD = new GroupsWorkload(100, 4, 1024, 10, 5, 1000, 5000, 42);
    /** Allowance per store for opening, syncing the file system and reopening, beyond the JVM's start. */
    static final long OPEN_ALLOWANCE_MS = 4000;

    private GroupsScenario() {}

    /**
     * Expected wall time of one store.
     *
     * @return milliseconds.
     */
    static long budgetMs() {
        return WORKLOAD.warmupMs() + WORKLOAD.measureMs() + ChildJvm.STARTUP_ALLOWANCE_MS + OPEN_ALLOWANCE_MS;
    }

    /**
     * The {@code groups} command's arguments for one store.
     *
     * @param store the store's id.
     * @param directory where the store goes.
     * @return the arguments, the subcommand first.
     */
    static List<String> arguments(final String store, final Path directory) {
        return List.of(
                "groups",
                "--store=" + store,
                "--groups=" + WORKLOAD.groups(),
                "--writers=" + WORKLOAD.writers(),
                "--entry-bytes=" + WORKLOAD.entryBytes(),
                "--entries-per-batch=" + WORKLOAD.entriesPerBatch(),
                "--groups-per-batch=" + WORKLOAD.groupsPerBatch(),
                "--seconds=" + TimeUnit.MILLISECONDS.toSeconds(WORKLOAD.measureMs()),
                "--warmup-ms=" + WORKLOAD.warmupMs(),
                "--seed=" + WORKLOAD.seed(),
                "--dir=" + directory);
    }

    /**
     * Runs each store in a fresh JVM and prints a progress line per store.
     *
     * @param stores the stores' ids.
     * @param log receives the children's other output.
     * @return a row per store, failed ones included.
     */
    static List<ResultRow> run(final List<String> stores, final PrintWriter log) {
        final List<ResultRow> rows = new ArrayList<>();
        for (final String store : stores) {
            final Path directory = BenchFiles.freshDirectory("walden-bench-groups-");
            final GroupsResult[] result = new GroupsResult[1];
            log.println("== groups " + store);
            final ChildJvm.Outcome outcome = ChildJvm.run(
                    List.of(ChildJvm.SCENARIO_HEAP),
                    arguments(store, directory),
                    budgetMs() + TimeUnit.SECONDS.toMillis(120),
                    line -> {
                        if (line.startsWith(GroupsResult.PREFIX)) {
                            result[0] = GroupsResult.fromLine(line.substring(GroupsResult.PREFIX.length()));
                        }
                        synchronized (log) {
                            log.println(line);
                        }
                    });
            BenchFiles.deleteRecursively(directory);
            final GroupsResult r = result[0] != null
                    ? result[0]
                    : GroupsResult.failed(
                            store,
                            WORKLOAD,
                            (outcome.timedOut() ? "killed after its time limit" : "exit " + outcome.exitStatus()) + ": "
                                    + outcome.lastLines()
                                            .strip()
                                            .lines()
                                            .reduce((a, b) -> b)
                                            .orElse(""));
            rows.add(r.toRow());
            System.out.println(progress(r));
        }
        return rows;
    }

    private static String progress(final GroupsResult r) {
        final String what = "groups " + r.store() + " " + r.variant() + " w" + r.writers() + " " + r.entryBytes() + "B";
        if (!r.measured()) {
            return what + ": " + r.note();
        }
        return String.format(
                Locale.ROOT,
                "%s: %s entries/s, %s batches/s, batch p50/p99/p99.9 %s/%s/%s us, device %s B/B, heap %s B/group,"
                        + " %s threads, reopen %s ms",
                what,
                Report.count(r.entriesPerS()),
                Report.count(r.batchesPerS()),
                Report.decimal(r.p50Us()),
                Report.decimal(r.p99Us()),
                Report.decimal(r.p999Us()),
                Report.decimal(r.deviceBytesPerPayloadByte()),
                Report.count(r.heapBytesPerGroup()),
                Report.count(r.osThreads()),
                Report.decimal(r.reopenMs()));
    }
}
