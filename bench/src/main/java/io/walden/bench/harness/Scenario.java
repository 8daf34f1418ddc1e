package io.walden.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One measured workload: which system appends, through which backend, at which acknowledgement
 * level, from how many writer threads, with which record size, for how long. A scenario runs in a
 * child JVM as {@code walden-bench.jar scenario <args>} (see {@link #toArgs()}).
 *
 * @param system {@code walden} or a baseline's name, e.g. {@code rocksdb}; see {@link Systems}.
 * @param backend the backend or engine, e.g. {@code nio-direct} for Walden, {@code fixed-pool-4}
 *     for AsynchronousFileChannel; {@code -} where there is no choice.
 * @param variant what else distinguishes the scenario, e.g. {@code every-100} or {@code async-ack};
 *     {@code -} for none.
 * @param durability what an acknowledgement means: {@code BUFFERED}, {@code WRITTEN} or {@code SYNCED}.
 * @param writers writer threads.
 * @param recordBytes payload bytes per record.
 * @param groupWindowUs Walden's group window in microseconds; 0 for none and for baselines.
 * @param warmupMs warm-up before measuring, in milliseconds.
 * @param measureMs measured duration, in milliseconds.
 */
public record Scenario(
        String system,
        String backend,
        String variant,
        String durability,
        int writers,
        int recordBytes,
        long groupWindowUs,
        long warmupMs,
        long measureMs) {

    /** Placeholder for "no backend choice" or "no variant". */
    public static final String NONE = "-";

    /**
     * A short, unique, file-name-safe identifier, e.g. {@code walden-nio-SYNCED-w16-b128}.
     *
     * @return the identifier.
     */
    public String id() {
        final StringBuilder id = new StringBuilder(system);
        if (!NONE.equals(backend)) {
            id.append('-').append(backend);
        }
        if (!NONE.equals(variant)) {
            id.append('-').append(variant);
        }
        id.append('-')
                .append(durability)
                .append("-w")
                .append(writers)
                .append("-b")
                .append(recordBytes);
        if (groupWindowUs > 0) {
            id.append("-gw").append(groupWindowUs);
        }
        return id.toString().toLowerCase(Locale.ROOT).replace('=', '-');
    }

    /**
     * The same scenario with other durations.
     *
     * @param newWarmupMs warm-up in milliseconds.
     * @param newMeasureMs measurement in milliseconds.
     * @return the scenario.
     */
    public Scenario withDurations(final long newWarmupMs, final long newMeasureMs) {
        return new Scenario(
                system, backend, variant, durability, writers, recordBytes, groupWindowUs, newWarmupMs, newMeasureMs);
    }

    /**
     * Options of the {@code scenario} subcommand that describe this scenario.
     *
     * @return the arguments.
     */
    public List<String> toArgs() {
        final List<String> args = new ArrayList<>();
        args.add("--system=" + system);
        args.add("--backend=" + backend);
        args.add("--variant=" + variant);
        args.add("--durability=" + durability);
        args.add("--writers=" + writers);
        args.add("--record-bytes=" + recordBytes);
        args.add("--group-window-us=" + groupWindowUs);
        args.add("--warmup-ms=" + warmupMs);
        args.add("--measure-ms=" + measureMs);
        return args;
    }

    /**
     * Wall time the scenario is expected to take, JVM start and teardown included.
     *
     * @return milliseconds.
     */
    public long budgetMs() {
        return warmupMs + measureMs + ChildJvm.STARTUP_ALLOWANCE_MS;
    }
}
