package io.walden.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Writes {@code RESULTS.md}: the machine, the brief's bar as same-run ratios with PASS or MISS,
 * Walden/baseline ratios per scenario, the two reproductions, the charts and every row.
 *
 * <p><b>Threading:</b> not thread-safe; one report per instance.
 */
public final class Report {
    /** File name of the report in the results directory. */
    public static final String FILE_NAME = "RESULTS.md";

    private final RunResults results;
    private final List<String> images;
    private final StringBuilder md = new StringBuilder();

    /**
     * Creates a report.
     *
     * @param results the run.
     * @param images chart file names relative to the report, in display order.
     */
    public Report(final RunResults results, final List<String> images) {
        this.results = results;
        this.images = images;
    }

    /**
     * Renders the report.
     *
     * @return Markdown text.
     */
    public String markdown() {
        final Plan.Settings settings = results.plan().settings();
        line("# Walden benchmark results");
        line("");
        line("`" + results.command() + "`, started " + results.startedAt() + ", took "
                + String.format(Locale.ROOT, "%.1f min", results.elapsedMs() / 60_000.0) + ".");
        line("");
        line("Each scenario ran in a fresh JVM (`" + ChildJvm.SCENARIO_HEAP + " -Dwalden.checks=false`, plus the"
                + " `--add-opens` flags Chronicle Queue needs) with " + settings.warmupMs() + " ms of warm-up and "
                + settings.measureMs() + " ms measured (the start-up row: " + Plan.START_UP_WARMUP_MS + " ms and "
                + Plan.START_UP_MEASURE_MS + " ms), one scenario at a time, in the order of the table at the end"
                + " (for each size and writer count: Walden, then the baselines). Latency is append to"
                + " acknowledgement, per record, HdrHistogram (2 significant digits). Column meanings:"
                + " [bench/README.md](README.md#results-columns). Shared machines are noisy (±40 % between runs):"
                + " compare ratios from one run, not absolute figures across runs.");
        line("");
        machine();
        bar();
        startUp();
        ratios();
        batching();
        blowup();
        groups();
        charts();
        groupWindow();
        fio();
        all();
        return md.toString();
    }

    private void machine() {
        line("## Machine");
        line("");
        line("| | |");
        line("| --- | --- |");
        for (final Map.Entry<String, String> entry : results.machine().entrySet()) {
            line("| " + entry.getKey() + " | " + cell(entry.getValue()) + " |");
        }
        line("");
    }

    private void bar() {
        line("## The bar (design brief section 7), judged from this run");
        line("");
        line("Walden's figures are the FileChannel backend (`nio`, buffered, the default) unless the item says"
                + " otherwise.");
        line("");
        line("| bar | Walden | reference | ratio | needs | verdict |");
        line("| --- | --- | --- | --- | --- | --- |");
        for (final BarItem item : Bar.judge(results)) {
            line("| " + cell(item.bar()) + " | " + cell(item.measured()) + " | " + cell(item.reference()) + " | "
                    + (Double.isNaN(item.ratio()) ? "–" : ratio(item.ratio())) + " | "
                    + (Double.isNaN(item.needed()) ? "–" : ratio(item.needed())) + " | **" + item.verdict() + "** |");
        }
        line("");
    }

    private void startUp() {
        final Scenario startUp = Plan.startUp();
        line("## A new log's first second");
        line("");
        line("Walden `" + startUp.backend()
                + "`, 1 writer, `SYNCED`, 128 B, each row on a fresh log in a fresh JVM, one"
                + " right after the other: the start-up row measures " + startUp.measureMs() + " ms after "
                + startUp.warmupMs() + " ms of warm-up (segment preparation, JIT and first syncs included), the"
                + " steady-state row is the scenario of the tables above (" + Bar.steadyDurations(results) + ").");
        line("");
        final Optional<ResultRow> first = results.find(
                startUp.system(),
                startUp.backend(),
                startUp.variant(),
                startUp.durability(),
                startUp.writers(),
                startUp.recordBytes());
        final Optional<ResultRow> steady =
                results.walden(startUp.backend(), startUp.durability(), startUp.writers(), startUp.recordBytes());
        line("| row | records/s | p50 µs | p99 µs | p99.9 µs | max µs | syncs/s | measured |");
        line("| --- | --- | --- | --- | --- | --- | --- | --- |");
        startUpRow("start-up (new log, " + startUp.warmupMs() + " ms warm-up)", first);
        startUpRow("steady state", steady);
        final BarItem item = Bar.startUp(results);
        line("");
        line("Start-up / steady state: **" + ratio(item.ratio()) + "** (needs " + ratio(item.needed()) + "): **"
                + item.verdict() + "**.");
        line("");
    }

    private void startUpRow(final String label, final Optional<ResultRow> row) {
        line("| " + label + " | "
                + row.map(r -> count(r.recordsPerS()) + " | " + decimal(r.p50Us()) + " | " + decimal(r.p99Us())
                                + " | " + decimal(r.p999Us()) + " | " + decimal(r.maxUs()) + " | "
                                + count(r.syncsPerS()) + " | " + decimal(r.measuredS()) + " s")
                        .orElse("– | – | – | – | – | – | not measured")
                + " |");
    }

    private void ratios() {
        line("## Walden / baseline, per scenario");
        line("");
        line("Walden `nio` records/s divided by the baseline's, at the same level, record size and writer count"
                + " (above 1.00x: Walden is faster).");
        line("");
        ratioTable(
                "SYNCED",
                List.of(
                        new String[] {Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "FileChannel force/record"},
                        new String[] {
                            Systems.ASYNCFILECHANNEL_FORCE, Systems.AFC_DEFAULT_POOL, Scenario.NONE, "AFC default pool"
                        },
                        new String[] {
                            Systems.ASYNCFILECHANNEL_FORCE, Systems.AFC_FIXED_POOL, Scenario.NONE, "AFC fixed pool"
                        },
                        new String[] {Systems.RAF_SYNC, "buffered", Scenario.NONE, "RAF fsync/record"},
                        new String[] {Systems.ROCKSDB, "wal", Scenario.NONE, "RocksDB sync=true"},
                        new String[] {Systems.FIO, "psync", "append", "fio psync append"},
                        new String[] {Systems.FIO, "io_uring", "append", "fio io_uring append"}));
        ratioTable(
                "WRITTEN",
                List.of(
                        new String[] {Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-10", "force every 10"},
                        new String[] {Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-100", "force every 100"},
                        new String[] {Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-1000", "force every 1000"},
                        new String[] {Systems.ROCKSDB, "wal", Scenario.NONE, "RocksDB sync=false"},
                        new String[] {Systems.CHRONICLE_QUEUE, "mmap", Scenario.NONE, "Chronicle Queue"}));
    }

    private void ratioTable(final String durability, final List<String[]> baselines) {
        final StringBuilder header = new StringBuilder("| " + durability + ": size, writers | Walden nio |");
        final StringBuilder rule = new StringBuilder("| --- | --- |");
        for (final String[] baseline : baselines) {
            header.append(' ').append(baseline[3]).append(" |");
            rule.append(" --- |");
        }
        line(header.toString());
        line(rule.toString());
        for (final int size : sizes()) {
            for (final int writers : writerCounts()) {
                final Optional<ResultRow> walden = results.walden(Plan.BAR_BACKEND, durability, writers, size);
                if (walden.isEmpty()) {
                    continue;
                }
                final StringBuilder row = new StringBuilder("| " + size + " B, " + writers + " | "
                        + count(walden.get().recordsPerS()) + "/s |");
                for (final String[] baseline : baselines) {
                    final Optional<ResultRow> other =
                            results.find(baseline[0], baseline[1], baseline[2], durability, writers, size);
                    row.append(' ')
                            .append(other.map(o -> ratio(walden.get().recordsPerS() / o.recordsPerS()))
                                    .orElse("–"))
                            .append(" |");
                }
                line(row.toString());
            }
        }
        line("");
    }

    private void batching() {
        line("## Batching by count: what a crash can lose");
        line("");
        line("A commit log that forces every N records acknowledges a record as soon as it is written: a power"
                + " loss can take up to N - 1 acknowledged records, and the window is that many records' worth of"
                + " time. Forcing every record, or Walden's `SYNCED` group commit, loses none.");
        line("");
        line("| size, writers | system | records/s | acknowledged records a power loss can take | window |");
        line("| --- | --- | --- | --- | --- |");
        for (final int size : sizes()) {
            for (final int writers : writerCounts()) {
                final List<String[]> rows = new ArrayList<>();
                results.find(Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", writers, size)
                        .ifPresent(r -> rows.add(
                                new String[] {"FileChannel, force every record", count(r.recordsPerS()), "0", "0"}));
                for (final int every : Plan.FORCE_EVERY) {
                    results.find(
                                    Systems.FILECHANNEL_FORCE_EVERY,
                                    "buffered",
                                    "every-" + every,
                                    "WRITTEN",
                                    writers,
                                    size)
                            .ifPresent(r -> rows.add(new String[] {
                                "FileChannel, force every " + every,
                                count(r.recordsPerS()),
                                "up to " + count(every - 1),
                                decimal((every - 1) / r.recordsPerS() * 1000) + " ms"
                            }));
                }
                results.walden(Plan.BAR_BACKEND, "SYNCED", writers, size)
                        .ifPresent(r ->
                                rows.add(new String[] {"**Walden SYNCED (nio)**", count(r.recordsPerS()), "0", "0"}));
                if (rows.size() > 1) {
                    for (final String[] r : rows) {
                        line("| " + size + " B, " + writers + " | " + r[0] + " | " + r[1] + " | " + r[2] + " | " + r[3]
                                + " |");
                    }
                }
            }
        }
        line("");
    }

    private void blowup() {
        line("## Unbounded asynchronous writes vs Walden, 64 MiB heap");
        line("");
        if (results.blowups().isEmpty()) {
            line("Not run (`--no-blowup`).");
            line("");
            return;
        }
        line("Four writer threads submit 4 KiB records as fast as they can, for "
                + results.plan().settings().blowupSeconds() + " s, to a file opened with O_DSYNC (every write"
                + " reaches the device, so the disk is slower than the writers), in a JVM with `-Xmx64m"
                + " -XX:+ExitOnOutOfMemoryError`. AsynchronousFileChannel: a new heap buffer per record, `write(buffer,"
                + " position, null, handler)` without waiting. Walden: `append(BUFFERED)` into the default 8 MiB log"
                + " buffer, backend `nio-dsync`; appends wait when the buffer is full. The run stops at "
                + BlowupCommand.THREAD_LIMIT + " live threads for the machine's sake.");
        line("");
        line(
                "| system | pool / backend | outcome | after | submitted | completed | heap peak | direct peak | threads |");
        line("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (final BlowupResult b : results.blowups()) {
            line("| " + b.system() + " | " + b.backend() + " | " + cell(b.outcome()) + " | "
                    + count(b.elapsedMs()) + " ms | " + count(b.submitted()) + " | " + count(b.completed()) + " | "
                    + decimal(b.heapPeakMb()) + " MiB | " + decimal(b.directPeakMb()) + " MiB | " + b.threadsPeak()
                    + " |");
        }
        line("");
    }

    private void groups() {
        final List<ResultRow> rows = results.rows().stream()
                .filter(r -> r.system().equals(GroupsResult.SYSTEM))
                .toList();
        if (rows.isEmpty()) {
            return;
        }
        final GroupsWorkload workload = GroupsScenario.WORKLOAD;
        line("## Many Raft groups: durable batches over several groups");
        line("");
        line("`walden-bench.jar groups` (after TiKV raft-engine's stress tool), each store in a fresh JVM: "
                + workload.describe() + ". Stores: `walden-groups`, every group in one Walden `GroupLog` (a batch is"
                + " one atomic append); `walden-separate`, a Walden log per group (a batch is one `SYNCED` append per"
                + " group, not atomic across groups); `rocksdb-per-group`, a RocksDB per group laid out as SOFAJRaft's"
                + " `RocksDBLogStorage` (one `sync=true` write per group, not atomic); `rocksdb-shared`, one RocksDB,"
                + " key = group id + index (one atomic write). Latency is per batch, append to durable; device bytes"
                + " count every writer to the disk; heap is per group after a full GC, the store open and idle after"
                + " the run (for `walden-groups` it includes the index of every entry written).");
        line("");
        line(
                "| store | entries/s | / walden-groups | batch p50 µs | p99 µs | p99.9 µs | device, memory, threads, open |");
        line("| --- | --- | --- | --- | --- | --- | --- |");
        final Optional<ResultRow> reference = rows.stream()
                .filter(r -> r.backend().equals(GroupStoreKind.WALDEN_GROUPS.id) && r.measured())
                .findFirst();
        for (final ResultRow r : rows) {
            line("| " + r.backend() + " | " + count(r.recordsPerS()) + " | "
                    + reference
                            .map(w -> ratio(r.recordsPerS() / w.recordsPerS()))
                            .orElse("–") + " | "
                    + decimal(r.p50Us()) + " | " + decimal(r.p99Us()) + " | " + decimal(r.p999Us()) + " | "
                    + cell(r.note()) + " |");
        }
        line("");
    }

    private void charts() {
        if (images.isEmpty()) {
            return;
        }
        line("## Charts");
        line("");
        for (final String image : images) {
            line("![" + image + "](" + image + ")");
            line("");
        }
    }

    private void groupWindow() {
        final List<ResultRow> rows = results.rows().stream()
                .filter(r -> r.system().equals(Systems.WALDEN)
                        && r.backend().equals(Plan.BAR_BACKEND)
                        && r.durability().equals("SYNCED")
                        && r.writers() == 16
                        && r.variant().equals(Scenario.NONE))
                .filter(r -> r.recordBytes() == sizes().first())
                .toList();
        if (rows.stream().noneMatch(r -> r.groupWindowUs() > 0)) {
            return;
        }
        line("## Group window (Walden nio, SYNCED, 16 writers, " + sizes().first() + " B)");
        line("");
        line("| group window | records/s | p50 µs | p99 µs | p99.9 µs | records/sync | syncs/s |");
        line("| --- | --- | --- | --- | --- | --- | --- |");
        for (final ResultRow r : rows) {
            line("| " + (r.groupWindowUs() == 0 ? "none (default)" : r.groupWindowUs() + " µs") + " | "
                    + count(r.recordsPerS()) + " | " + decimal(r.p50Us()) + " | " + decimal(r.p99Us()) + " | "
                    + decimal(r.p999Us()) + " | " + decimal(r.recordsPerSync()) + " | " + count(r.syncsPerS()) + " |");
        }
        line("");
    }

    private void fio() {
        line("## fio");
        line("");
        if (results.fioVersion() == null) {
            line(
                    results.plan().fioJobs().isEmpty()
                            ? "Not run (`--baselines` left it out)."
                            : "fio is not installed, so its baselines are missing. Install it with `apt-get install -y fio`"
                                    + " (Debian/Ubuntu) or `dnf install -y fio` (Fedora/RHEL) and run again.");
            line("");
            return;
        }
        line("| engine | job | bs | IOPS | MB/s | µs per op | command |");
        line("| --- | --- | --- | --- | --- | --- | --- |");
        for (final ResultRow r : results.rows()) {
            if (r.system().equals(Systems.FIO)) {
                line("| " + r.backend() + " | " + r.variant() + " | " + r.recordBytes() + " | " + count(r.recordsPerS())
                        + " | " + decimal(r.mbPerS()) + " | " + decimal(1e6 / r.recordsPerS()) + " | `"
                        + r.note().replace("|", "/") + "` |");
            }
        }
        line("");
    }

    private void all() {
        line("## Every scenario");
        line("");
        line("| system | backend | variant | level | writers | bytes | records/s | MB/s | p50 µs | p99 µs | p99.9 µs"
                + " | max µs | syncs/s | rec/sync | CPU cores | heap MiB | alloc B/rec | note |");
        line(
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (final ResultRow r : results.rows()) {
            final String variant = r.groupWindowUs() > 0 ? "window " + r.groupWindowUs() + " µs" : r.variant();
            line("| " + r.system() + " | " + r.backend() + " | " + variant + " | " + r.durability() + " | "
                    + r.writers() + " | " + r.recordBytes() + " | " + count(r.recordsPerS()) + " | "
                    + decimal(r.mbPerS()) + " | " + decimal(r.p50Us()) + " | " + decimal(r.p99Us()) + " | "
                    + decimal(r.p999Us()) + " | " + decimal(r.maxUs()) + " | " + count(r.syncsPerS()) + " | "
                    + decimal(r.recordsPerSync()) + " | " + decimal(r.cpuCores()) + " | " + decimal(r.peakHeapMb())
                    + " | " + decimal(r.allocBytesPerRecord()) + " | "
                    + cell(r.system().equals(Systems.FIO) ? "" : r.note())
                    + " |");
        }
        line("");
    }

    private TreeSet<Integer> sizes() {
        final TreeSet<Integer> sizes = new TreeSet<>();
        for (final ResultRow r : results.rows()) {
            if (r.system().equals(Systems.WALDEN)) {
                sizes.add(r.recordBytes());
            }
        }
        if (sizes.isEmpty()) {
            sizes.add(128);
        }
        return sizes;
    }

    private TreeSet<Integer> writerCounts() {
        final TreeSet<Integer> writers = new TreeSet<>();
        for (final ResultRow r : results.rows()) {
            writers.add(r.writers());
        }
        return writers;
    }

    private void line(final String text) {
        md.append(text).append('\n');
    }

    private static String cell(final String text) {
        return text.replace("|", "/").replace("\n", " ");
    }

    /**
     * A count with thousands separators, or a dash for NaN.
     *
     * @param value the value.
     * @return the text.
     */
    static String count(final double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    /**
     * A figure with about three significant digits, or a dash for NaN.
     *
     * @param value the value.
     * @return the text.
     */
    static String decimal(final double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "–";
        }
        final double magnitude = Math.abs(value);
        if (magnitude >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /**
     * A ratio such as {@code 1.42x}, or a dash for NaN.
     *
     * @param value the ratio.
     * @return the text.
     */
    static String ratio(final double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2fx", value);
    }
}
