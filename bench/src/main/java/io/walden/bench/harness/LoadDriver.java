package io.walden.bench.harness;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The closed-loop writer driver: N threads each append one record, wait for its acknowledgement,
 * and append the next, for a warm-up and then a measured interval. Each thread times every append
 * with {@code System.nanoTime()} into its own histogram (pre-allocated, so the loop allocates
 * nothing of its own); a record counts if it was appended and acknowledged inside the measured
 * interval.
 *
 * <pre>
 *   start writers --warm-up--> phase MEASURE, probe.start --measure--> phase STOP, probe.stop --> join
 * </pre>
 *
 * <p><b>Threading:</b> {@link #run} on the calling thread, which starts and joins the writers.
 */
final class LoadDriver {
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;
    private static final long JOIN_TIMEOUT_MS = 30_000;

    private volatile int phase = WARMUP;

    /**
     * Runs the writers against a target.
     *
     * @param target the opened target.
     * @param scenario writers, warm-up and measured duration.
     * @return what was measured.
     * @throws InterruptedException if interrupted.
     */
    Measurement run(final Target target, final Scenario scenario) throws InterruptedException {
        final int writers = scenario.writers();
        final Thread[] threads = new Thread[writers];
        final Histogram[] histograms = new Histogram[writers];
        final long[] counts = new long[writers];
        final AtomicInteger failures = new AtomicInteger();
        final AtomicReference<String> firstFailure = new AtomicReference<>("");
        for (int i = 0; i < writers; i++) {
            final int index = i;
            histograms[i] = Measurement.newHistogram();
            threads[i] = new Thread(
                    () -> {
                        try {
                            counts[index] = loop(target.appender(index), histograms[index]);
                        } catch (final Exception | Error ex) {
                            failures.incrementAndGet();
                            firstFailure.compareAndSet("", ex.toString());
                        }
                    },
                    "writer-" + i);
            threads[i].setDaemon(true);
        }
        System.gc();
        for (final Thread thread : threads) {
            thread.start();
        }
        TimeUnit.MILLISECONDS.sleep(scenario.warmupMs());
        final Probe probe = new Probe();
        final long syncsBefore = target.syncs();
        final double coveredBefore = target.recordsCoveredBySyncs();
        probe.start();
        phase = MEASURE;
        TimeUnit.MILLISECONDS.sleep(scenario.measureMs());
        phase = STOP;
        final Probe.Reading reading = probe.stop();
        final long syncsAfter = target.syncs();
        final double coveredAfter = target.recordsCoveredBySyncs();
        for (final Thread thread : threads) {
            thread.join(JOIN_TIMEOUT_MS);
            if (thread.isAlive()) {
                failures.incrementAndGet();
                firstFailure.compareAndSet(
                        "", thread.getName() + " still blocked " + JOIN_TIMEOUT_MS + " ms after the end");
            }
        }
        final Histogram all = Measurement.newHistogram();
        long records = 0;
        for (int i = 0; i < writers; i++) {
            all.add(histograms[i]);
            records += counts[i];
        }
        final long syncs = syncsBefore < 0 ? -1 : syncsAfter - syncsBefore;
        final double recordsPerSync =
                coveredBefore < 0 || syncs <= 0 ? Double.NaN : (coveredAfter - coveredBefore) / syncs;
        return new Measurement(records, all, reading, syncs, recordsPerSync, failures.get(), firstFailure.get());
    }

    private long loop(final Target.Appender appender, final Histogram histogram) throws Exception {
        long count = 0;
        while (true) {
            final int before = phase;
            if (before == STOP) {
                return count;
            }
            final long startNs = System.nanoTime();
            appender.append();
            final long endNs = System.nanoTime();
            if (before == MEASURE && phase == MEASURE) {
                histogram.recordValue(Math.min(endNs - startNs, Measurement.HIGHEST_TRACKABLE_NS));
                count++;
            }
        }
    }
}
