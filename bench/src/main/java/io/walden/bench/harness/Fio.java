package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * fio baselines, run as an external process on the same directory: one writer doing write +
 * fdatasync per operation ({@code fdatasync=1}, iodepth 1) with {@code psync} and {@code io_uring},
 * on a growing file ({@code append}, {@code fallocate=none}: each sync also commits the new size) or
 * on laid-out blocks ({@code overwrite}); and sequential bandwidth, buffered ({@code end_fsync=1}, so
 * the bytes reach the device within the timed run) and O_DIRECT. Results come from fio's terse
 * output (version 3: field 48 write bandwidth in KiB/s, 49 write IOPS, then the write completion
 * latency percentiles in microseconds).
 *
 * <p><b>Threading:</b> stateless; {@link #run} blocks while fio runs.
 */
final class Fio {
    private static final int FIELD_WRITE_BW_KIB = 48;
    private static final int FIELD_WRITE_IOPS = 49;
    private static final int FIELD_WRITE_CLAT_MAX = 56;

    private Fio() {}

    /**
     * One fio job.
     *
     * @param engine {@code psync} or {@code io_uring}.
     * @param variant {@code append}, {@code overwrite}, {@code seq-buffered} or {@code seq-direct}.
     * @param blockBytes write size.
     * @param seconds runtime limit.
     * @param sizeMib file size.
     */
    record Job(String engine, String variant, int blockBytes, long seconds, long sizeMib) {
        static Job syncPerWrite(final String engine, final String variant, final int blockBytes, final long seconds) {
            return new Job(engine, variant, blockBytes, seconds, 32);
        }

        static Job sequential(final boolean direct, final int blockBytes, final long sizeMib, final long seconds) {
            return new Job("psync", direct ? "seq-direct" : "seq-buffered", blockBytes, seconds, sizeMib);
        }

        boolean syncs() {
            return "append".equals(variant) || "overwrite".equals(variant);
        }

        long budgetMs() {
            return TimeUnit.SECONDS.toMillis(seconds) + ("overwrite".equals(variant) ? 3000 : 1000);
        }

        List<String> arguments(final Path directory) {
            final List<String> args = new ArrayList<>(List.of(
                    "fio",
                    "--name=" + variant + "-" + blockBytes,
                    "--directory=" + directory,
                    "--ioengine=" + engine,
                    "--iodepth=1",
                    "--rw=write",
                    "--bs=" + blockBytes,
                    "--size=" + sizeMib + "M",
                    "--runtime=" + seconds,
                    "--numjobs=1",
                    "--unlink=1",
                    "--output-format=terse",
                    "--terse-version=3"));
            switch (variant) {
                case "append" -> args.addAll(List.of("--fdatasync=1", "--fallocate=none"));
                case "overwrite" -> args.addAll(List.of("--fdatasync=1", "--overwrite=1"));
                case "seq-buffered" -> args.add("--end_fsync=1");
                case "seq-direct" -> args.add("--direct=1");
                default -> throw new IllegalArgumentException("unknown fio variant " + variant);
            }
            return args;
        }

        String describe() {
            return String.join(
                    " ",
                    arguments(Path.of("DIR"))
                            .subList(1, arguments(Path.of("DIR")).size() - 2));
        }
    }

    /**
     * The installed fio's version, or null if fio cannot be run.
     *
     * @return e.g. {@code fio-3.33}, or null.
     */
    static String version() {
        try {
            final Process process = new ProcessBuilder("fio", "--version")
                    .redirectErrorStream(true)
                    .start();
            final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0 ? out : null;
        } catch (final IOException ex) {
            return null;
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Runs a job in a fresh directory under the base directory.
     *
     * @param job the job.
     * @return the row; a failed job gives a row with a note.
     */
    static ResultRow run(final Job job) {
        final Scenario scenario = new Scenario(
                Systems.FIO,
                job.engine(),
                job.variant(),
                job.syncs() ? "SYNCED" : "WRITTEN",
                1,
                job.blockBytes(),
                0,
                0,
                TimeUnit.SECONDS.toMillis(job.seconds()));
        final Path directory = BenchFiles.freshDirectory("walden-bench-fio-");
        try {
            final Process process = new ProcessBuilder(job.arguments(directory))
                    .redirectErrorStream(true)
                    .start();
            final List<String> lines = new ArrayList<>();
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            }
            final int status = process.waitFor();
            final String terse = lines.stream()
                    .filter(l -> l.startsWith("3;"))
                    .reduce((a, b) -> b)
                    .orElse(null);
            if (status != 0 || terse == null) {
                return ResultRow.failed(scenario, "fio failed (status " + status + "): " + String.join(" | ", lines));
            }
            return parse(scenario, job, terse);
        } catch (final IOException ex) {
            return ResultRow.failed(scenario, "cannot run fio: " + ex.getMessage());
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return ResultRow.failed(scenario, "interrupted");
        } finally {
            BenchFiles.deleteRecursively(directory);
        }
    }

    /**
     * Parses one terse version 3 line.
     *
     * @param scenario the job as a scenario.
     * @param job the job.
     * @param terse the line.
     * @return the row.
     */
    static ResultRow parse(final Scenario scenario, final Job job, final String terse) {
        final String[] fields = terse.split(";");
        final double iops = Double.parseDouble(fields[FIELD_WRITE_IOPS - 1]);
        final double bwBytes = Double.parseDouble(fields[FIELD_WRITE_BW_KIB - 1]) * 1024;
        final double clatMaxUs = Double.parseDouble(fields[FIELD_WRITE_CLAT_MAX - 1]);
        final double nan = Double.NaN;
        final boolean syncs = job.syncs();
        // With fdatasync=1 fio's completion latency covers the write only, not the sync: not shown.
        final double p50 = syncs ? nan : percentile(fields, "50.000000%");
        final double p99 = syncs ? nan : percentile(fields, "99.000000%");
        final double p999 = syncs ? nan : percentile(fields, "99.900000%");
        return new ResultRow(
                scenario.system(),
                scenario.backend(),
                scenario.durability(),
                1,
                job.blockBytes(),
                iops,
                bwBytes / 1e6,
                p50,
                p99,
                p999,
                syncs ? nan : clatMaxUs,
                syncs ? iops : 0,
                syncs ? 1 : nan,
                nan,
                scenario.variant(),
                0,
                nan,
                nan,
                nan,
                job.seconds(),
                nan,
                String.format(Locale.ROOT, "fio %s", job.describe()));
    }

    private static double percentile(final String[] fields, final String prefix) {
        for (int i = FIELD_WRITE_IOPS; i < fields.length; i++) {
            if (fields[i].startsWith(prefix + "=")) {
                return Double.parseDouble(fields[i].substring(prefix.length() + 1));
            }
        }
        return Double.NaN;
    }
}
