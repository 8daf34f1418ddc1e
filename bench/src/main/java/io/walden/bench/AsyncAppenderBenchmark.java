package io.walden.bench;

import io.walden.AckHandler;
import io.walden.AsyncAppender;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalException;
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
 * One open-loop producer on an {@link AsyncAppender}: each operation appends a 128-byte record at
 * {@code SYNCED} (or {@code WRITTEN}) without waiting and polls the acknowledgements that are due,
 * retrying while the appender is back-pressured. With {@code -prof gc}, {@code gc.alloc.rate.norm}
 * is what one record costs in heap (the issue-41 bar: 0 B):
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh AsyncAppenderBenchmark -prof gc
 * </pre>
 *
 * <p><b>Threading:</b> JMH's, one benchmark thread, which owns the appender.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Dwalden.checks=false"})
@Threads(1)
public class AsyncAppenderBenchmark implements AckHandler {
    /** Record payload size. */
    @Param({"128"})
    public int payloadBytes;

    /** The level acknowledged. */
    @Param({"SYNCED", "WRITTEN"})
    public String durability;

    /** Storage backend, see {@link BenchLogs#backend(String)}. */
    @Param({"nio"})
    public String backend;

    private Wal wal;
    private AsyncAppender appender;
    private UnsafeBuffer payload;
    private Durability level;
    private long sequence;
    private long acknowledged;

    /** Opens the log and the appender, and fills the payload. */
    @Setup(Level.Trial)
    public void open() {
        wal = BenchLogs.open("walden-jmh-async-", backend);
        appender = wal.asyncAppender(16_384);
        level = Durability.valueOf(durability);
        payload = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadBytes));
        for (int i = 0; i < payloadBytes; i++) {
            payload.putByte(i, (byte) i);
        }
    }

    /** Closes the appender and the log, and deletes the log. */
    @TearDown(Level.Trial)
    public void close() {
        appender.close();
        BenchLogs.closeAndDelete(wal);
        System.out.println("acknowledged " + acknowledged + " of " + sequence + " records");
    }

    /**
     * Appends one record without waiting (polling while back-pressured) and polls what is due.
     *
     * @return the acknowledgements so far, so that nothing is optimised away.
     */
    @Benchmark
    public long appendAndPoll() {
        while (appender.append(payload, 0, payloadBytes, level, sequence) == Wal.BACK_PRESSURED) {
            if (appender.poll(this) == 0) {
                Thread.onSpinWait();
            }
        }
        sequence++;
        appender.poll(this);
        return acknowledged;
    }

    @Override
    public void acknowledged(final long lsn, final long tag) {
        acknowledged++;
    }

    @Override
    public void failed(final long lsn, final long tag, final WalException failure) {
        throw failure;
    }
}
