package io.walden.bench;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalStats;
import java.nio.ByteBuffer;
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
 * {@code BUFFERED} appends of a 128-byte record, from a pre-allocated Agrona buffer and from a
 * pre-allocated array, into an open log (64 MiB segments, 8 MiB buffer). Nothing on the benchmark
 * side allocates, so {@code -prof gc} shows what an append allocates: {@code gc.alloc.rate.norm}
 * should be 0 B/op (segment rolls allocate a few objects per 64 MiB, well under 0.1 B/op).
 *
 * <p>Appends outrun the disk, so in steady state the rate is bounded by how fast the I/O thread
 * writes and segments are prepared; whole segments behind the written position are deleted after
 * each iteration to bound disk use. The log is synced once, at the end of the trial.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh AppendBenchmark -prof gc
 * </pre>
 *
 * <p><b>Threading:</b> JMH's; the log is shared by all benchmark threads ({@code -t N}).
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
public class AppendBenchmark {
    /** Record payload size. */
    @Param({"128"})
    public int payloadBytes;

    /** Storage backend, see {@link BenchLogs#backend(String)}. */
    @Param({"nio"})
    public String backend;

    private Wal wal;
    private UnsafeBuffer directPayload;
    private byte[] arrayPayload;

    /** Opens the log and fills the payloads. */
    @Setup(Level.Trial)
    public void open() {
        wal = BenchLogs.open("walden-jmh-append-", backend);
        directPayload = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadBytes));
        arrayPayload = new byte[payloadBytes];
        for (int i = 0; i < payloadBytes; i++) {
            directPayload.putByte(i, (byte) i);
            arrayPayload[i] = (byte) i;
        }
    }

    /** Deletes the segments the last iteration filled, so that disk use stays bounded. */
    @TearDown(Level.Iteration)
    public void deleteWrittenSegments() {
        wal.truncateBefore(wal.writtenPosition());
    }

    /** Syncs once, prints the log's statistics, closes the log and deletes it. */
    @TearDown(Level.Trial)
    public void close() {
        wal.sync();
        final WalStats stats = wal.stats();
        BenchLogs.closeAndDelete(wal);
        System.out.println();
        StatsText.print(stats);
    }

    /**
     * Appends from a direct buffer.
     *
     * @return the LSN.
     */
    @Benchmark
    public long appendDirectBuffer() {
        return wal.append(directPayload, 0, payloadBytes, Durability.BUFFERED);
    }

    /**
     * Appends from an array.
     *
     * @return the LSN.
     */
    @Benchmark
    public long appendByteArray() {
        return wal.append(arrayPayload, 0, payloadBytes, Durability.BUFFERED);
    }
}
