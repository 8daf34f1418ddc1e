package io.walden.bench;

import java.util.Arrays;

/**
 * Entry point of {@code walden-bench.jar}: dispatches to a subcommand.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar demo         [--dir D] [--keep] [--records N] [--threads T]
 *   java -jar bench/target/walden-bench.jar backpressure [--seconds S] [--threads T] ...
 *   java -jar bench/target/walden-bench.jar recovery     [--size-mib M] [--runs N] ...
 *   java -jar bench/target/walden-bench.jar jmh          [JMH options, e.g. AppendBenchmark -prof gc]
 * </pre>
 *
 * <p><b>Threading:</b> runs on the main thread.
 */
public final class Main {
    private Main() {}

    /**
     * Runs a subcommand and exits with its status.
     *
     * @param args the subcommand and its arguments.
     * @throws Exception from JMH.
     */
    public static void main(final String[] args) throws Exception {
        if (args.length == 0 || "help".equals(args[0]) || "--help".equals(args[0]) || "-h".equals(args[0])) {
            usage();
            System.exit(args.length == 0 ? 2 : 0);
            return;
        }
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        final int status;
        try {
            status = switch (args[0]) {
                case "demo" -> Demo.run(rest);
                case "backpressure" -> BackpressureCheck.run(rest);
                case "recovery" -> RecoveryScan.run(rest);
                case "jmh" -> {
                    // JMH's Main exits the JVM itself with its own status.
                    org.openjdk.jmh.Main.main(rest);
                    yield 0;
                }
                default -> {
                    System.err.println("unknown subcommand '" + args[0] + "'");
                    usage();
                    yield 2;
                }
            };
        } catch (final IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.exit(2);
            return;
        }
        System.exit(status);
    }

    private static void usage() {
        System.err.println(String.join(
                System.lineSeparator(),
                "usage: java -jar walden-bench.jar <subcommand> [options]",
                "  demo          append 1,000,000 records with mixed durability, reopen, verify every record",
                "                [--dir D] [--keep] [--records N] [--threads T] [--record-bytes B]",
                "  backpressure  32 appenders against a disk throttled to 1 MB/s, in a child JVM with -Xmx64m",
                "                [--dir D] [--keep] [--seconds S] [--threads T] [--rate-bytes-per-second R]",
                "                [--buffer-bytes B] [--timeout-ms M] [--record-bytes B] [--no-fork]",
                "  recovery      build a 1 GiB log once, then time reopening it (recovery scan) N times",
                "                [--dir D] [--keep] [--reuse] [--size-mib M] [--record-bytes B] [--runs N]",
                "  jmh           run JMH with the remaining arguments, e.g. 'jmh AppendBenchmark -prof gc'",
                "                ('jmh -l' lists the benchmarks, 'jmh -h' shows JMH's options)"));
    }
}
