package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code walden-bench.jar run}: runs the planned scenarios (see {@link Plan}), each in a fresh JVM,
 * the fio jobs and the memory blow-up reproduction, printing one progress line per scenario, then
 * writes {@code RESULTS.md}, {@code results.csv} and the charts to the output directory.
 *
 * <p><b>Threading:</b> runs on the main thread; scenarios run one at a time.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs Walden and the baselines (fio, FileChannel, AsynchronousFileChannel, RandomAccessFile, RocksDB,"
                    + " Chronicle Queue) on one disk, each scenario in a fresh JVM, and writes RESULTS.md,"
                    + " results.csv and charts. --quick takes about 3 minutes, a full run under 20."
        })
public final class RunCommand implements Callable<Integer> {
    /** Warm-up per scenario, quick and full run alike: long enough for a new log to reach steady state. */
    static final long WARMUP_MS = 1000;
    /** Measured time per scenario of the quick run. */
    static final long QUICK_MEASURE_MS = 1500;
    /** Measured time per scenario of the full run. */
    static final long FULL_MEASURE_MS = 2500;
    /** Every backend the full run measures by default. */
    static final List<String> FULL_BACKENDS = List.of("nio", "nio-direct", "uring", "uring-direct");
    /** Every baseline the run knows. */
    static final List<String> ALL_BASELINES = List.of(
            Systems.FIO,
            Systems.FILECHANNEL_FORCE,
            Systems.FILECHANNEL_FORCE_EVERY,
            Systems.ASYNCFILECHANNEL_FORCE,
            Systems.RAF_SYNC,
            Systems.ROCKSDB,
            Systems.CHRONICLE_QUEUE);

    @Option(
            names = "--quick",
            description = "short run: nio and uring, 128 B, 1/16/64 writers, 1 s warm-up + 1.5 s measured each")
    boolean quick;

    @Option(
            names = "--out",
            defaultValue = "target/walden-bench-results",
            description = "results directory (RESULTS.md, results.csv, *.png); default ${DEFAULT-VALUE}")
    Path out;

    @Option(
            names = "--dir",
            description = "directory on the disk under test for the logs (created and deleted per scenario);"
                    + " default target/ of the working directory")
    Path dir;

    @Option(
            names = "--backends",
            split = ",",
            description = "Walden backends: nio, nio-direct, nio-dsync, nio-direct-dsync, uring, uring-direct,"
                    + " uring-dsync, uring-direct-dsync; default nio,nio-direct,uring,uring-direct (quick: nio,uring)")
    List<String> backends;

    @Option(names = "--writers", split = ",", description = "writer threads; default 1,4,16,64 (quick: 1,16,64)")
    List<Integer> writers;

    @Option(names = "--sizes", split = ",", description = "record bytes; default 128,4096 (quick: 128)")
    List<Integer> sizes;

    @Option(
            names = "--durability",
            split = ",",
            description = "Walden levels: BUFFERED, WRITTEN, SYNCED; default all three")
    List<String> durability;

    @Option(
            names = "--group-windows-us",
            split = ",",
            description = "group windows for the SYNCED sweep at 16 writers; default 100,1000 (quick: none)")
    List<Long> groupWindowsUs;

    @Option(
            names = "--baselines",
            split = ",",
            description = "baselines to run; default all: fio, filechannel-force, filechannel-force-every,"
                    + " asyncfilechannel-force, randomaccessfile-sync, rocksdb, chronicle-queue; 'none' for none")
    List<String> baselines;

    @Option(names = "--warmup-ms", description = "warm-up per scenario; default 1000 (quick too)")
    Long warmupMs;

    @Option(names = "--measure-ms", description = "measured time per scenario; default 2500 (quick: 1500)")
    Long measureMs;

    @Option(names = "--no-blowup", description = "skip the AsynchronousFileChannel memory blow-up reproduction")
    boolean noBlowup;

    @Option(
            names = "--no-groups",
            description = "skip the groups scenario (100 groups, durable batches over 5 groups, on each store; full run"
                    + " only)")
    boolean noGroups;

    @Option(names = "--dry-run", description = "print the plan and its estimated time, run nothing")
    boolean dryRun;

    /** Creates the command; picocli fills the options. */
    public RunCommand() {}

    /**
     * The settings the options describe, with the defaults of a quick or a full run.
     *
     * @return the settings.
     * @throws IllegalArgumentException for an unknown level, baseline or a non-positive number.
     */
    Plan.Settings settings() {
        final List<String> levels = durability != null ? upper(durability) : List.of("BUFFERED", "WRITTEN", "SYNCED");
        for (final String level : levels) {
            if (!List.of("BUFFERED", "WRITTEN", "SYNCED").contains(level)) {
                throw new IllegalArgumentException("unknown durability '" + level + "': use BUFFERED, WRITTEN, SYNCED");
            }
        }
        List<String> chosenBaselines = baselines != null ? baselines : ALL_BASELINES;
        if (chosenBaselines.equals(List.of("none"))) {
            chosenBaselines = List.of();
        }
        for (final String baseline : chosenBaselines) {
            if (!ALL_BASELINES.contains(baseline)) {
                throw new IllegalArgumentException("unknown baseline '" + baseline + "'; known: " + ALL_BASELINES);
            }
        }
        final List<Integer> chosenWriters =
                writers != null ? writers : quick ? List.of(1, 16, 64) : List.of(1, 4, 16, 64);
        final List<Integer> chosenSizes = sizes != null ? sizes : quick ? List.of(128) : List.of(128, 4096);
        for (final int n : chosenWriters) {
            positive("--writers", n);
        }
        for (final int n : chosenSizes) {
            positive("--sizes", n);
        }
        // A new log needs about a second to reach steady state (64 writers most of it), so the quick run
        // warms up as long as the full one; the start-up row measures the first second on its own.
        final long warm = warmupMs != null ? warmupMs : WARMUP_MS;
        final long measure = measureMs != null ? measureMs : quick ? QUICK_MEASURE_MS : FULL_MEASURE_MS;
        positive("--measure-ms", measure);
        return new Plan.Settings(
                quick,
                backends != null ? backends : quick ? List.of("nio", "uring") : FULL_BACKENDS,
                levels,
                chosenWriters,
                chosenSizes,
                groupWindowsUs != null ? groupWindowsUs : quick ? List.of() : List.of(100L, 1000L),
                chosenBaselines,
                warm,
                measure,
                quick ? 128 : 1024,
                quick ? 2 : 5);
    }

    @Override
    public Integer call() throws IOException {
        final Plan plan = Plan.of(settings());
        final String command = "java -jar bench/target/walden-bench.jar run" + (quick ? " --quick" : "");
        System.out.printf(
                Locale.ROOT,
                "plan: %d scenarios, %d fio jobs, %d groups stores, %d memory blow-up runs; estimated %.1f min%n",
                plan.scenarios().size(),
                plan.fioJobs().size(),
                noGroups ? 0 : plan.groupsStores().size(),
                noBlowup ? 0 : plan.blowupRuns().size(),
                plan.estimateMs() / 60_000.0);
        if (dryRun) {
            printPlan(plan);
            return 0;
        }
        final Path base = dir != null ? dir : Path.of("target");
        Files.createDirectories(base);
        Files.createDirectories(out);
        System.setProperty(BenchFiles.BASE_DIR_PROP_NAME, base.toString());
        final Instant started = Instant.now();
        final long startNs = System.nanoTime();
        final List<ResultRow> rows = new ArrayList<>();
        final Map<String, Histogram> histograms = new LinkedHashMap<>();
        final List<BlowupResult> blowups = new ArrayList<>();
        final String fioVersion = plan.fioJobs().isEmpty() ? null : Fio.version();
        try (PrintWriter log =
                new PrintWriter(Files.newBufferedWriter(out.resolve("run.log"), StandardCharsets.UTF_8))) {
            runFio(plan, fioVersion, rows);
            int index = 0;
            for (final Scenario scenario : plan.scenarios()) {
                index++;
                final ResultRow row = runScenario(scenario, base, histograms, log);
                rows.add(row);
                System.out.println(progress(index, plan.scenarios().size(), row, startNs));
            }
            if (!noGroups) {
                rows.addAll(GroupsScenario.run(plan.groupsStores(), log));
            }
            if (!noBlowup) {
                for (final String[] run : plan.blowupRuns()) {
                    final BlowupResult result =
                            runBlowup(run[0], run[1], plan.settings().blowupSeconds(), base, log);
                    blowups.add(result);
                    System.out.printf(
                            Locale.ROOT,
                            "blow-up %s %s: %s after %,d ms, heap peak %.1f MiB of %.0f, %d threads, %,d submitted%n",
                            result.system(),
                            result.backend(),
                            result.outcome(),
                            result.elapsedMs(),
                            result.heapPeakMb(),
                            result.heapMaxMb(),
                            result.threadsPeak(),
                            result.submitted());
                }
            }
        }
        final RunResults results = new RunResults(
                plan,
                rows,
                histograms,
                blowups,
                MachineInfo.describe(base.toAbsolutePath(), fioVersion),
                fioVersion,
                command,
                started.truncatedTo(ChronoUnit.SECONDS).toString(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
        ResultsCsv.write(out.resolve(ResultsCsv.FILE_NAME), rows);
        final List<String> images = Charts.write(results, out);
        Files.writeString(out.resolve(Report.FILE_NAME), new Report(results, images).markdown());
        System.out.printf(
                Locale.ROOT,
                "done in %.1f min: %s, %s, %d charts in %s%n",
                results.elapsedMs() / 60_000.0,
                Report.FILE_NAME,
                ResultsCsv.FILE_NAME,
                images.size(),
                out.toAbsolutePath());
        return 0;
    }

    private void printPlan(final Plan plan) {
        for (final Scenario scenario : plan.scenarios()) {
            System.out.println("  " + scenario.id());
        }
        for (final Fio.Job job : plan.fioJobs()) {
            System.out.println("  " + job.describe());
        }
        for (final String store : noGroups ? List.<String>of() : plan.groupsStores()) {
            System.out.println("  groups " + store + ": " + GroupsScenario.WORKLOAD.describe());
        }
    }

    private static void runFio(final Plan plan, final String fioVersion, final List<ResultRow> rows) {
        if (plan.fioJobs().isEmpty()) {
            return;
        }
        if (fioVersion == null) {
            System.out.println("fio is not installed: its baselines are skipped. Install it with"
                    + " 'apt-get install -y fio' (Debian/Ubuntu) or 'dnf install -y fio' (Fedora/RHEL).");
            return;
        }
        for (final Fio.Job job : plan.fioJobs()) {
            final ResultRow row = Fio.run(job);
            rows.add(row);
            System.out.printf(
                    Locale.ROOT,
                    "fio %-8s %-12s bs=%-7d %12s IOPS %10s MB/s%s%n",
                    job.engine(),
                    job.variant(),
                    job.blockBytes(),
                    Report.count(row.recordsPerS()),
                    Report.decimal(row.mbPerS()),
                    row.measured() ? "" : "  " + row.note());
        }
    }

    private static ResultRow runScenario(
            final Scenario scenario, final Path base, final Map<String, Histogram> histograms, final PrintWriter log) {
        final List<String> arguments = new ArrayList<>();
        arguments.add("scenario");
        arguments.addAll(scenario.toArgs());
        arguments.add("--dir=" + base.toAbsolutePath());
        final ResultRow[] row = new ResultRow[1];
        log.println("== " + scenario.id());
        final ChildJvm.Outcome outcome = ChildJvm.run(
                List.of(ChildJvm.SCENARIO_HEAP),
                arguments,
                scenario.budgetMs() + TimeUnit.SECONDS.toMillis(120),
                line -> {
                    if (line.startsWith(ScenarioCommand.RESULT_PREFIX)) {
                        row[0] = ResultRow.fromCsv(line.substring(ScenarioCommand.RESULT_PREFIX.length()));
                    } else if (line.startsWith(ScenarioCommand.HISTOGRAM_PREFIX)) {
                        histograms.put(
                                scenario.id(),
                                Histograms.decode(line.substring(ScenarioCommand.HISTOGRAM_PREFIX.length())));
                    } else {
                        synchronized (log) {
                            log.println(line);
                        }
                    }
                });
        if (row[0] != null) {
            return row[0];
        }
        final String lastLine =
                outcome.lastLines().strip().lines().reduce((a, b) -> b).orElse("");
        return ResultRow.failed(
                scenario,
                (outcome.timedOut() ? "killed after its time limit" : "exit " + outcome.exitStatus()) + ": "
                        + lastLine);
    }

    private static BlowupResult runBlowup(
            final String system, final String backend, final long seconds, final Path base, final PrintWriter log) {
        final String[] lastStatus = new String[1];
        final String[] death = new String[1];
        final long[] finalCompleted = {-1};
        log.println("== blowup " + system + " " + backend);
        final long startNs = System.nanoTime();
        // A child that dies of an OutOfMemoryError cannot clean up: it works under a directory of ours.
        final Path childBase = BenchFiles.freshDirectory("walden-bench-blowup-");
        final ChildJvm.Outcome outcome = ChildJvm.run(
                List.of("-Xmx64m", "-XX:+ExitOnOutOfMemoryError"),
                List.of(
                        "blowup",
                        "--system=" + system,
                        "--backend=" + backend,
                        "--seconds=" + seconds,
                        "--dir=" + childBase),
                TimeUnit.SECONDS.toMillis(seconds + 60),
                line -> {
                    synchronized (log) {
                        log.println(line);
                    }
                    if (line.startsWith(BlowupCommand.STATUS_PREFIX + "final completed=")) {
                        final String rest = line.substring((BlowupCommand.STATUS_PREFIX + "final completed=").length());
                        finalCompleted[0] = Long.parseLong(rest.split(" ")[0]);
                    } else if (line.startsWith(BlowupCommand.STATUS_PREFIX)) {
                        lastStatus[0] = line.substring(BlowupCommand.STATUS_PREFIX.length());
                    } else if (line.contains("Terminating due to")) {
                        death[0] = line.substring(line.indexOf("Terminating due to"));
                    }
                });
        BenchFiles.deleteRecursively(childBase);
        final BlowupResult result =
                BlowupResult.parse(system, backend, lastStatus[0], finalCompleted[0], death[0], outcome.exitStatus());
        if (result.elapsedMs() >= 0) {
            return result;
        }
        // It died before its first status line: report the child JVM's whole lifetime instead.
        return new BlowupResult(
                result.system(),
                result.backend(),
                result.outcome() + " (before the first status; time is the JVM's whole life)",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs),
                result.submitted(),
                result.completed(),
                result.heapPeakMb(),
                result.directPeakMb(),
                result.threadsPeak(),
                result.heapMaxMb());
    }

    private static String progress(final int index, final int total, final ResultRow row, final long startNs) {
        final String what = String.format(
                        Locale.ROOT,
                        "%s %s%s %s w%d %dB",
                        row.system(),
                        row.backend(),
                        Scenario.NONE.equals(row.variant()) ? "" : " " + row.variant(),
                        row.durability(),
                        row.writers(),
                        row.recordBytes())
                + (row.groupWindowUs() > 0 ? " window " + row.groupWindowUs() + "us" : "");
        final String elapsed = String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - startNs) / 1e9);
        if (!row.measured()) {
            return String.format(Locale.ROOT, "[%d/%d %s] %s: FAILED %s", index, total, elapsed, what, row.note());
        }
        return String.format(
                Locale.ROOT,
                "[%d/%d %s] %s: %s rec/s, %s MB/s, p50/p99/p99.9/max %s/%s/%s/%s us, %s syncs/s, %s rec/sync,"
                        + " %s cores, heap %s MiB%s",
                index,
                total,
                elapsed,
                what,
                Report.count(row.recordsPerS()),
                Report.decimal(row.mbPerS()),
                Report.decimal(row.p50Us()),
                Report.decimal(row.p99Us()),
                Report.decimal(row.p999Us()),
                Report.decimal(row.maxUs()),
                Report.count(row.syncsPerS()),
                Report.decimal(row.recordsPerSync()),
                Report.decimal(row.cpuCores()),
                Report.decimal(row.peakHeapMb()),
                row.note().isEmpty() ? "" : " (" + row.note() + ")");
    }

    private static List<String> upper(final List<String> values) {
        return values.stream().map(value -> value.toUpperCase(Locale.ROOT)).toList();
    }

    private static void positive(final String option, final long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(option + " must be positive, not " + value);
        }
    }
}
