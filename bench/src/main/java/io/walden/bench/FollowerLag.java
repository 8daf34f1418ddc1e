package io.walden.bench;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.WalView;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * How far behind a live log a read-only follower in another process runs: this JVM appends from
 * many threads while a child JVM follows the log with {@link Wal#openReadOnly(Path)} and a reader
 * that waits in {@code poll(handler, limit, timeoutNs)}. Each record carries the {@link
 * System#nanoTime()} taken just before its append (a clock shared by every process on Linux:
 * CLOCK_MONOTONIC), so the follower measures, per record, the time from the append call to the
 * record reaching its handler: the write, the follower noticing it, reading and validating it.
 *
 * <pre>
 *   record payload (little-endian)
 *   0         8                    16                     recordBytes
 *   | stamp ns | writer id &lt;&lt; 40 | seq | filler ...        |
 *   stamp -1 marks the end
 * </pre>
 *
 * <p>The follower also checks that it saw every record exactly once and in each writer's order;
 * the run fails otherwise.
 *
 * <p><b>Threading:</b> {@link #run} on the main thread, which starts the appenders; the follower
 * runs on the child's main thread.
 */
final class FollowerLag {
    private static final List<String> VALUE_OPTIONS =
            List.of("dir", "writers", "record-bytes", "seconds", "durability", "backend", "visibility");
    private static final List<String> FLAG_OPTIONS = List.of("keep", "follower");
    private static final int STAMP_OFFSET = 0;
    private static final int IDENTITY_OFFSET = 8;
    private static final int HEADER_BYTES = 16;
    private static final int WRITER_SHIFT = 40;
    private static final long END_STAMP = -1;
    private static final long POLL_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int POLL_LIMIT = 4096;
    private static final long CHILD_TIMEOUT_MS = 120_000;

    private FollowerLag() {}

    /**
     * Runs the measurement (or, with {@code --follower}, the child's side of it).
     *
     * @param arguments the options.
     * @return 0 if the follower saw every record exactly once and in order.
     * @throws Exception if the log cannot be opened or the child cannot be started.
     */
    static int run(final String[] arguments) throws Exception {
        final Args args = Args.parse("follow", arguments, VALUE_OPTIONS, FLAG_OPTIONS);
        if (args.flag("follower")) {
            return follow(
                    Path.of(args.string("dir", null)),
                    Durability.valueOf(args.string("visibility", "WRITTEN").toUpperCase(Locale.ROOT)),
                    args.integer("writers", 16));
        }
        final int writers = args.integer("writers", 16);
        final int recordBytes = args.integer("record-bytes", 128);
        if (recordBytes < HEADER_BYTES) {
            throw new IllegalArgumentException("follow: --record-bytes must be at least " + HEADER_BYTES);
        }
        final long seconds = args.number("seconds", 10);
        final Durability durability =
                Durability.valueOf(args.string("durability", "WRITTEN").toUpperCase(Locale.ROOT));
        final String visibility = args.string("visibility", "WRITTEN");
        final String backend = args.string("backend", "nio");
        final String dirOption = args.string("dir", null);
        final Path directory = dirOption != null ? Path.of(dirOption) : BenchFiles.freshDirectory("walden-follow-");
        try (Wal wal = Wal.open(
                WalConfig.builder(directory).backend(BenchLogs.backend(backend)).build())) {
            System.out.printf(
                    "follow: %d writers append %d-byte records %s for %d s (%s) into %s; a child JVM follows"
                            + " read-only with %s visibility%n",
                    writers, recordBytes, durability, seconds, backend, directory, visibility);
            return lead(wal, directory, writers, recordBytes, seconds, durability, visibility);
        } finally {
            if (args.flag("keep")) {
                System.out.println("kept the log in " + directory);
            } else {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    private static int lead(
            final Wal wal,
            final Path directory,
            final int writers,
            final int recordBytes,
            final long seconds,
            final Durability durability,
            final String visibility)
            throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dwalden.checks=false",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "follow",
                "--follower",
                "--dir",
                directory.toString(),
                "--visibility",
                visibility,
                "--writers",
                Integer.toString(writers)));
        final Process child =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final CountDownLatch ready = new CountDownLatch(1);
        final AtomicReference<String> result = new AtomicReference<>();
        final Thread echo = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            if (line.equals("@@READY")) {
                                ready.countDown();
                            } else {
                                if (line.startsWith("@@FOLLOW")) {
                                    result.set(line);
                                }
                                System.out.println("  follower: " + line);
                            }
                        }
                    } catch (final IOException ex) {
                        System.out.println("follow: reading the follower's output failed: " + ex);
                    }
                },
                "follower-output");
        echo.setDaemon(true);
        echo.start();
        if (!ready.await(30, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            System.out.println("FAILED: the follower did not open the log within 30 s");
            return 1;
        }

        final LongAdder appended = new LongAdder();
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(seconds);
        final Thread[] threads = new Thread[writers];
        for (int t = 0; t < writers; t++) {
            final long writerId = t;
            threads[t] = new Thread(
                    () -> {
                        final UnsafeBuffer payload = new UnsafeBuffer(new byte[recordBytes]);
                        long sequence = 0;
                        while (System.nanoTime() < deadlineNs) {
                            payload.putLong(STAMP_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
                            payload.putLong(
                                    IDENTITY_OFFSET, writerId << WRITER_SHIFT | sequence, ByteOrder.LITTLE_ENDIAN);
                            wal.append(payload, 0, recordBytes, durability);
                            sequence++;
                        }
                        appended.add(sequence);
                    },
                    "appender-" + t);
            threads[t].start();
        }
        for (final Thread thread : threads) {
            thread.join();
        }
        final double elapsedSeconds = (System.nanoTime() - startNs) / 1e9;
        final UnsafeBuffer end = new UnsafeBuffer(new byte[HEADER_BYTES]);
        end.putLong(STAMP_OFFSET, END_STAMP, ByteOrder.LITTLE_ENDIAN);
        wal.append(end, 0, HEADER_BYTES, Durability.SYNCED);
        System.out.printf(
                "writers: %,d records in %.1f s = %,.0f appends/s; the writer's syncs (the periodic sync and segment rolls; no append asked for one): %s%n",
                appended.sum(),
                elapsedSeconds,
                appended.sum() / elapsedSeconds,
                wal.stats().syncLatency());
        if (!child.waitFor(CHILD_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            child.destroyForcibly();
            System.out.println("FAILED: the follower did not reach the end within " + CHILD_TIMEOUT_MS + " ms");
            return 1;
        }
        echo.join(5_000);
        final String line = result.get();
        if (child.exitValue() != 0 || line == null) {
            System.out.println("FAILED: the follower exited with " + child.exitValue());
            return 1;
        }
        final long seen = Long.parseLong(line.replaceAll(".* seen=(\\d+).*", "$1"));
        if (seen != appended.sum()) {
            System.out.println("FAILED: the follower saw " + seen + " records of " + appended.sum());
            return 1;
        }
        System.out.println("follow: the follower saw all " + seen + " records exactly once, in order");
        return 0;
    }

    private static int follow(final Path directory, final Durability visibility, final int writers) {
        final Histogram lagNs = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final long[] nextSequence = new long[writers];
        final long[] state = new long[3]; // seen, violations, done
        try (WalView view = Wal.openReadOnly(directory);
                WalReader reader = view.reader(view.startPosition(), visibility)) {
            System.out.println("@@READY");
            System.out.flush();
            while (state[2] == 0) {
                reader.poll(
                        (final DirectBuffer buffer, final int offset, final int length, final long lsn) -> {
                            final long nowNs = System.nanoTime();
                            final long stamp = buffer.getLong(offset + STAMP_OFFSET, ByteOrder.LITTLE_ENDIAN);
                            if (stamp == END_STAMP) {
                                state[2] = 1;
                                return;
                            }
                            final long identity = buffer.getLong(offset + IDENTITY_OFFSET, ByteOrder.LITTLE_ENDIAN);
                            final int writer = (int) (identity >>> WRITER_SHIFT);
                            final long sequence = identity & ((1L << WRITER_SHIFT) - 1);
                            if (writer >= writers || sequence != nextSequence[writer]) {
                                state[1]++;
                            } else {
                                nextSequence[writer]++;
                            }
                            state[0]++;
                            lagNs.recordValue(Math.min(Math.max(0, nowNs - stamp), lagNs.getHighestTrackableValue()));
                        },
                        POLL_LIMIT,
                        POLL_TIMEOUT_NS);
            }
        }
        System.out.printf(
                "@@FOLLOW seen=%d violations=%d lag_us p50=%.0f p90=%.0f p99=%.0f p99.9=%.0f max=%.0f%n",
                state[0],
                state[1],
                lagNs.getValueAtPercentile(50) / 1e3,
                lagNs.getValueAtPercentile(90) / 1e3,
                lagNs.getValueAtPercentile(99) / 1e3,
                lagNs.getValueAtPercentile(99.9) / 1e3,
                lagNs.getMaxValue() / 1e3);
        return state[1] == 0 ? 0 : 1;
    }
}
