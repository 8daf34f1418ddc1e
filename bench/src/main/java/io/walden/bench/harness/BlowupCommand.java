package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.bench.BenchFiles;
import io.walden.bench.BenchLogs;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Reproduction of the memory blow-up of unbounded asynchronous writes, meant to run in a JVM with a
 * small heap ({@code -Xmx64m -XX:+ExitOnOutOfMemoryError}): writer threads submit 4 KiB records as
 * fast as they can to a file opened with O_DSYNC (every write goes to the device, so the disk is
 * slower than the writers), either through {@link AsynchronousFileChannel} (a new heap buffer per
 * record, {@code write(buffer, position, null, handler)} without waiting, with the JDK's default
 * cached thread pool or a fixed pool of four threads) or through Walden ({@code append(BUFFERED)}
 * into an 8 MiB log buffer, backend {@code nio-dsync}). Every {@value #STATUS_INTERVAL_MS} ms it
 * prints a {@value #STATUS_PREFIX} line with the peaks so far; the last line says how it ended.
 *
 * <p>For the machine's sake the run also stops once {@value #THREAD_LIMIT} threads are alive: the
 * default pool starts a thread for every write it cannot hand to an idle one.
 *
 * <p><b>Threading:</b> the main thread samples and prints; the writers submit.
 */
@Command(
        name = "blowup",
        hidden = true,
        description = "Unbounded asynchronous writes vs Walden under a small heap (used by 'run').")
public final class BlowupCommand implements Callable<Integer> {
    /** Prefix of the status lines. */
    public static final String STATUS_PREFIX = "@@BLOWUP ";
    /** Threads alive at which the run stops. */
    static final int THREAD_LIMIT = 2000;

    private static final long STATUS_INTERVAL_MS = 20;

    @Option(names = "--system", required = true, description = "asyncfilechannel or walden")
    String system;

    @Option(names = "--backend", defaultValue = Systems.AFC_DEFAULT_POOL)
    String backend;

    @Option(names = "--writers", defaultValue = "4")
    int writers;

    @Option(names = "--record-bytes", defaultValue = "4096")
    int recordBytes;

    @Option(names = "--seconds", defaultValue = "5")
    long seconds;

    @Option(names = "--dir")
    Path dir;

    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private volatile boolean running = true;
    private volatile String failure = "";

    @Override
    public Integer call() throws Exception {
        if (dir != null) {
            System.setProperty(BenchFiles.BASE_DIR_PROP_NAME, dir.toString());
        }
        final Path directory = BenchFiles.freshDirectory("walden-bench-blowup-");
        try {
            return Systems.WALDEN.equals(system) ? runWalden(directory) : runAsyncFileChannel(directory);
        } finally {
            BenchFiles.deleteRecursively(directory);
        }
    }

    private int runAsyncFileChannel(final Path directory) throws IOException, InterruptedException {
        final boolean fixed = Systems.AFC_FIXED_POOL.equals(backend);
        final ExecutorService pool = fixed ? Executors.newFixedThreadPool(4) : null;
        final Set<OpenOption> options =
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.DSYNC);
        final AsynchronousFileChannel channel =
                AsynchronousFileChannel.open(directory.resolve("log.dat"), options, pool);
        final AtomicLong position = new AtomicLong();
        final CompletionHandler<Integer, Void> handler = new CompletionHandler<>() {
            @Override
            public void completed(final Integer result, final Void attachment) {
                completed.incrementAndGet();
            }

            @Override
            public void failed(final Throwable ex, final Void attachment) {
                failure = ex.toString();
            }
        };
        final int exit = drive(() -> {
            final ByteBuffer record = ByteBuffer.allocate(recordBytes);
            record.put(0, (byte) 1);
            channel.write(record, position.getAndAdd(recordBytes), null, handler);
            submitted.incrementAndGet();
        });
        channel.close();
        if (pool != null) {
            pool.shutdownNow();
        }
        return exit;
    }

    private int runWalden(final Path directory) throws InterruptedException {
        final WalConfig config =
                WalConfig.builder(directory).backend(BenchLogs.backend(backend)).build();
        try (Wal wal = Wal.open(config)) {
            final ThreadLocal<UnsafeBuffer> payloads =
                    ThreadLocal.withInitial(() -> new UnsafeBuffer(ByteBuffer.allocateDirect(recordBytes)));
            final int exit = drive(() -> {
                wal.append(payloads.get(), 0, recordBytes, Durability.BUFFERED);
                submitted.incrementAndGet();
            });
            wal.sync();
            completed.set(wal.stats().appends());
            System.out.println(STATUS_PREFIX + "final completed=" + completed.get() + " buffer_bytes="
                    + config.bufferCapacityBytes());
            return exit;
        }
    }

    /** One submission by a writer. */
    @FunctionalInterface
    private interface Submit {
        void submit() throws Exception;
    }

    private int drive(final Submit submit) throws InterruptedException {
        final Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            threads[i] = new Thread(
                    () -> {
                        try {
                            while (running) {
                                submit.submit();
                            }
                        } catch (final Exception ex) {
                            failure = ex.toString();
                        }
                    },
                    "writer-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
        final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> "direct".equals(pool.getName()))
                .findFirst()
                .orElseThrow();
        final long startNs = System.nanoTime();
        final long endNs = startNs + TimeUnit.SECONDS.toNanos(seconds);
        long heapPeak = 0;
        long directPeak = 0;
        int threadPeak = 0;
        String outcome = "completed";
        status(startNs, heapPeak, directPeak, threadPeak, "running");
        while (System.nanoTime() < endNs) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STATUS_INTERVAL_MS));
            heapPeak = Math.max(heapPeak, memory.getHeapMemoryUsage().getUsed());
            directPeak = Math.max(directPeak, direct.getMemoryUsed());
            threadPeak = Math.max(threadPeak, threadBean.getThreadCount());
            status(startNs, heapPeak, directPeak, threadPeak, "running");
            if (threadPeak >= THREAD_LIMIT) {
                outcome = "stopped at " + THREAD_LIMIT + " threads";
                break;
            }
            if (!failure.isEmpty()) {
                outcome = "failed: " + failure;
                break;
            }
        }
        running = false;
        for (final Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(15));
        }
        status(startNs, heapPeak, directPeak, threadPeak, outcome);
        return "completed".equals(outcome) ? 0 : 4;
    }

    private void status(
            final long startNs,
            final long heapPeak,
            final long directPeak,
            final int threadPeak,
            final String outcome) {
        System.out.println(STATUS_PREFIX
                + String.format(
                        Locale.ROOT,
                        "elapsed_ms=%d submitted=%d completed=%d heap_peak_mb=%.1f direct_peak_mb=%.1f"
                                + " threads_peak=%d heap_max_mb=%.0f outcome=%s",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs),
                        submitted.get(),
                        completed.get(),
                        heapPeak / 1048576.0,
                        directPeak / 1048576.0,
                        threadPeak,
                        Runtime.getRuntime().maxMemory() / 1048576.0,
                        outcome));
    }
}
