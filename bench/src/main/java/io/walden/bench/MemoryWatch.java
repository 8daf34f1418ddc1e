package io.walden.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Watches heap and direct memory while a check runs: a sampler thread reads heap used and the
 * "direct" buffer pool every millisecond, and a GC notification listener records the heap left
 * after each collection (the live set), which sampling alone would overstate.
 *
 * <p><b>Threading:</b> {@link #start} and {@link #stop} by one thread; peaks are read after stop.
 */
final class MemoryWatch implements NotificationListener {
    private static final long SAMPLE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final BufferPoolMXBean directPool = directPool();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Thread sampler = new Thread(this::sample, "memory-watch");
    private volatile boolean running;
    private volatile long heapUsedPeakBytes;
    private volatile long heapAfterGcPeakBytes;
    private volatile long directUsedPeakBytes;
    private volatile long gcCount;

    /** Starts sampling and listening. */
    void start() {
        running = true;
        for (final GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(this, null, null);
                emitters.add(emitter);
            }
        }
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Stops sampling and listening, after one last sample. */
    void stop() {
        running = false;
        try {
            sampler.join();
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        for (final NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(this);
            } catch (final javax.management.ListenerNotFoundException ignored) {
                // Already gone: nothing to remove.
            }
        }
        sampleOnce();
    }

    /** @return the direct buffer pool's bytes in use now. */
    long directUsedBytes() {
        return directPool.getMemoryUsed();
    }

    long heapUsedPeakBytes() {
        return heapUsedPeakBytes;
    }

    long heapAfterGcPeakBytes() {
        return heapAfterGcPeakBytes;
    }

    long directUsedPeakBytes() {
        return directUsedPeakBytes;
    }

    long gcCount() {
        return gcCount;
    }

    @Override
    public void handleNotification(final Notification notification, final Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        final GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        long afterBytes = 0;
        for (final Map.Entry<String, MemoryUsage> pool :
                info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (isHeapPool(pool.getKey())) {
                afterBytes += pool.getValue().getUsed();
            }
        }
        gcCount = gcCount + 1;
        if (afterBytes > heapAfterGcPeakBytes) {
            heapAfterGcPeakBytes = afterBytes;
        }
    }

    private void sample() {
        while (running) {
            sampleOnce();
            LockSupport.parkNanos(SAMPLE_INTERVAL_NS);
        }
    }

    private void sampleOnce() {
        final long heapBytes = memory.getHeapMemoryUsage().getUsed();
        if (heapBytes > heapUsedPeakBytes) {
            heapUsedPeakBytes = heapBytes;
        }
        final long directBytes = directPool.getMemoryUsed();
        if (directBytes > directUsedPeakBytes) {
            directUsedPeakBytes = directBytes;
        }
    }

    private static boolean isHeapPool(final String name) {
        for (final java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().equals(name)) {
                return pool.getType() == MemoryType.HEAP;
            }
        }
        return false;
    }

    private static BufferPoolMXBean directPool() {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                return pool;
            }
        }
        throw new IllegalStateException("this JVM reports no 'direct' buffer pool");
    }
}
