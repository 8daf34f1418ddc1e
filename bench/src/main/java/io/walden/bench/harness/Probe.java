package io.walden.bench.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Process-wide resource counters read at the start and the end of a measurement: CPU time of the
 * process, heap bytes allocated by every live thread except the probe's own, and the peak heap in
 * use and peak thread count in between (a sampler thread reads heap use every {@value
 * #SAMPLE_INTERVAL_MS} ms).
 *
 * <p>Allocation is summed over the threads alive at each reading, so a thread that ends during the
 * measurement loses its count; Walden's and the baselines' threads live as long as the scenario.
 *
 * <p><b>Threading:</b> {@link #start} and {@link #stop} by one thread.
 */
final class Probe {
    private static final long SAMPLE_INTERVAL_MS = 5;

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Thread sampler = new Thread(this::sample, "probe-sampler");
    private volatile boolean sampling;
    private volatile long heapPeakBytes;
    private long startNs;
    private long startCpuNs;
    private long startAllocatedBytes;

    /** Readings at the end of a measurement, relative to its start. */
    record Reading(double seconds, double cpuSeconds, long allocatedBytes, long heapPeakBytes, int peakThreads) {}

    /** Starts a measurement: takes the first readings and starts sampling heap use. */
    void start() {
        threads.resetPeakThreadCount();
        heapPeakBytes = memory.getHeapMemoryUsage().getUsed();
        sampling = true;
        sampler.setDaemon(true);
        sampler.start();
        startAllocatedBytes = allocatedBytes();
        startCpuNs = os.getProcessCpuTime();
        startNs = System.nanoTime();
    }

    /**
     * Ends the measurement.
     *
     * @return the readings.
     */
    Reading stop() {
        final long endNs = System.nanoTime();
        final long endCpuNs = os.getProcessCpuTime();
        final long endAllocatedBytes = allocatedBytes();
        sampling = false;
        LockSupport.unpark(sampler);
        try {
            sampler.join();
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return new Reading(
                (endNs - startNs) / 1e9,
                (endCpuNs - startCpuNs) / 1e9,
                endAllocatedBytes - startAllocatedBytes,
                heapPeakBytes,
                threads.getPeakThreadCount());
    }

    private long allocatedBytes() {
        final long self = Thread.currentThread().getId();
        final long samplerId = sampler.getId();
        long total = 0;
        for (final long id : threads.getAllThreadIds()) {
            if (id != self && id != samplerId) {
                final long bytes = threads.getThreadAllocatedBytes(id);
                if (bytes > 0) {
                    total += bytes;
                }
            }
        }
        return total;
    }

    private void sample() {
        while (sampling) {
            final long used = memory.getHeapMemoryUsage().getUsed();
            if (used > heapPeakBytes) {
                heapPeakBytes = used;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_INTERVAL_MS));
        }
    }
}
