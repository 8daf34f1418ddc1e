package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The floor of group commit on this machine, without Walden: what a perfect group commit could reach
 * if the only costs were one write, one {@code fdatasync} and the waking of the waiters.
 *
 * <p>A committer thread runs cycles. In each cycle it waits until every one of N waiter threads has
 * "appended" (incremented a counter), writes their records (144 B each, at most one 4 KiB block)
 * with one {@code pwrite},
 * calls {@code fdatasync} ({@code FileChannel.force(false)}), and releases them all by advancing a
 * generation. Each waiter then appends again and waits for the next generation. Every cycle is one
 * sync covering exactly N records, the best batching there is.
 *
 * <pre>
 *   committer: [wait for N arrivals] [pwrite] [fdatasync] [generation++, wake N] [wait ...]
 *   waiter i :  arrive ─────────────────────────────────── woken ─ arrive ─ wait ...
 * </pre>
 *
 * <p>Two ways of waiting are measured, for 1 and N waiters:
 *
 * <ul>
 *   <li>{@code park}: waiters park and the committer unparks each one ({@link LockSupport}); the
 *       committer parks while it waits for arrivals and the last arrival unparks it.
 *   <li>{@code yield}: waiters and the committer loop on {@link Thread#yield()}; nothing is unparked.
 * </ul>
 *
 * <p>The difference between the two is the cost of thread wake-ups on this machine, which is why
 * Walden's waiters yield for {@code WalConfig.waitYieldNs} before they block.
 *
 * <p><b>Threading:</b> the main thread is the committer; the waiters are daemon threads it starts.
 */
@Command(
        name = "wakefloor",
        mixinStandardHelpOptions = true,
        description = "Floor of group commit without Walden: one write + fdatasync per cycle, N waiters"
                + " woken per cycle, waiting by park/unpark or by yield.")
public final class WakeFloorCommand implements Callable<Integer> {
    private static final int BLOCK_BYTES = 4096;
    private static final int FRAME_BYTES = 144;
    private static final long FILE_BYTES = 64L << 20;
    private static final long WARMUP_NS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    @Option(names = "--writers", defaultValue = "16", description = "waiters per cycle (default 16)")
    int writers;

    @Option(names = "--measure-ms", defaultValue = "2500", description = "measured time per run (default 2500)")
    long measureMs;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds of the four runs (default 3)")
    int rounds;

    @Option(names = "--dir", description = "directory for the file; default a fresh one under target/")
    Path dir;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public WakeFloorCommand() {}

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (writers < 1 || measureMs < 1 || rounds < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--writers, --measure-ms and --rounds must be at least 1");
        }
        final Path directory = dir != null ? Files.createDirectories(dir) : BenchFiles.freshDirectory("wakefloor-");
        System.out.printf(
                Locale.ROOT,
                "one pwrite of the cycle's records (%d B each, at most %d B) + fdatasync per cycle, %d ms per run,"
                        + " in %s%n",
                FRAME_BYTES,
                BLOCK_BYTES,
                measureMs,
                directory);
        try {
            for (int round = 1; round <= rounds; round++) {
                for (final boolean yield : new boolean[] {false, true}) {
                    final Floor one = run(directory, 1, yield, measureMs);
                    final Floor many = run(directory, writers, yield, measureMs);
                    System.out.printf(
                            Locale.ROOT,
                            "round %d %-5s 1 waiter: %,8.0f records/s %6.1f us/record   %d waiters: %,9.0f records/s"
                                    + " %6.1f us/record   ratio %.2fx%n",
                            round,
                            yield ? "yield" : "park",
                            one.recordsPerSecond(),
                            one.cpuNsPerRecord() / 1e3,
                            writers,
                            many.recordsPerSecond(),
                            many.cpuNsPerRecord() / 1e3,
                            many.recordsPerSecond() / one.recordsPerSecond());
                }
            }
        } finally {
            if (dir == null) {
                BenchFiles.deleteRecursively(directory);
            }
        }
        return 0;
    }

    /**
     * One run's figures.
     *
     * @param recordsPerSecond waiters times cycles per second.
     * @param cpuNsPerRecord the process's processor time (every thread, user and kernel) per record.
     */
    record Floor(double recordsPerSecond, double cpuNsPerRecord) {}

    /**
     * Runs cycles for half a second of warm-up and then the measured time.
     *
     * @param directory where to create the file.
     * @param waiterCount waiters per cycle.
     * @param yield true to wait by yielding, false by parking.
     * @param measureMs the measured time.
     * @return records per second and processor time per record.
     * @throws IOException if the file cannot be written or synced.
     * @throws InterruptedException if interrupted while stopping the waiters.
     */
    static Floor run(final Path directory, final int waiterCount, final boolean yield, final long measureMs)
            throws IOException, InterruptedException {
        final Path file = directory.resolve("floor.dat");
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            preallocate(channel);
            final Cycle cycle = new Cycle(waiterCount, yield);
            final Thread[] waiters = new Thread[waiterCount];
            try {
                cycle.startWaiters(waiters);
                final ByteBuffer block = ByteBuffer.allocateDirect(BLOCK_BYTES);
                final int batchBytes = Math.min(BLOCK_BYTES, waiterCount * FRAME_BYTES);
                long position = 0;
                long cycles = 0;
                final long startNs = System.nanoTime();
                final long measureFromNs = startNs + WARMUP_NS;
                final long endNs = measureFromNs + TimeUnit.MILLISECONDS.toNanos(measureMs);
                long measuredCycles = -1;
                long measuredFromNs = 0;
                long measuredFromCpuNs = 0;
                long now = startNs;
                // At least one cycle is measured, however slow the disk.
                while (now < endNs || measuredCycles < 0 || cycles == measuredCycles) {
                    cycle.awaitArrivals();
                    block.clear().limit(batchBytes);
                    while (block.hasRemaining()) {
                        position += channel.write(block, position);
                    }
                    position = (position + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES % FILE_BYTES;
                    channel.force(false);
                    cycle.release(waiters);
                    cycles++;
                    now = System.nanoTime();
                    if (measuredCycles < 0 && now >= measureFromNs) {
                        measuredCycles = cycles;
                        measuredFromNs = now;
                        measuredFromCpuNs = OS.getProcessCpuTime();
                    }
                }
                final double cpuNs = OS.getProcessCpuTime() - measuredFromCpuNs;
                final double seconds = (now - measuredFromNs) / 1e9;
                final double records = (cycles - measuredCycles) * (double) waiterCount;
                return new Floor(records / seconds, cpuNs / records);
            } finally {
                cycle.stop(waiters);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void preallocate(final FileChannel channel) throws IOException {
        final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long offset = 0; offset < FILE_BYTES; offset += zeros.capacity()) {
            zeros.clear();
            while (zeros.hasRemaining()) {
                channel.write(zeros, offset + zeros.position());
            }
        }
        channel.force(true);
    }

    /**
     * The hand-off between the committer and its waiters.
     *
     * <p><b>Threading:</b> {@code generation} is written by the committer, {@code arrived} by all.
     */
    private static final class Cycle {
        private final int waiterCount;
        private final boolean yield;
        private final AtomicLong arrived = new AtomicLong();
        private final Thread committer = Thread.currentThread();
        private volatile long generation;
        private volatile boolean stopped;

        Cycle(final int waiterCount, final boolean yield) {
            this.waiterCount = waiterCount;
            this.yield = yield;
        }

        void startWaiters(final Thread[] waiters) {
            for (int i = 0; i < waiterCount; i++) {
                final Thread waiter = new Thread(this::waitLoop, "wakefloor-waiter-" + i);
                waiter.setDaemon(true);
                waiter.start();
                waiters[i] = waiter;
            }
        }

        private void waitLoop() {
            long seen = 0;
            while (!stopped) {
                if (arrived.incrementAndGet() == waiterCount && !yield) {
                    LockSupport.unpark(committer);
                }
                while (generation == seen && !stopped) {
                    if (yield) {
                        Thread.yield();
                    } else {
                        LockSupport.park(this);
                    }
                }
                seen = generation;
            }
        }

        void awaitArrivals() {
            while (arrived.get() < waiterCount) {
                if (yield) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            arrived.addAndGet(-waiterCount);
        }

        void release(final Thread[] waiters) {
            generation = generation + 1;
            if (!yield) {
                for (final Thread waiter : waiters) {
                    LockSupport.unpark(waiter);
                }
            }
        }

        void stop(final Thread[] waiters) throws InterruptedException {
            stopped = true;
            for (final Thread waiter : waiters) {
                if (waiter != null) {
                    LockSupport.unpark(waiter);
                    waiter.join(TimeUnit.SECONDS.toMillis(5));
                }
            }
        }
    }
}
