package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import io.walden.bench.harness.RaftStorageWorkload.Indexes;
import io.walden.bench.harness.RaftStorageWorkload.Result;
import io.walden.bench.harness.RaftStorageWorkload.Store;
import io.walden.bench.harness.RaftStorageWorkload.WorkloadFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * SOFAJRaft's {@code LogStorageBenchmark} workload ({@link RaftStorageWorkload}) on Walden's {@code
 * WaldenLogStorage} and on jraft's {@code RocksDBLogStorage}, paired: in every round each store runs
 * once, in a fresh directory and (by default) a fresh JVM, the order rotating from round to round
 * (two stores: A B, then B A, ...), so that both see the same machine within minutes. Per run it
 * prints writes/s and reads/s with their latency; per round the ratios Walden / other store; at the
 * end, per store the median and range of writes/s and reads/s, and the median and range of the
 * per-round ratios.
 *
 * <p>Output lines for scripts: {@code @@RAFTSTORAGE store,round,entries,entryBytes,batch,writesPerS,
 * writeP50us,writeP99us,writeMaxUs,readsPerS,readP50us,readP99us,readMaxUs,writeWallS,readWallS,
 * diskBytes} per run, {@code @@RAFTSTORAGE-FAIL store,round,message} per failed run, and {@code
 * @@RAFTSTORAGE-RATIO other,writes|reads,median,min,max,rounds} per compared store.
 *
 * <p><b>Threading:</b> the main thread; each run is single-threaded, like jraft's benchmark.
 */
@Command(
        name = "raft-storage-bench",
        mixinStandardHelpOptions = true,
        description = "jraft's LogStorageBenchmark workload (16 KiB entries, batches of 100, 1,048,576 entries, one"
                + " thread: write, then read) on Walden and on jraft's RocksDB log storage, paired in rounds.")
public final class RaftStorageBenchCommand implements Callable<Integer> {
    static final String RATIO_PREFIX = "@@RAFTSTORAGE-RATIO ";

    @Option(
            names = "--stores",
            defaultValue = "walden,rocksdb",
            split = ",",
            description =
                    "stores, walden first for the ratios: walden, rocksdb, rocksdb-segment (default walden,rocksdb)")
    List<String> stores;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds (default 3)")
    int rounds;

    @Option(names = "--entries", defaultValue = "1048576", description = "entries written and read (jraft: 1048576)")
    int entries;

    @Option(names = "--entry-bytes", defaultValue = "16384", description = "data bytes per entry (jraft: 16384)")
    int entryBytes;

    @Option(names = "--batch", defaultValue = "100", description = "entries per appendEntries (jraft: 100)")
    int batch;

    @Option(
            names = "--indexes",
            defaultValue = "jraft",
            description = "jraft (as jraft's benchmark: from 0, and the measured write from 0 again over the warm-up's"
                    + " entries; default) or contiguous (each batch at the store's last index + 1)")
    String indexes;

    @Option(names = "--in-process", description = "run every store in this JVM instead of a fresh JVM per run")
    boolean inProcess;

    @Option(names = "--heap", defaultValue = "-Xmx1g", description = "heap flag of each run's JVM (default -Xmx1g)")
    String heap;

    @Option(names = "--timeout-s", defaultValue = "3600", description = "time limit of one run's JVM (default 3600)")
    long timeoutS;

    @Option(names = "--dir", description = "directory for the runs' stores; default a fresh one under target/")
    Path dir;

    @Option(names = "--keep", description = "keep the stores' directories")
    boolean keep;

    // One run of one store, in a JVM the parent started: prints its result line and nothing else.
    @Option(names = "--child", hidden = true)
    boolean child;

    @Option(names = "--round", hidden = true, defaultValue = "1")
    int round;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public RaftStorageBenchCommand() {}

    @Override
    public Integer call() throws Exception {
        final List<Store> storeList = new ArrayList<>();
        final Indexes indexMode;
        try {
            for (final String id : stores) {
                final Store store = Store.of(id.trim());
                if (storeList.contains(store)) {
                    throw new IllegalArgumentException("store " + id + " given twice");
                }
                storeList.add(store);
            }
            indexMode = Indexes.valueOf(indexes.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException ex) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--stores: walden, rocksdb, rocksdb-segment; --indexes: contiguous or jraft (" + ex.getMessage()
                            + ")");
        }
        if (rounds < 1 || entries < 1 || entryBytes < 1 || batch < 1 || timeoutS < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--rounds, --entries, --entry-bytes, --batch and --timeout-s must be at least 1");
        }
        final RaftStorageWorkload workload = new RaftStorageWorkload(entries, entryBytes, batch, indexMode);
        if (child) {
            return runChild(workload, storeList);
        }
        final Path base = dir != null ? Files.createDirectories(dir) : BenchFiles.freshDirectory("raft-storage-");
        System.out.printf(
                Locale.ROOT,
                "jraft LogStorageBenchmark workload: warm-up %,d x %d B in batches of %d, then %,d x %,d B in batches"
                        + " of %d (%s), one thread; indexes %s; %d round(s) of %s, %s; in %s%n",
                RaftStorageWorkload.WARMUP_ENTRIES,
                RaftStorageWorkload.WARMUP_ENTRY_BYTES,
                RaftStorageWorkload.WARMUP_BATCH,
                entries,
                entryBytes,
                batch,
                mib((long) entries * entryBytes),
                indexMode.name().toLowerCase(Locale.ROOT),
                rounds,
                String.join(", ", stores),
                inProcess ? "all in this JVM" : "a fresh JVM per run (" + heap + ")",
                base);
        final Map<Store, List<Result>> results = new LinkedHashMap<>();
        final Map<Store, Result[]> byRound = new LinkedHashMap<>();
        for (final Store store : storeList) {
            results.put(store, new ArrayList<>());
            byRound.put(store, new Result[rounds + 1]);
        }
        int failures = 0;
        try {
            for (int r = 1; r <= rounds; r++) {
                for (int k = 0; k < storeList.size(); k++) {
                    final Store store = storeList.get((k + r - 1) % storeList.size());
                    final Path runDirectory = Files.createDirectories(base.resolve("round-" + r + "-" + store.id));
                    final Result result;
                    try {
                        result = inProcess
                                ? workload.run(store, r, runDirectory.resolve("log_storage"))
                                : runInChildJvm(store, r, runDirectory);
                    } catch (final RuntimeException ex) {
                        failures++;
                        final String message = describe(ex);
                        System.out.printf(Locale.ROOT, "round %d %-15s FAILED: %s%n", r, store.id, message);
                        System.out.println(RaftStorageWorkload.FAILURE_PREFIX + store.id + "," + r + "," + message);
                        continue;
                    } finally {
                        if (!keep) {
                            BenchFiles.deleteRecursively(runDirectory);
                        }
                    }
                    results.get(store).add(result);
                    byRound.get(store)[r] = result;
                    printRun(result);
                }
                printRoundRatios(storeList, byRound, r);
            }
            printSummary(storeList, results, byRound);
        } finally {
            if (dir == null && !keep) {
                BenchFiles.deleteRecursively(base);
            }
        }
        return failures == 0 ? 0 : 1;
    }

    /** Runs each given store once (the parent gives one) and prints its result line. */
    private int runChild(final RaftStorageWorkload workload, final List<Store> storeList) {
        if (dir == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--child needs --dir");
        }
        int status = 0;
        for (final Store store : storeList) {
            try {
                final Result result = workload.run(store, round, dir.resolve("log_storage"));
                System.out.println(RaftStorageWorkload.RESULT_PREFIX + result.toLine());
            } catch (final RuntimeException ex) {
                System.out.println(RaftStorageWorkload.FAILURE_PREFIX + store.id + "," + round + "," + describe(ex));
                status = 1;
            }
        }
        System.out.flush();
        return status;
    }

    /** Runs one store once in a fresh JVM and returns its result. */
    private Result runInChildJvm(final Store store, final int r, final Path runDirectory) {
        final List<String> arguments = List.of(
                "raft-storage-bench",
                "--child",
                "--stores=" + store.id,
                "--round=" + r,
                "--entries=" + entries,
                "--entry-bytes=" + entryBytes,
                "--batch=" + batch,
                "--indexes=" + indexes,
                "--dir=" + runDirectory);
        final Result[] result = new Result[1];
        final String[] failure = new String[1];
        final ChildJvm.Outcome outcome =
                ChildJvm.run(List.of(heap), arguments, TimeUnit.SECONDS.toMillis(timeoutS), line -> {
                    if (line.startsWith(RaftStorageWorkload.RESULT_PREFIX)) {
                        result[0] = Result.fromLine(line.substring(RaftStorageWorkload.RESULT_PREFIX.length()));
                    } else if (line.startsWith(RaftStorageWorkload.FAILURE_PREFIX)) {
                        final String rest = line.substring(RaftStorageWorkload.FAILURE_PREFIX.length());
                        final String[] fields = rest.split(",", 3);
                        failure[0] = fields.length == 3 ? fields[2] : rest;
                    }
                });
        if (result[0] != null) {
            return result[0];
        }
        if (failure[0] != null) {
            throw new WorkloadFailure(failure[0]);
        }
        throw new IllegalStateException(
                (outcome.timedOut() ? "timed out after " + timeoutS + " s" : "exit status " + outcome.exitStatus())
                        + "; last output: " + oneLine(outcome.lastLines()));
    }

    private static void printRun(final Result r) {
        System.out.printf(
                Locale.ROOT,
                "round %d %-15s writes %,9.0f entries/s (%6.1f MB/s; batch p50 %,8.1f us p99 %,8.1f us max %,9.1f us)"
                        + "  reads %,10.0f entries/s (p50 %,6.1f us p99 %,7.1f us max %,8.1f us)  files %s%n",
                r.round(),
                r.store(),
                r.writesPerS(),
                r.writeMbPerS(),
                r.writeP50Us(),
                r.writeP99Us(),
                r.writeMaxUs(),
                r.readsPerS(),
                r.readP50Us(),
                r.readP99Us(),
                r.readMaxUs(),
                r.diskBytes() < 0 ? "?" : mib(r.diskBytes()));
        System.out.println(RaftStorageWorkload.RESULT_PREFIX + r.toLine());
    }

    private static void printRoundRatios(final List<Store> storeList, final Map<Store, Result[]> byRound, final int r) {
        final Result first = byRound.get(storeList.get(0))[r];
        for (int k = 1; k < storeList.size(); k++) {
            final Result other = byRound.get(storeList.get(k))[r];
            if (first != null && other != null) {
                System.out.printf(
                        Locale.ROOT,
                        "round %d %s/%s: writes %.2fx, reads %.2fx%n",
                        r,
                        first.store(),
                        other.store(),
                        first.writesPerS() / other.writesPerS(),
                        first.readsPerS() / other.readsPerS());
            }
        }
    }

    private void printSummary(
            final List<Store> storeList, final Map<Store, List<Result>> results, final Map<Store, Result[]> byRound) {
        System.out.printf(Locale.ROOT, "%nsummary over %d round(s): median (min - max)%n", rounds);
        for (final Store store : storeList) {
            final List<Result> list = results.get(store);
            if (list.isEmpty()) {
                System.out.printf(Locale.ROOT, "  %-15s no completed run%n", store.id);
                continue;
            }
            final double[] writes = values(list, Result::writesPerS);
            final double[] reads = values(list, Result::readsPerS);
            final double[] writeP99 = values(list, Result::writeP99Us);
            final double[] readP99 = values(list, Result::readP99Us);
            System.out.printf(
                    Locale.ROOT,
                    "  %-15s writes/s %,9.0f (%,.0f - %,.0f)  reads/s %,10.0f (%,.0f - %,.0f)  batch p99 %,.0f us"
                            + "  read p99 %,.1f us  [%d run(s)]%n",
                    store.id,
                    median(writes),
                    min(writes),
                    max(writes),
                    median(reads),
                    min(reads),
                    max(reads),
                    median(writeP99),
                    median(readP99),
                    list.size());
        }
        final Store first = storeList.get(0);
        for (int k = 1; k < storeList.size(); k++) {
            final Store other = storeList.get(k);
            final List<Double> writeRatios = new ArrayList<>();
            final List<Double> readRatios = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                final Result a = byRound.get(first)[r];
                final Result b = byRound.get(other)[r];
                if (a != null && b != null) {
                    writeRatios.add(a.writesPerS() / b.writesPerS());
                    readRatios.add(a.readsPerS() / b.readsPerS());
                }
            }
            if (writeRatios.isEmpty()) {
                System.out.printf(Locale.ROOT, "  %s/%s: no round with both runs%n", first.id, other.id);
                continue;
            }
            final double[] w =
                    writeRatios.stream().mapToDouble(Double::doubleValue).toArray();
            final double[] rd =
                    readRatios.stream().mapToDouble(Double::doubleValue).toArray();
            System.out.printf(
                    Locale.ROOT,
                    "  %s/%s per-round ratio: writes %.2fx (%.2fx - %.2fx), reads %.2fx (%.2fx - %.2fx) over %d"
                            + " round(s)%n",
                    first.id,
                    other.id,
                    median(w),
                    min(w),
                    max(w),
                    median(rd),
                    min(rd),
                    max(rd),
                    w.length);
            System.out.printf(
                    Locale.ROOT,
                    "%s%s,writes,%.3f,%.3f,%.3f,%d%n",
                    RATIO_PREFIX,
                    other.id,
                    median(w),
                    min(w),
                    max(w),
                    w.length);
            System.out.printf(
                    Locale.ROOT,
                    "%s%s,reads,%.3f,%.3f,%.3f,%d%n",
                    RATIO_PREFIX,
                    other.id,
                    median(rd),
                    min(rd),
                    max(rd),
                    rd.length);
        }
    }

    private static double[] values(final List<Result> list, final ToDoubleFunction<Result> field) {
        return list.stream().mapToDouble(field).toArray();
    }

    /** The median; of an even count, the mean of the middle two. */
    static double median(final double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double min(final double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    private static double max(final double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }

    /** A failure in one line: jraft's message as it is, anything else with its class. */
    private static String describe(final RuntimeException ex) {
        return oneLine(ex instanceof WorkloadFailure ? ex.getMessage() : ex.toString());
    }

    private static String mib(final long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
    }

    private static String oneLine(final String text) {
        return text == null ? "" : text.strip().replace('\n', ' ').replace('\r', ' ');
    }
}
