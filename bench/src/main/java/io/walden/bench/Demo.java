package io.walden.bench;

import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The runnable demonstration: a few threads append records with mixed durability, the log is
 * closed and reopened, and a reader checks every record: count, order, LSN and content.
 *
 * <p>Record {@code id} is appended by thread {@code id % threads}, so each thread appends an
 * increasing sequence of ids. Its payload starts with the id (little-endian) and continues with
 * bytes derived from the id. Every 1000th record is {@code SYNCED}, every 10th of the rest {@code
 * WRITTEN}, the others {@code BUFFERED}.
 *
 * <p><b>Threading:</b> {@link #run} is called by the main thread, which starts the appenders.
 */
final class Demo {
    private static final List<String> VALUE_OPTIONS = List.of("dir", "records", "threads", "record-bytes");
    private static final List<String> FLAG_OPTIONS = List.of("keep");
    private static final int ID_BYTES = Long.BYTES;
    private static final int ERRORS_SHOWN_MAX = 10;

    private Demo() {}

    /**
     * Runs the demo.
     *
     * @param arguments the options.
     * @return 0 if every record verified, 1 otherwise.
     */
    static int run(final String[] arguments) {
        final Args args = Args.parse("demo", arguments, VALUE_OPTIONS, FLAG_OPTIONS);
        final int recordCount = args.integer("records", 1_000_000);
        final int threadCount = Math.max(1, args.integer("threads", 4));
        final int recordBytes = args.integer("record-bytes", 128);
        if (recordBytes < ID_BYTES) {
            throw new IllegalArgumentException("demo: --record-bytes must be at least " + ID_BYTES);
        }
        final String dirOption = args.string("dir", null);
        final Path directory = dirOption != null ? Path.of(dirOption) : BenchFiles.freshDirectory("walden-demo-");
        requireEmpty(directory);
        System.out.printf(
                "Walden demo: %,d records of %d bytes from %d threads in %s%n",
                recordCount, recordBytes, threadCount, directory);
        try {
            return runIn(WalConfig.builder(directory).build(), recordCount, threadCount, recordBytes) ? 0 : 1;
        } finally {
            if (args.flag("keep")) {
                System.out.println("kept the log in " + directory);
            } else {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    private static boolean runIn(
            final WalConfig config, final int recordCount, final int threadCount, final int recordBytes) {
        final long[] lsns = new long[recordCount];
        final Wal writer = Wal.open(config);
        final boolean appended;
        final long closeStartNs;
        try {
            System.out.println("open:     " + writer.recoveryReport().summary());
            appended = appendAll(writer, lsns, threadCount, recordBytes);
        } finally {
            closeStartNs = System.nanoTime();
            writer.close();
        }
        if (!appended) {
            return false;
        }
        System.out.printf("closed in %.1f ms (drain and final sync)%n", (System.nanoTime() - closeStartNs) / 1e6);
        StatsText.print(writer.stats());
        try (Wal wal = Wal.open(config)) {
            final RecoveryReport report = wal.recoveryReport();
            System.out.println("reopened: " + report.summary());
            final Verifier verifier = new Verifier(lsns, threadCount, recordBytes);
            final long verifyStartNs = System.nanoTime();
            try (WalReader reader = wal.reader(wal.startPosition())) {
                reader.replay(verifier);
            }
            final double verifySeconds = (System.nanoTime() - verifyStartNs) / 1e9;
            if (report.records() != recordCount) {
                verifier.error("recovery found " + report.records() + " records, expected " + recordCount);
            }
            return verifier.finish(verifySeconds);
        }
    }

    private static boolean appendAll(final Wal wal, final long[] lsns, final int threadCount, final int recordBytes) {
        final Appender[] appenders = new Appender[threadCount];
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[threadCount];
        for (int t = 0; t < threadCount; t++) {
            appenders[t] = new Appender(wal, lsns, t, threadCount, recordBytes, start, failure);
            threads[t] = new Thread(appenders[t], "demo-appender-" + t);
            threads[t].start();
        }
        final long startNs = System.nanoTime();
        start.countDown();
        joinAll(threads);
        final long elapsedNs = System.nanoTime() - startNs;
        if (failure.get() != null) {
            System.out.println("FAILED: an append failed: " + failure.get());
            failure.get().printStackTrace(System.out);
            return false;
        }
        final double seconds = elapsedNs / 1e9;
        System.out.printf(
                "appended %,d records in %.3f s: %,.0f appends/s, %.1f MB/s of payload%n",
                lsns.length, seconds, lsns.length / seconds, (double) lsns.length * recordBytes / seconds / 1e6);
        for (final Durability durability : Durability.values()) {
            final Histogram merged = new Histogram(3);
            for (final Appender appender : appenders) {
                merged.add(appender.latencies[durability.ordinal()]);
            }
            printLatency(durability, merged);
        }
        return true;
    }

    private static void joinAll(final Thread[] threads) {
        for (final Thread thread : threads) {
            try {
                thread.join();
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the appenders", ex);
            }
        }
    }

    private static void printLatency(final Durability durability, final Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return;
        }
        System.out.printf(
                "  %-8s append latency (%,d): p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us%n",
                durability,
                histogram.getTotalCount(),
                histogram.getValueAtPercentile(50) / 1e3,
                histogram.getValueAtPercentile(99) / 1e3,
                histogram.getValueAtPercentile(99.9) / 1e3,
                histogram.getMaxValue() / 1e3);
    }

    private static void requireEmpty(final Path directory) {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException(
                        "demo: --dir " + directory + " is not empty; the demo needs a new log to verify");
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The durability of record {@code id}: every 1000th SYNCED, every 10th WRITTEN, else BUFFERED. */
    static Durability durability(final long id) {
        if (id % 1000 == 999) {
            return Durability.SYNCED;
        }
        return id % 10 == 9 ? Durability.WRITTEN : Durability.BUFFERED;
    }

    /** Byte {@code index} (at least {@link #ID_BYTES}) of record {@code id}'s payload. */
    static byte contentByte(final long id, final int index) {
        final long mixed = (id + 1) * 0x9E3779B97F4A7C15L;
        return (byte) ((mixed >>> ((index & 7) << 3)) ^ index);
    }

    /** Appends every {@code threadCount}-th record, starting at its own index. */
    private static final class Appender implements Runnable {
        private final Wal wal;
        private final long[] lsns;
        private final int threadIndex;
        private final int threadCount;
        private final int recordBytes;
        private final CountDownLatch start;
        private final AtomicReference<Throwable> failure;
        private final Histogram[] latencies = new Histogram[Durability.values().length];

        Appender(
                final Wal wal,
                final long[] lsns,
                final int threadIndex,
                final int threadCount,
                final int recordBytes,
                final CountDownLatch start,
                final AtomicReference<Throwable> failure) {
            this.wal = wal;
            this.lsns = lsns;
            this.threadIndex = threadIndex;
            this.threadCount = threadCount;
            this.recordBytes = recordBytes;
            this.start = start;
            this.failure = failure;
            for (int i = 0; i < latencies.length; i++) {
                latencies[i] = new Histogram(3);
            }
        }

        @Override
        public void run() {
            final byte[] payload = new byte[recordBytes];
            final UnsafeBuffer view = new UnsafeBuffer(payload);
            try {
                start.await();
                for (int id = threadIndex; id < lsns.length && failure.get() == null; id += threadCount) {
                    view.putLong(0, id, ByteOrder.LITTLE_ENDIAN);
                    for (int i = ID_BYTES; i < recordBytes; i++) {
                        payload[i] = contentByte(id, i);
                    }
                    final Durability durability = durability(id);
                    final long startNs = System.nanoTime();
                    lsns[id] = wal.append(payload, durability);
                    latencies[durability.ordinal()].recordValue(System.nanoTime() - startNs);
                }
            } catch (final Throwable ex) {
                failure.compareAndSet(null, ex);
            }
        }
    }

    /** Checks each record read back against what was appended. */
    private static final class Verifier implements RecordHandler {
        private final long[] lsns;
        private final int threadCount;
        private final int recordBytes;
        private final long[] nextIds;
        private long count;
        private long lastLsn = -1;
        private long errorCount;

        Verifier(final long[] lsns, final int threadCount, final int recordBytes) {
            this.lsns = lsns;
            this.threadCount = threadCount;
            this.recordBytes = recordBytes;
            this.nextIds = new long[threadCount];
            for (int t = 0; t < threadCount; t++) {
                nextIds[t] = t;
            }
        }

        @Override
        public void onRecord(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
            count++;
            if (lsn <= lastLsn) {
                error("record at LSN " + lsn + " follows LSN " + lastLsn);
            }
            lastLsn = lsn;
            if (length != recordBytes) {
                error("record at LSN " + lsn + " has " + length + " bytes, expected " + recordBytes);
                return;
            }
            final long id = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
            if (id < 0 || id >= lsns.length) {
                error("record at LSN " + lsn + " has id " + id + ", outside [0, " + lsns.length + ")");
                return;
            }
            final int thread = (int) (id % threadCount);
            if (id != nextIds[thread]) {
                error("record at LSN " + lsn + " has id " + id + "; thread " + thread + " appended id "
                        + nextIds[thread] + " next");
            }
            nextIds[thread] = id + threadCount;
            if (lsns[(int) id] != lsn) {
                error("record id " + id + " read at LSN " + lsn + " but its append returned " + lsns[(int) id]);
            }
            for (int i = ID_BYTES; i < length; i++) {
                if (buffer.getByte(offset + i) != contentByte(id, i)) {
                    error("record id " + id + " at LSN " + lsn + ": payload byte " + i + " differs");
                    return;
                }
            }
        }

        void error(final String message) {
            errorCount++;
            if (errorCount <= ERRORS_SHOWN_MAX) {
                System.out.println("  verification error: " + message);
            }
        }

        boolean finish(final double seconds) {
            if (count != lsns.length) {
                error("read " + count + " records, expected " + lsns.length);
            }
            if (errorCount == 0) {
                System.out.printf(
                        "verified %,d records (count, order, LSN, content) in %.3f s: PASSED%n", count, seconds);
                return true;
            }
            System.out.printf("verification FAILED: %,d error(s) in %,d records read%n", errorCount, count);
            return false;
        }
    }
}
