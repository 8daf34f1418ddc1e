package io.walden.bench;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalStats;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Durable appends of a 128-byte record: {@code append(.., SYNCED)}, which returns once an fdatasync
 * covers the record, and {@code append(.., BUFFERED)} followed by {@code await(lsn, WRITTEN)}, the
 * allocation-free wait for the write to reach the OS. Run with one thread and with sixteen, whose
 * ratio shows group commit:
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh SyncedAppendBenchmark -t 1
 *   java -jar bench/target/walden-bench.jar jmh SyncedAppendBenchmark -t 16
 * </pre>
 *
 * <p>At the end of each trial (fork) it prints the log's syncs and records per sync for each
 * iteration, warmups first, and the whole {@link WalStats}; {@code recordsPerSync} near the thread
 * count means the waiters shared their syncs. The statistics are only collected during the
 * iterations (one small snapshot object per iteration) and formatted afterwards, so that {@code
 * -prof gc} sees what the appends allocate.
 *
 * <p><b>Threading:</b> JMH's; the log is shared by all benchmark threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Dwalden.checks=false"})
@Threads(1)
public class SyncedAppendBenchmark {
    private static final int ITERATIONS_MAX = 1000;

    /** Record payload size. */
    @Param({"128"})
    public int payloadBytes;

    /** Storage backend, see {@link BenchLogs#backend(String)}. */
    @Param({"nio"})
    public String backend;

    private Wal wal;
    private UnsafeBuffer payload;
    private WalStats iterationStart;
    private final List<WalStats> iterationStarts = new ArrayList<>(ITERATIONS_MAX);
    private final List<WalStats> iterationEnds = new ArrayList<>(ITERATIONS_MAX);

    /** Opens the log and fills the payload. */
    @Setup(Level.Trial)
    public void open() {
        wal = BenchLogs.open("walden-jmh-synced-", backend);
        payload = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadBytes));
        for (int i = 0; i < payloadBytes; i++) {
            payload.putByte(i, (byte) i);
        }
    }

    /** Takes the statistics at the start of an iteration. */
    @Setup(Level.Iteration)
    public void iterationStart() {
        iterationStart = wal.stats();
    }

    /** Keeps the statistics at the end of an iteration; printed at the end of the trial. */
    @TearDown(Level.Iteration)
    public void iterationEnd() {
        if (iterationEnds.size() < ITERATIONS_MAX) {
            iterationStarts.add(iterationStart);
            iterationEnds.add(wal.stats());
        }
    }

    /** Prints what the log did in each iteration and in all, closes the log and deletes it. */
    @TearDown(Level.Trial)
    public void close() {
        final WalStats stats = wal.stats();
        BenchLogs.closeAndDelete(wal);
        System.out.println();
        for (int i = 0; i < iterationEnds.size(); i++) {
            System.out.println("iteration " + (i + 1) + " (warmups first): "
                    + StatsText.syncDelta(iterationStarts.get(i), iterationEnds.get(i)));
        }
        StatsText.print(stats);
    }

    /**
     * Appends and waits for the sync that covers the record.
     *
     * @return the LSN.
     */
    @Benchmark
    public long appendSynced() {
        return wal.append(payload, 0, payloadBytes, Durability.SYNCED);
    }

    /**
     * Appends and waits for the record to be written to the OS: a lone writer runs its own write.
     *
     * @return the LSN.
     */
    @Benchmark
    public long appendWritten() {
        return wal.append(payload, 0, payloadBytes, Durability.WRITTEN);
    }

    /**
     * Appends without waiting, then waits for the record to be written to the OS.
     *
     * @return the LSN.
     */
    @Benchmark
    public long appendBufferedAwaitWritten() {
        final long lsn = wal.append(payload, 0, payloadBytes, Durability.BUFFERED);
        wal.await(lsn, Durability.WRITTEN);
        return lsn;
    }
}
