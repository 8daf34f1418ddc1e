package io.walden.bench;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.nio.NioStorageBackend;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Shows that memory stays bounded when the disk is slower than the writers: 32 threads append as
 * fast as they can into an 8 MiB log buffer while the backend acknowledges writes at 1 MB/s, in a
 * JVM with a 64 MiB heap. Appends wait for space and fail with {@code BACK_PRESSURE_TIMEOUT} after
 * the append timeout; heap and direct memory must stay within bounds, with no OutOfMemoryError.
 *
 * <p>Unless {@code --no-fork} is given, the check runs in a child JVM started with {@code -Xmx64m}
 * and this JVM returns the child's status.
 *
 * <p>Direct memory bound: {@code bufferCapacityBytes} (the log buffer) + {@value
 * #PREPARATION_ZERO_BLOCK_BYTES} (the segment preparation zero block) + the 4 KiB segment header block +
 * 4 KiB alignment slack for each of those three + {@value #FIXED_OVERHEAD_BYTES} bytes for the JDK's
 * own temporary buffers; measured as the peak of the "direct" buffer pool minus its value before
 * the log opened.
 *
 * <p><b>Threading:</b> {@link #run} on the main thread, which starts the appenders.
 */
final class BackpressureCheck {
    /**
     * The segment preparation zero block a log holds: 16 KiB at most (with io_uring; 4 KiB with
     * FileChannel), as the README's memory bound says.
     */
    private static final int PREPARATION_ZERO_BLOCK_BYTES = 16 * 1024;

    private static final List<String> VALUE_OPTIONS =
            List.of("dir", "seconds", "threads", "rate-bytes-per-second", "buffer-bytes", "timeout-ms", "record-bytes");
    private static final List<String> FLAG_OPTIONS = List.of("keep", "no-fork");
    private static final long HEAP_LIMIT_BYTES = 64L * 1024 * 1024;
    private static final int ALIGNMENT_SLACK_BYTES = 4096;
    private static final int FIXED_OVERHEAD_BYTES = 64 * 1024;
    private static final String IO_THREAD_NAME_PREFIX = "walden-io-";
    private static final long PROGRESS_INTERVAL_NS = TimeUnit.SECONDS.toNanos(3);

    private BackpressureCheck() {}

    /**
     * Runs the check, in a child JVM with a 64 MiB heap unless {@code --no-fork}.
     *
     * @param arguments the options.
     * @return 0 if memory stayed bounded, non-zero otherwise.
     */
    static int run(final String[] arguments) {
        final Args args = Args.parse("backpressure", arguments, VALUE_OPTIONS, FLAG_OPTIONS);
        if (!args.flag("no-fork")) {
            return runChild(arguments);
        }
        final long maxHeapBytes = Runtime.getRuntime().maxMemory();
        if (maxHeapBytes > HEAP_LIMIT_BYTES) {
            System.out.println("backpressure: this JVM's heap limit is " + BenchFiles.mib(maxHeapBytes)
                    + "; run it with -Xmx64m, or without --no-fork so that it starts such a JVM itself");
            return 2;
        }
        final Settings settings = new Settings(args);
        final String dirOption = args.string("dir", null);
        final Path directory =
                dirOption != null ? Path.of(dirOption) : BenchFiles.freshDirectory("walden-backpressure-");
        try {
            return check(settings, directory);
        } catch (final OutOfMemoryError ex) {
            System.out.println("FAILED: OutOfMemoryError: " + ex.getMessage());
            return 1;
        } finally {
            if (args.flag("keep")) {
                System.out.println("kept the log in " + directory);
            } else {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    private static int runChild(final String[] arguments) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.add("backpressure");
        command.addAll(List.of(arguments));
        command.add("--no-fork");
        System.out.println("starting the check in a child JVM: " + String.join(" ", command));
        try {
            final Process child = new ProcessBuilder(command).inheritIO().start();
            return child.waitFor();
        } catch (final IOException ex) {
            System.out.println("FAILED: cannot start the child JVM: " + ex);
            return 1;
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static int check(final Settings settings, final Path directory) {
        final ThrottledStorageBackend backend =
                new ThrottledStorageBackend(new NioStorageBackend(), settings.rateBytesPerSecond);
        final WalConfig config = WalConfig.builder(directory)
                .backend(backend)
                .bufferCapacityBytes(settings.bufferBytes)
                .appendTimeoutNs(TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs))
                .build();
        settings.print(directory);
        final MemoryWatch watch = new MemoryWatch();
        final long directBaselineBytes = watch.directUsedBytes();
        watch.start();
        final Outcome outcome = new Outcome();
        final long closeNs;
        final Wal wal = Wal.open(config);
        try {
            backend.throttled(true);
            final long bytesBefore = backend.bytesCompleted();
            final long ioCpuBeforeNs = ioThreadCpuNs();
            final double seconds = appendUntilDeadline(wal, settings, outcome, watch);
            final long ioCpuNs = ioThreadCpuNs() - ioCpuBeforeNs;
            final long diskBytes = backend.bytesCompleted() - bytesBefore;
            System.out.printf(
                    "simulated disk: %,d bytes acknowledged in %.1f s = %.2f MB/s (log writes and segment"
                            + " preparation share it)%n",
                    diskBytes, seconds, diskBytes / seconds / 1e6);
            System.out.printf(
                    "Walden I/O thread CPU time while throttled: %.2f s in %.1f s (%.0f%% of a core)%n",
                    ioCpuNs / 1e9, seconds, ioCpuNs / 1e7 / seconds);
            StatsText.print(wal.stats());
        } finally {
            backend.throttled(false);
            final long closeStartNs = System.nanoTime();
            wal.close();
            closeNs = System.nanoTime() - closeStartNs;
        }
        watch.stop();
        System.out.printf("closed in %.1f ms with the throttle off (drains the full buffer)%n", closeNs / 1e6);
        return report(settings, outcome, watch, directBaselineBytes);
    }

    /** CPU time of the log's I/O thread(s), found by name; -1 if not measurable. */
    private static long ioThreadCpuNs() {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported()) {
            return -1;
        }
        long totalNs = 0;
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(IO_THREAD_NAME_PREFIX)) {
                totalNs += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return totalNs;
    }

    private static double appendUntilDeadline(
            final Wal wal, final Settings settings, final Outcome outcome, final MemoryWatch watch) {
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(settings.seconds);
        final Thread[] threads = new Thread[settings.threads];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> appendLoop(wal, settings, outcome, deadlineNs), "appender-" + t);
            threads[t].start();
        }
        long nextProgressNs = startNs + PROGRESS_INTERVAL_NS;
        for (final Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join(100);
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the appenders", ex);
                }
                if (System.nanoTime() >= nextProgressNs) {
                    nextProgressNs += PROGRESS_INTERVAL_NS;
                    System.out.printf(
                            "  %4.1f s: %,d appended, %,d timed out; heap used peak %s, direct used %s%n",
                            (System.nanoTime() - startNs) / 1e9,
                            outcome.completed.sum(),
                            outcome.timeouts.sum(),
                            BenchFiles.mib(watch.heapUsedPeakBytes()),
                            BenchFiles.mib(watch.directUsedBytes()));
                }
            }
        }
        return (System.nanoTime() - startNs) / 1e9;
    }

    private static void appendLoop(
            final Wal wal, final Settings settings, final Outcome outcome, final long deadlineNs) {
        final byte[] payload = new byte[settings.recordBytes];
        try {
            while (System.nanoTime() < deadlineNs) {
                try {
                    wal.append(payload, Durability.BUFFERED);
                    outcome.completed.increment();
                } catch (final WalException ex) {
                    if (ex.errorCode() == WalException.ErrorCode.BACK_PRESSURE_TIMEOUT) {
                        outcome.timeouts.increment();
                        outcome.timeoutExample.compareAndSet(null, ex.getMessage());
                    } else {
                        outcome.otherFailures.increment();
                        outcome.otherFailureExample.compareAndSet(null, ex.errorCode() + ": " + ex.getMessage());
                    }
                }
            }
        } catch (final OutOfMemoryError ex) {
            outcome.outOfMemory.set(true);
        } catch (final RuntimeException | Error ex) {
            outcome.otherFailures.increment();
            outcome.otherFailureExample.compareAndSet(null, ex.toString());
        }
    }

    private static int report(
            final Settings settings, final Outcome outcome, final MemoryWatch watch, final long directBaselineBytes) {
        final long directBoundBytes = (long) settings.bufferBytes
                + PREPARATION_ZERO_BLOCK_BYTES
                + SegmentHeaderDescriptor.HEADER_LENGTH
                + 3L * ALIGNMENT_SLACK_BYTES
                + FIXED_OVERHEAD_BYTES;
        final long directPeakBytes = watch.directUsedPeakBytes() - directBaselineBytes;
        System.out.printf(
                "appends: %,d completed, %,d failed with BACK_PRESSURE_TIMEOUT, %,d failed otherwise%n",
                outcome.completed.sum(), outcome.timeouts.sum(), outcome.otherFailures.sum());
        System.out.println("  example timeout: " + outcome.timeoutExample.get());
        if (outcome.otherFailureExample.get() != null) {
            System.out.println("  example other failure: " + outcome.otherFailureExample.get());
        }
        System.out.printf(
                "heap: limit %s, peak used (sampled every 1 ms) %s, peak live after GC %s, %d GCs%n",
                BenchFiles.mib(Runtime.getRuntime().maxMemory()),
                BenchFiles.mib(watch.heapUsedPeakBytes()),
                BenchFiles.mib(watch.heapAfterGcPeakBytes()),
                watch.gcCount());
        System.out.printf(
                "direct memory: before open %,d B, peak %,d B, peak minus before %,d B, bound %,d B"
                        + " (buffer %,d + preparation zero block %,d + header %,d + alignment 3 x %,d + fixed %,d),"
                        + " after close %,d B%n",
                directBaselineBytes,
                watch.directUsedPeakBytes(),
                directPeakBytes,
                directBoundBytes,
                settings.bufferBytes,
                PREPARATION_ZERO_BLOCK_BYTES,
                SegmentHeaderDescriptor.HEADER_LENGTH,
                ALIGNMENT_SLACK_BYTES,
                FIXED_OVERHEAD_BYTES,
                watch.directUsedBytes());
        return verdict(outcome, directPeakBytes, directBoundBytes);
    }

    private static int verdict(final Outcome outcome, final long directPeakBytes, final long directBoundBytes) {
        final List<String> problems = new ArrayList<>();
        if (outcome.outOfMemory.get()) {
            problems.add("an appender hit OutOfMemoryError");
        }
        if (directPeakBytes > directBoundBytes) {
            problems.add("direct memory " + directPeakBytes + " B exceeded the bound " + directBoundBytes + " B");
        }
        if (outcome.otherFailures.sum() > 0) {
            problems.add(outcome.otherFailures.sum() + " append(s) failed with something other than a timeout");
        }
        if (outcome.completed.sum() == 0) {
            problems.add("no append completed");
        }
        if (outcome.timeouts.sum() == 0) {
            System.out.println("note: no append timed out; the disk was not slower than the writers this time");
        }
        if (problems.isEmpty()) {
            System.out.println("backpressure check PASSED: no OutOfMemoryError, direct memory within its bound");
            return 0;
        }
        System.out.println("backpressure check FAILED: " + String.join("; ", problems));
        return 1;
    }

    /** The check's parameters. */
    private static final class Settings {
        final long seconds;
        final int threads;
        final long rateBytesPerSecond;
        final int bufferBytes;
        final long timeoutMs;
        final int recordBytes;

        Settings(final Args args) {
            seconds = args.number("seconds", 15);
            threads = Math.max(1, args.integer("threads", 32));
            rateBytesPerSecond = args.number("rate-bytes-per-second", 1_000_000);
            bufferBytes = args.integer("buffer-bytes", 8 * 1024 * 1024);
            timeoutMs = args.number("timeout-ms", 200);
            recordBytes = args.integer("record-bytes", 128);
        }

        void print(final Path directory) {
            System.out.printf(
                    "backpressure: %d appenders of %d-byte BUFFERED records for %d s; log buffer %s; disk"
                            + " throttled to %,d bytes/s; append timeout %d ms; heap limit %s; log in %s%n",
                    threads,
                    recordBytes,
                    seconds,
                    BenchFiles.mib(bufferBytes),
                    rateBytesPerSecond,
                    timeoutMs,
                    BenchFiles.mib(Runtime.getRuntime().maxMemory()),
                    directory);
        }
    }

    /** What the appenders saw. */
    private static final class Outcome {
        final LongAdder completed = new LongAdder();
        final LongAdder timeouts = new LongAdder();
        final LongAdder otherFailures = new LongAdder();
        final AtomicReference<String> timeoutExample = new AtomicReference<>();
        final AtomicReference<String> otherFailureExample = new AtomicReference<>();
        final AtomicBoolean outOfMemory = new AtomicBoolean();
    }
}
