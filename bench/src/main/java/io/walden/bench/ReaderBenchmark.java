package io.walden.bench;

import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.Wal;
import io.walden.WalReader;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading and decoding records with a {@link WalReader}: each operation is one record handed to the
 * handler after its frame's CRC32C was verified, from a synced log of {@value #LOG_MIB} MiB in the
 * page cache ({@code poll(handler, }{@value #BATCH}{@code )} per invocation). At the end of the log
 * the reader is reopened at the start, which allocates its read buffer once per pass (a fraction of a
 * byte per record). {@code -prof gc} shows what decoding allocates per record.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh ReaderBenchmark -prof gc
 * </pre>
 *
 * <p><b>Threading:</b> one benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Dwalden.checks=false"})
@Threads(1)
public class ReaderBenchmark {
    private static final int BATCH = 1000;
    private static final long LOG_MIB = 256;

    /** Record payload size. */
    @Param({"128", "4096"})
    public int payloadBytes;

    /** Storage backend the log is written with, see {@link BenchLogs#backend(String)}. */
    @Param({"nio"})
    public String backend;

    private Wal wal;
    private WalReader reader;
    private long sum;
    private final RecordHandler handler = this::onRecord;

    /** Builds and syncs the log, and opens the reader. */
    @Setup(Level.Trial)
    public void setUp() {
        wal = BenchLogs.open("walden-jmh-reader-", backend);
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadBytes));
        for (int i = 0; i < payloadBytes; i++) {
            payload.putByte(i, (byte) i);
        }
        while (wal.tailPosition() < LOG_MIB * 1024 * 1024) {
            wal.append(payload, 0, payloadBytes, Durability.BUFFERED);
        }
        wal.sync();
        reader = wal.reader(wal.startPosition());
    }

    /** Closes the reader and the log, and deletes it. */
    @TearDown(Level.Trial)
    public void tearDown() {
        reader.close();
        BenchLogs.closeAndDelete(wal);
    }

    /**
     * Reads up to {@value #BATCH} records.
     *
     * @return a sum over the records, so nothing is optimised away.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long read() {
        int delivered = reader.poll(handler, BATCH);
        if (delivered < BATCH) {
            reader.close();
            reader = wal.reader(wal.startPosition());
            delivered += reader.poll(handler, BATCH - delivered);
        }
        return sum + delivered;
    }

    private void onRecord(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
        sum += buffer.getByte(offset + length - 1) + lsn;
    }
}
