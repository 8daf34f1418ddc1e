package io.walden.bench;

import io.walden.bench.harness.BlowupCommand;
import io.walden.bench.harness.CompressionCommand;
import io.walden.bench.harness.DeviceBytesCommand;
import io.walden.bench.harness.GroupsCommand;
import io.walden.bench.harness.GroupsRetentionCommand;
import io.walden.bench.harness.JraftOriginalBenchCommand;
import io.walden.bench.harness.QueueDepthCommand;
import io.walden.bench.harness.RaftCommand;
import io.walden.bench.harness.RaftOpenCommand;
import io.walden.bench.harness.RaftStorageBenchCommand;
import io.walden.bench.harness.RunCommand;
import io.walden.bench.harness.ScenarioCommand;
import io.walden.bench.harness.WakeFloorCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * Entry point of {@code walden-bench.jar}: a picocli command with one subcommand per job.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar run [--quick] [--out DIR] [--dir DIR] [--backends ...] ...
 *   java -jar bench/target/walden-bench.jar demo         [--dir D] [--keep] [--records N] [--threads T]
 *   java -jar bench/target/walden-bench.jar backpressure [--seconds S] [--threads T] ...
 *   java -jar bench/target/walden-bench.jar recovery     [--size-mib M] [--runs N] ...
 *   java -jar bench/target/walden-bench.jar follow       [--writers N] [--seconds S] [--visibility V] ...
 *   java -jar bench/target/walden-bench.jar jmh          [JMH options, e.g. '\.AppendBenchmark' -prof gc]
 *   java -jar bench/target/walden-bench.jar wakefloor    [--writers N] [--measure-ms M] [--rounds R] [--dir D]
 *   java -jar bench/target/walden-bench.jar raft-storage-bench [--stores walden,rocksdb] [--rounds R] [--entries N] ...
 *   java -jar bench/target/walden-bench.jar jraft-storage-benchmark --classes DIR [--store walden] ...
 *   java -jar bench/target/walden-bench.jar groups [--store all] [--groups N] [--writers W] [--seconds S] ...
 *   java -jar bench/target/walden-bench.jar groups-retention [--groups N] [--laggard-percent P] [--seconds S] ...
 * </pre>
 *
 * <p><b>Threading:</b> runs on the main thread.
 */
@Command(
        name = "walden-bench",
        mixinStandardHelpOptions = true,
        description = "Walden's benchmarks: the comparative harness, the demo, checks and JMH.",
        subcommands = {
            RunCommand.class,
            ScenarioCommand.class,
            BlowupCommand.class,
            DeviceBytesCommand.class,
            CompressionCommand.class,
            QueueDepthCommand.class,
            WakeFloorCommand.class,
            RaftCommand.class,
            RaftOpenCommand.class,
            RaftStorageBenchCommand.class,
            JraftOriginalBenchCommand.class,
            GroupsCommand.class,
            GroupsRetentionCommand.class
        })
public final class Main implements Callable<Integer> {
    /** Creates the top-level command; picocli calls it. */
    public Main() {}

    /**
     * Runs a subcommand and exits with its status.
     *
     * @param args the subcommand and its arguments.
     */
    public static void main(final String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with every subcommand, for {@link #main} and tests.
     *
     * @return the command line.
     */
    public static CommandLine commandLine() {
        final CommandLine commandLine = new CommandLine(new Main());
        addPassThrough(
                commandLine,
                "demo",
                Demo::run,
                "Appends 1,000,000 records with mixed durability from 4 threads, reopens, verifies every record.",
                "Options: [--dir D] [--keep] [--records N] [--threads T] [--record-bytes B]");
        addPassThrough(
                commandLine,
                "backpressure",
                BackpressureCheck::run,
                "32 appenders against a disk throttled to 1 MB/s, in a child JVM with -Xmx64m: memory stays bounded.",
                "Options: [--dir D] [--keep] [--seconds S] [--threads T] [--rate-bytes-per-second R]"
                        + " [--buffer-bytes B] [--timeout-ms M] [--record-bytes B] [--no-fork]");
        addPassThrough(
                commandLine,
                "recovery",
                RecoveryScan::run,
                "Builds a 1 GiB log once, then times reopening it (the recovery scan) N times.",
                "Options: [--dir D] [--keep] [--reuse] [--size-mib M] [--record-bytes B] [--runs N]");
        addPassThrough(
                commandLine,
                "follow",
                FollowerLag::run,
                "16 writers append WRITTEN while a child JVM follows the log read-only: its lag per record.",
                "Options: [--dir D] [--keep] [--writers N] [--record-bytes B] [--seconds S] [--durability L]"
                        + " [--backend nio|uring|...] [--visibility WRITTEN|SYNCED]");
        addPassThrough(
                commandLine,
                "jmh",
                arguments -> {
                    // JMH's Main exits the JVM itself with its own status.
                    org.openjdk.jmh.Main.main(arguments);
                    return 0;
                },
                "Runs JMH with the remaining arguments, e.g. 'jmh \\.AppendBenchmark -prof gc'.",
                "'jmh -l' lists the benchmarks, 'jmh -h' shows JMH's options.");
        return commandLine;
    }

    @Override
    public Integer call() {
        CommandLine.usage(this, System.err);
        return 2;
    }

    private static void addPassThrough(
            final CommandLine commandLine,
            final String name,
            final Job job,
            final String description,
            final String options) {
        // JMH answers -h itself; the others parse with Args, which knows no help option.
        final CommandLine sub =
                new CommandLine("jmh".equals(name) ? new PassThrough(job) : new HelpfulPassThrough(job));
        sub.getCommandSpec().usageMessage().description(description, options);
        sub.setUnmatchedArgumentsAllowed(true).setUnmatchedOptionsArePositionalParams(true);
        commandLine.addSubcommand(name, sub);
    }

    /** A job that takes its arguments unparsed. */
    @FunctionalInterface
    interface Job {
        /**
         * Runs the job.
         *
         * @param arguments its arguments.
         * @return the exit status.
         * @throws Exception from the job.
         */
        int run(String[] arguments) throws Exception;
    }

    /** A subcommand that hands every argument to a {@link Job}, which parses them itself. */
    @Command(description = "")
    static class PassThrough implements Callable<Integer> {
        private final Job job;

        @Unmatched
        List<String> arguments = new ArrayList<>();

        PassThrough(final Job job) {
            this.job = job;
        }

        @Override
        public Integer call() throws Exception {
            try {
                return job.run(arguments.toArray(new String[0]));
            } catch (final IllegalArgumentException ex) {
                System.err.println(ex.getMessage());
                return 2;
            }
        }
    }

    /** A pass-through command whose own parser knows no help option: picocli answers {@code --help}. */
    @Command(description = "")
    static final class HelpfulPassThrough extends PassThrough {
        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "Show what the command does and its options, and exit.")
        boolean help;

        HelpfulPassThrough(final Job job) {
            super(job);
        }
    }
}
