package io.walden.bench.harness;

import io.walden.Wal;
import io.walden.bench.BenchFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs one scenario in this JVM and prints its result as protocol lines for the harness: {@value
 * #RESULT_PREFIX} followed by a {@link ResultRow} CSV line, and {@value #HISTOGRAM_PREFIX} followed
 * by the encoded latency histogram. The {@code run} command starts a fresh JVM per scenario with
 * this hidden subcommand; it can also be run by hand to look at one scenario.
 *
 * <p><b>Threading:</b> runs on the main thread, which starts the writers.
 */
@Command(
        name = "scenario",
        hidden = true,
        description = "Runs one scenario in this JVM and prints its result line (used by 'run').")
public final class ScenarioCommand implements Callable<Integer> {
    /** Prefix of the line that carries the result row. */
    public static final String RESULT_PREFIX = "@@RESULT ";
    /** Prefix of the line that carries the latency histogram. */
    public static final String HISTOGRAM_PREFIX = "@@HISTOGRAM ";

    @Option(names = "--system", required = true, description = "walden or a baseline name")
    String system;

    @Option(names = "--backend", defaultValue = Scenario.NONE)
    String backend;

    @Option(names = "--variant", defaultValue = Scenario.NONE)
    String variant;

    @Option(names = "--durability", defaultValue = "SYNCED")
    String durability;

    @Option(names = "--writers", defaultValue = "1")
    int writers;

    @Option(names = "--record-bytes", defaultValue = "128")
    int recordBytes;

    @Option(names = "--group-window-us", defaultValue = "0")
    long groupWindowUs;

    @Option(names = "--warmup-ms", defaultValue = "1000")
    long warmupMs;

    @Option(names = "--measure-ms", defaultValue = "3000")
    long measureMs;

    @Option(
            names = "--dir",
            description = "directory under which the scenario creates (and deletes) its own; default target/")
    Path dir;

    @Override
    public Integer call() throws Exception {
        final Scenario scenario = new Scenario(
                system, backend, variant, durability, writers, recordBytes, groupWindowUs, warmupMs, measureMs);
        if (dir != null) {
            Files.createDirectories(dir);
            System.setProperty(BenchFiles.BASE_DIR_PROP_NAME, dir.toString());
        }
        final Path directory = BenchFiles.freshDirectory("walden-bench-" + scenario.id() + "-");
        try {
            final ResultRow row = run(scenario, directory);
            System.out.println(RESULT_PREFIX + row.toCsv());
            return 0;
        } finally {
            BenchFiles.deleteRecursively(directory);
        }
    }

    /**
     * Runs a scenario in this JVM and prints the histogram line.
     *
     * @param scenario the scenario.
     * @param directory an empty directory on the disk under test.
     * @return the result.
     * @throws Exception if the target cannot be opened or closed.
     */
    static ResultRow run(final Scenario scenario, final Path directory) throws Exception {
        if (Systems.WALDEN.equals(scenario.system()) && scenario.variant().startsWith(Systems.VARIANT_RECOVERY)) {
            final long logMib = Long.parseLong(scenario.variant().replaceAll("\\D", ""));
            return RecoveryProbe.run(directory, scenario, logMib);
        }
        final Measurement measurement;
        if (Systems.WALDEN.equals(scenario.system()) && Systems.VARIANT_ASYNC_ACK.equals(scenario.variant())) {
            try (Wal wal = WaldenTarget.open(directory, scenario)) {
                measurement = new AsyncAckDriver().run(wal, scenario);
            }
        } else if (Systems.WALDEN.equals(scenario.system())
                && Systems.VARIANT_ASYNC_DURABLE.equals(scenario.variant())) {
            try (Wal wal = WaldenTarget.open(directory, scenario)) {
                measurement = new AsyncDurableDriver().run(wal, scenario);
            }
        } else {
            try (Target target = open(scenario, directory)) {
                measurement = new LoadDriver().run(target, scenario);
            }
        }
        System.out.println(HISTOGRAM_PREFIX + Histograms.encode(measurement.latencyNs()));
        return measurement.toRow(scenario);
    }

    /**
     * Opens the target a scenario appends to.
     *
     * @param scenario the scenario.
     * @param directory its directory.
     * @return the open target.
     * @throws Exception if it cannot be opened.
     * @throws IllegalArgumentException for an unknown system or variant.
     */
    static Target open(final Scenario scenario, final Path directory) throws Exception {
        final int bytes = scenario.recordBytes();
        final boolean synced = "SYNCED".equals(scenario.durability());
        return switch (scenario.system()) {
            case Systems.WALDEN -> new WaldenTarget(directory, scenario);
            case Systems.FILECHANNEL_FORCE -> new FileChannelTarget(directory, bytes, 1);
            case Systems.FILECHANNEL_FORCE_EVERY ->
                new FileChannelTarget(
                        directory, bytes, Long.parseLong(scenario.variant().replaceAll("\\D", "")));
            case Systems.ASYNCFILECHANNEL_FORCE ->
                new AsyncFileChannelTarget(directory, bytes, Systems.AFC_FIXED_POOL.equals(scenario.backend()));
            case Systems.RAF_SYNC -> new RandomAccessFileTarget(directory, bytes);
            case Systems.ROCKSDB -> new RocksDbTarget(directory, bytes, synced);
            case Systems.CHRONICLE_QUEUE -> new ChronicleQueueTarget(directory, bytes);
            default -> throw new IllegalArgumentException("unknown system '" + scenario.system() + "'");
        };
    }
}
