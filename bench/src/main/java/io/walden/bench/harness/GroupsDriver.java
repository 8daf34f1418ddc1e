package io.walden.bench.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Runs the {@code groups} workload's writers against an open store, closed loop: each writer draws a
 * batch ({@link GroupsBatchPlan}), appends it, waits until it is durable and draws the next, through a
 * warm-up and then the measured window. A batch counts if it started and finished inside the window;
 * its latency (append to durable) goes into the writer's histogram. Around the window: the process's
 * CPU, allocation and JVM threads ({@link Probe}), the process's peak thread count as the kernel sees
 * it (native threads included, sampled every {@value #THREAD_SAMPLE_MS} ms), and the bytes the device
 * wrote from the window's start until the writers stopped and the file system was synced.
 *
 * <p><b>Threading:</b> {@link #run} on the calling thread, which starts and joins the writers.
 */
final class GroupsDriver {
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;
    private static final long JOIN_TIMEOUT_MS = 60_000;
    private static final long THREAD_SAMPLE_MS = 100;

    private final GroupsWorkload workload;
    private final Histogram[] histograms;
    private final long[] batches;
    private final long[] entriesAfterStart;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicReference<String> firstFailure = new AtomicReference<>("");
    private volatile int phase = WARMUP;
    private volatile int osThreadsPeak = -1;

    /**
     * What the writers did.
     *
     * @param batches batches that started and finished in the window.
     * @param p50Ns median latency of those batches, nanoseconds; 0 if none.
     * @param p99Ns 99th percentile.
     * @param p999Ns 99.9th percentile.
     * @param maxNs largest.
     * @param reading the process's readings over the window.
     * @param osThreadsPeak most threads of the process in the window, native ones included; -1 unknown.
     * @param payloadBytes payload of every batch that finished after the window started.
     * @param deviceBytes bytes the device wrote from the window's start to the end, synced; -1 unknown.
     * @param failures writers that stopped on an exception.
     * @param firstFailure the first such exception, or empty.
     */
    record Load(
            long batches,
            long p50Ns,
            long p99Ns,
            long p999Ns,
            long maxNs,
            Probe.Reading reading,
            int osThreadsPeak,
            long payloadBytes,
            long deviceBytes,
            int failures,
            String firstFailure) {}

    GroupsDriver(final GroupsWorkload workload) {
        this.workload = workload;
        this.histograms = new Histogram[workload.writers()];
        this.batches = new long[workload.writers()];
        this.entriesAfterStart = new long[workload.writers()];
    }

    /**
     * Runs the writers through the warm-up and the window, and stops them.
     *
     * @param store the open store.
     * @param directory the store's directory, whose file system is synced before the device is read.
     * @param device the device under it, or null to not count device bytes.
     * @param lastIndexes by group id, filled with the last index written to each group (0: none).
     * @return what was measured: figures only, so that nothing the run allocated stays reachable.
     * @throws InterruptedException if interrupted.
     */
    Load run(final GroupStore store, final Path directory, final BlockDevice device, final long[] lastIndexes)
            throws InterruptedException {
        final Thread[] threads = startWriters(store, lastIndexes);
        TimeUnit.MILLISECONDS.sleep(workload.warmupMs());
        final long deviceBefore = deviceBytes(device);
        final Probe probe = new Probe();
        final Thread sampler = startThreadSampler();
        probe.start();
        phase = MEASURE;
        TimeUnit.MILLISECONDS.sleep(workload.measureMs());
        phase = STOP;
        final Probe.Reading reading = probe.stop();
        sampler.join();
        join(threads);
        final long deviceBytes = deviceBytesAfter(device, deviceBefore, directory);
        final Histogram all = Measurement.newHistogram();
        long batchCount = 0;
        long entries = 0;
        for (int w = 0; w < threads.length; w++) {
            all.add(histograms[w]);
            batchCount += batches[w];
            entries += entriesAfterStart[w];
        }
        final boolean any = all.getTotalCount() > 0;
        return new Load(
                batchCount,
                any ? all.getValueAtPercentile(50) : 0,
                any ? all.getValueAtPercentile(99) : 0,
                any ? all.getValueAtPercentile(99.9) : 0,
                all.getMaxValue(),
                reading,
                osThreadsPeak,
                entries * workload.entryBytes(),
                deviceBytes,
                failures.get(),
                firstFailure.get());
    }

    private Thread[] startWriters(final GroupStore store, final long[] lastIndexes) {
        final Thread[] threads = new Thread[workload.writers()];
        for (int w = 0; w < threads.length; w++) {
            final int writer = w;
            histograms[w] = Measurement.newHistogram();
            threads[w] = new Thread(() -> loop(store, writer, lastIndexes), "groups-writer-" + w);
            threads[w].setDaemon(true);
        }
        System.gc();
        for (final Thread thread : threads) {
            thread.start();
        }
        return threads;
    }

    private void loop(final GroupStore store, final int writer, final long[] lastIndexes) {
        final GroupsBatchPlan plan = new GroupsBatchPlan(workload, writer);
        final Histogram histogram = histograms[writer];
        final int entries = plan.totalEntries();
        try {
            final GroupStore.Writer appender = store.writer(writer);
            while (true) {
                final int before = phase;
                if (before == STOP) {
                    return;
                }
                plan.next();
                final long startNs = System.nanoTime();
                appender.append(plan);
                final long endNs = System.nanoTime();
                if (before == MEASURE && phase == MEASURE) {
                    histogram.recordValue(Math.min(endNs - startNs, Measurement.HIGHEST_TRACKABLE_NS));
                    batches[writer]++;
                }
                if (phase != WARMUP) {
                    entriesAfterStart[writer] += entries;
                }
            }
        } catch (final Exception | Error ex) {
            failures.incrementAndGet();
            firstFailure.compareAndSet("", Thread.currentThread().getName() + ": " + ex);
        } finally {
            plan.lastIndexesInto(lastIndexes);
        }
    }

    private Thread startThreadSampler() {
        final Thread sampler = new Thread(
                () -> {
                    while (phase != STOP) {
                        osThreadsPeak = Math.max(osThreadsPeak, ProcessStatus.threads());
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(THREAD_SAMPLE_MS));
                    }
                },
                "groups-thread-sampler");
        sampler.setDaemon(true);
        sampler.start();
        return sampler;
    }

    private void join(final Thread[] threads) throws InterruptedException {
        for (final Thread thread : threads) {
            thread.join(JOIN_TIMEOUT_MS);
            if (thread.isAlive()) {
                failures.incrementAndGet();
                firstFailure.compareAndSet(
                        "", thread.getName() + " still blocked " + JOIN_TIMEOUT_MS + " ms after the end");
            }
        }
    }

    private static long deviceBytes(final BlockDevice device) {
        if (device == null) {
            return -1;
        }
        try {
            return device.bytesWritten();
        } catch (final IOException ex) {
            return -1;
        }
    }

    private static long deviceBytesAfter(final BlockDevice device, final long before, final Path directory)
            throws InterruptedException {
        if (before < 0) {
            return -1;
        }
        try {
            BlockDevice.syncFileSystem(directory);
            return device.bytesWritten() - before;
        } catch (final IOException ex) {
            return -1;
        }
    }
}
