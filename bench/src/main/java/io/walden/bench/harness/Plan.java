package io.walden.bench.harness;

import io.walden.bench.BenchLogs;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The scenarios of one run, in the order they run: for each record size and writer count, Walden on
 * each backend and level, then the baselines at the same size and writer count, so that what is
 * compared is measured minutes apart at most. Then the scenarios the brief's bar needs that the
 * matrix lacks (each once), the one-writer asynchronous-acknowledgement scenarios, the open-loop
 * {@code AsyncAppender} ones ({@link Systems#VARIANT_ASYNC_DURABLE}), the group window
 * sweep and the recovery scan; the full run then runs the {@code groups} scenario on each of its stores
 * ({@link #groupsStores()}). The start-up scenario (a new log's first {@value #START_UP_WARMUP_MS}
 * + {@value #START_UP_MEASURE_MS} ms, variant {@link Systems#VARIANT_START_UP}) runs right after the
 * steady-state scenario it is judged against, in quick and full runs alike.
 *
 * <p><b>Threading:</b> immutable after construction.
 *
 * @param scenarios the scenarios in order.
 * @param settings what the plan was made from.
 */
public record Plan(List<Scenario> scenarios, Settings settings) {
    /** The backend the brief's bar is judged on: FileChannel, buffered, the default. */
    public static final String BAR_BACKEND = "nio";
    /** The backend that keeps several O_DSYNC writes in flight on this machine's disk. */
    public static final String PIPELINED_BACKEND = "uring-direct-dsync";
    /** An emulated deep-queue device: every write a 1 ms flush, any number at once (FlushDelayBackend). */
    public static final String DEEP_QUEUE_BACKEND = "nio+deepflush1000us";
    /** The pipelined rows' backend through the ring-owning io_uring backend (JDK 22+ only). */
    public static final String FFM_PIPELINED_BACKEND = "uring-ffm-direct-dsync";
    /** Warm-up of the start-up scenario, whatever the run's own warm-up. */
    public static final long START_UP_WARMUP_MS = 250;
    /** Measured time of the start-up scenario, whatever the run's own. */
    public static final long START_UP_MEASURE_MS = 600;
    /** The every-N batch sizes of the count-batching baseline. */
    public static final List<Integer> FORCE_EVERY = List.of(10, 100, 1000);

    /**
     * What a run measures.
     *
     * @param quick the short run.
     * @param backends Walden backends.
     * @param durabilities Walden levels.
     * @param writers writer counts.
     * @param sizes record sizes.
     * @param groupWindowsUs group windows for the sweep (Walden, SYNCED, 16 writers, smallest size).
     * @param baselines baseline system names to run; see {@link Systems}.
     * @param warmupMs warm-up per scenario.
     * @param measureMs measured duration per scenario.
     * @param recoveryLogMib size of the recovery scan's log.
     * @param blowupSeconds duration of each memory blow-up run.
     */
    public record Settings(
            boolean quick,
            List<String> backends,
            List<String> durabilities,
            List<Integer> writers,
            List<Integer> sizes,
            List<Long> groupWindowsUs,
            List<String> baselines,
            long warmupMs,
            long measureMs,
            long recoveryLogMib,
            long blowupSeconds) {}

    /**
     * Builds the plan.
     *
     * @param settings what to measure.
     * @return the plan.
     */
    public static Plan of(final Settings settings) {
        final Set<Scenario> ordered = new LinkedHashSet<>();
        final long warm = settings.warmupMs();
        final long measure = settings.measureMs();
        for (final int size : settings.sizes()) {
            for (final int writers : settings.writers()) {
                for (final String durability : settings.durabilities()) {
                    for (final String backend : settings.backends()) {
                        ordered.add(walden(backend, Scenario.NONE, durability, writers, size, 0, warm, measure));
                    }
                }
                // The full run measures every baseline at every size and writer count; the quick one
                // keeps the multi-writer points the bar needs and the rest at one writer.
                final boolean all = !settings.quick() || writers == 1;
                addBaselines(ordered, settings, writers, size, all, warm, measure);
            }
        }
        final int smallest = settings.sizes().stream().min(Integer::compare).orElse(128);
        // The bar's scenarios, where the matrix above lacks them.
        final Scenario steadyOneWriter = walden(BAR_BACKEND, Scenario.NONE, "SYNCED", 1, 128, 0, warm, measure);
        ordered.add(steadyOneWriter);
        ordered.add(walden(BAR_BACKEND, Scenario.NONE, "SYNCED", 16, 128, 0, warm, measure));
        ordered.add(walden(BAR_BACKEND, Scenario.NONE, "SYNCED", 64, 128, 0, warm, measure));
        ordered.add(walden(BAR_BACKEND, Scenario.NONE, "WRITTEN", 16, 4096, 0, warm, measure));
        // A log that retention keeps at a fixed size, whose next segments are made from freed files.
        ordered.add(walden(BAR_BACKEND, Systems.VARIANT_RETAINED, "WRITTEN", 16, 4096, 0, warm, measure));
        if (settings.baselines().contains(Systems.ROCKSDB)) {
            ordered.add(baseline(Systems.ROCKSDB, "wal", Scenario.NONE, "SYNCED", 64, 128, warm, measure));
        }
        if (settings.baselines().contains(Systems.CHRONICLE_QUEUE)) {
            ordered.add(baseline(Systems.CHRONICLE_QUEUE, "mmap", Scenario.NONE, "WRITTEN", 1, 128, warm, measure));
        }
        // Pipelined durable writes (issue 27), each beside its one-write-at-a-time row, in the full run:
        // io_uring with O_DIRECT + O_DSYNC on this disk (also through the ring-owning backend, where the
        // bench runs on JDK 22+), and an emulated deep-queue device whose every write is a 1 ms flush
        // (any number at once).
        final List<String> pipelinedBackends = new ArrayList<>(List.of(PIPELINED_BACKEND, DEEP_QUEUE_BACKEND));
        if (BenchLogs.ffmUringAvailable()) {
            pipelinedBackends.add(1, FFM_PIPELINED_BACKEND);
        }
        for (final String pipelined : settings.quick() ? List.<String>of() : pipelinedBackends) {
            for (final int writers : List.of(16, 64)) {
                ordered.add(walden(pipelined, Scenario.NONE, "SYNCED", writers, 128, 0, warm, measure));
                ordered.add(walden(pipelined, Systems.VARIANT_ONE_WRITE, "SYNCED", writers, 128, 0, warm, measure));
            }
        }
        ordered.add(walden(BAR_BACKEND, Systems.VARIANT_ASYNC_ACK, "WRITTEN", 1, 128, 0, warm, measure));
        // The bandwidth bar is judged both with 16 blocking writers and with one pipelined writer.
        ordered.add(walden(BAR_BACKEND, Systems.VARIANT_ASYNC_ACK, "WRITTEN", 1, 4096, 0, warm, measure));
        addAsyncDurable(ordered, settings.quick(), warm, measure);
        for (final long windowUs : settings.groupWindowsUs()) {
            ordered.add(walden(BAR_BACKEND, Scenario.NONE, "SYNCED", 16, smallest, windowUs, warm, measure));
        }
        ordered.add(walden(
                BAR_BACKEND,
                Systems.VARIANT_RECOVERY + "-" + settings.recoveryLogMib() + "mib",
                "WRITTEN",
                1,
                4096,
                0,
                0,
                0));
        final List<Scenario> scenarios = new ArrayList<>(ordered);
        // Side by side with the steady row it is judged against, so that both see the same machine.
        scenarios.add(scenarios.indexOf(steadyOneWriter) + 1, startUp());
        return new Plan(List.copyOf(scenarios), settings);
    }

    /**
     * The open-loop durable rows (variant {@link Systems#VARIANT_ASYNC_DURABLE}, issue 41), beside the
     * async-ack ones: {@code SYNCED} through {@code AsyncAppender}, one producer 128 B on {@value
     * #BAR_BACKEND}; in the full run also, right after it, the same on the emulated deep-queue device
     * ({@value #DEEP_QUEUE_BACKEND}), then 1 and 4 producers at 128 B and 4 KiB on {@value #BAR_BACKEND},
     * and one producer 128 B on the io_uring backends of the pipelined rows ({@value #PIPELINED_BACKEND},
     * and {@value #FFM_PIPELINED_BACKEND} where it runs).
     */
    private static void addAsyncDurable(
            final Set<Scenario> ordered, final boolean quick, final long warm, final long measure) {
        final String variant = Systems.VARIANT_ASYNC_DURABLE;
        ordered.add(walden(BAR_BACKEND, variant, "SYNCED", 1, 128, 0, warm, measure));
        if (quick) {
            return;
        }
        ordered.add(walden(DEEP_QUEUE_BACKEND, variant, "SYNCED", 1, 128, 0, warm, measure));
        for (final int size : List.of(128, 4096)) {
            for (final int producers : List.of(1, 4)) {
                ordered.add(walden(BAR_BACKEND, variant, "SYNCED", producers, size, 0, warm, measure));
            }
        }
        ordered.add(walden(PIPELINED_BACKEND, variant, "SYNCED", 1, 128, 0, warm, measure));
        if (BenchLogs.ffmUringAvailable()) {
            ordered.add(walden(FFM_PIPELINED_BACKEND, variant, "SYNCED", 1, 128, 0, warm, measure));
        }
    }

    /**
     * The start-up scenario: Walden {@value #BAR_BACKEND}, one writer, {@code SYNCED}, 128 B, on a
     * fresh log in a fresh JVM, {@value #START_UP_WARMUP_MS} ms of warm-up and {@value
     * #START_UP_MEASURE_MS} ms measured.
     *
     * @return the scenario.
     */
    public static Scenario startUp() {
        return walden(
                BAR_BACKEND, Systems.VARIANT_START_UP, "SYNCED", 1, 128, 0, START_UP_WARMUP_MS, START_UP_MEASURE_MS);
    }

    private static void addBaselines(
            final Set<Scenario> ordered,
            final Settings settings,
            final int writers,
            final int size,
            final boolean all,
            final long warm,
            final long measure) {
        final List<String> baselines = settings.baselines();
        if (baselines.contains(Systems.FILECHANNEL_FORCE)) {
            ordered.add(baseline(
                    Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", writers, size, warm, measure));
        }
        if (all && baselines.contains(Systems.FILECHANNEL_FORCE_EVERY)) {
            for (final int every : FORCE_EVERY) {
                ordered.add(baseline(
                        Systems.FILECHANNEL_FORCE_EVERY,
                        "buffered",
                        "every-" + every,
                        "WRITTEN",
                        writers,
                        size,
                        warm,
                        measure));
            }
        }
        if (all && baselines.contains(Systems.ASYNCFILECHANNEL_FORCE)) {
            for (final String pool : List.of(Systems.AFC_DEFAULT_POOL, Systems.AFC_FIXED_POOL)) {
                ordered.add(baseline(
                        Systems.ASYNCFILECHANNEL_FORCE, pool, Scenario.NONE, "SYNCED", writers, size, warm, measure));
            }
        }
        if (all && baselines.contains(Systems.RAF_SYNC)) {
            ordered.add(baseline(Systems.RAF_SYNC, "buffered", Scenario.NONE, "SYNCED", writers, size, warm, measure));
        }
        if (baselines.contains(Systems.ROCKSDB)) {
            ordered.add(baseline(Systems.ROCKSDB, "wal", Scenario.NONE, "SYNCED", writers, size, warm, measure));
            ordered.add(baseline(Systems.ROCKSDB, "wal", Scenario.NONE, "WRITTEN", writers, size, warm, measure));
        }
        if (baselines.contains(Systems.CHRONICLE_QUEUE)) {
            ordered.add(
                    baseline(Systems.CHRONICLE_QUEUE, "mmap", Scenario.NONE, "WRITTEN", writers, size, warm, measure));
        }
    }

    /**
     * A Walden scenario.
     *
     * @param backend backend name.
     * @param variant variant or {@link Scenario#NONE}.
     * @param durability level.
     * @param writers writer threads.
     * @param size record bytes.
     * @param windowUs group window.
     * @param warm warm-up ms.
     * @param measure measured ms.
     * @return the scenario.
     */
    static Scenario walden(
            final String backend,
            final String variant,
            final String durability,
            final int writers,
            final int size,
            final long windowUs,
            final long warm,
            final long measure) {
        return new Scenario(Systems.WALDEN, backend, variant, durability, writers, size, windowUs, warm, measure);
    }

    private static Scenario baseline(
            final String system,
            final String backend,
            final String variant,
            final String durability,
            final int writers,
            final int size,
            final long warm,
            final long measure) {
        return new Scenario(system, backend, variant, durability, writers, size, 0, warm, measure);
    }

    /**
     * The fio jobs of this plan.
     *
     * @return the jobs, in order.
     */
    public List<Fio.Job> fioJobs() {
        if (!settings.baselines().contains(Systems.FIO)) {
            return List.of();
        }
        final List<Fio.Job> jobs = new ArrayList<>();
        final long seconds = Math.max(1, (settings.warmupMs() + settings.measureMs()) / 1000);
        final Set<Integer> sizes = new LinkedHashSet<>(settings.sizes());
        sizes.add(128);
        for (final int size : sizes) {
            jobs.add(Fio.Job.syncPerWrite("psync", "append", size, seconds));
            jobs.add(Fio.Job.syncPerWrite("io_uring", "append", size, seconds));
            if (!settings.quick()) {
                jobs.add(Fio.Job.syncPerWrite("psync", "overwrite", size, seconds));
            }
        }
        final long mib = settings.quick() ? 256 : 1024;
        jobs.add(Fio.Job.sequential(false, 4096, mib, seconds + 2));
        jobs.add(Fio.Job.sequential(true, 1024 * 1024, mib, seconds + 2));
        return jobs;
    }

    /**
     * The memory blow-up runs: AsynchronousFileChannel with each pool, then Walden.
     *
     * @return the runs as (system, backend) pairs.
     */
    public List<String[]> blowupRuns() {
        return List.of(
                new String[] {Systems.ASYNCFILECHANNEL_FORCE, Systems.AFC_DEFAULT_POOL},
                new String[] {Systems.ASYNCFILECHANNEL_FORCE, Systems.AFC_FIXED_POOL},
                new String[] {Systems.WALDEN, "nio-dsync"});
    }

    /**
     * The stores of the {@code groups} scenario ({@link GroupsScenario}), each in a fresh JVM: all four in
     * the full run, none in the quick one.
     *
     * @return the stores' ids, in the order they run.
     */
    public List<String> groupsStores() {
        if (settings.quick()) {
            return List.of();
        }
        final List<String> stores = new ArrayList<>();
        for (final GroupStoreKind kind : GroupStoreKind.values()) {
            stores.add(kind.id);
        }
        return List.copyOf(stores);
    }

    /**
     * Expected wall time of the whole run.
     *
     * @return milliseconds.
     */
    public long estimateMs() {
        long total = 0;
        for (final Scenario scenario : scenarios) {
            total += scenario.budgetMs();
        }
        total += settings.recoveryLogMib() * 20; // build + six reopens, about 50 MB/s of wall time per MiB
        for (final Fio.Job job : fioJobs()) {
            total += job.budgetMs();
        }
        total += blowupRuns().size() * (settings.blowupSeconds() * 1000 + ChildJvm.STARTUP_ALLOWANCE_MS);
        total += groupsStores().size() * GroupsScenario.budgetMs();
        return total;
    }
}
