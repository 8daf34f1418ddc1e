package io.walden.bench;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.LogBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Appending into the log buffer alone, without I/O: producers claim space with a compare-and-set
 * on the tail, copy a {@code payloadBytes} record and publish it with an ordered store of the
 * length; one drain thread plays the I/O thread without writing: it scans published frames with
 * acquire loads, then zeroes and releases them. Two groups: {@code oneProducer} (1 producer + the
 * drain) and {@code twoProducers} (2 producers + the drain), so the claim's contention shows. The
 * {@code append} score is the rate of completed appends: a claim that finds the buffer full yields
 * and retries (up to {@value #MAX_YIELDS} times), as an append waits for the I/O thread (the trial prints how many claims found it
 * full); {@code drain} counts drain calls. {@code -prof gc} should show 0 B/op.
 *
 * <p>Uses wal-core's internal {@code LogBuffer}, which is not API: this benchmark follows it.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh LogBufferAppendBenchmark -prof gc
 * </pre>
 *
 * <p><b>Threading:</b> JMH groups; the buffer is shared within a group.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Dwalden.checks=false"})
public class LogBufferAppendBenchmark {
    private static final int BUFFER_BYTES = 1024 * 1024;
    private static final int SEGMENT_BYTES = 64 * 1024 * 1024;
    private static final int RELEASE_EVERY_BYTES = BUFFER_BYTES / 8;
    private static final int MAX_YIELDS = 10_000;

    /** Payload size. */
    @Param({"128"})
    public int payloadBytes;

    private LogBuffer logBuffer;
    private int alignedLength;
    private long scanned;
    private long released;
    private final java.util.concurrent.atomic.LongAdder backPressured = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder appended = new java.util.concurrent.atomic.LongAdder();

    /** Per-thread payload. */
    @State(Scope.Thread)
    public static class Payload {
        UnsafeBuffer bytes;

        /** Fills the payload. */
        @Setup
        public void setUp() {
            bytes = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        }
    }

    /** Allocates the buffer. */
    @Setup(Level.Trial)
    public void setUp() {
        final long start = SegmentHeaderDescriptor.HEADER_LENGTH;
        logBuffer = new LogBuffer(BUFFER_BYTES, SEGMENT_BYTES, start, start);
        alignedLength = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadBytes));
        scanned = start;
        released = start;
    }

    /** Prints how many claims found the buffer full, and frees the buffer. */
    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%nappended %,d, back-pressured claims %,d%n", appended.sum(), backPressured.sum());
        logBuffer.close();
    }

    /**
     * One producer's append.
     *
     * @param payload the thread's payload.
     * @return the position, or a negative claim result.
     */
    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public long append(final Payload payload) {
        return claimAndPublish(payload);
    }

    /**
     * One drain pass.
     *
     * @return frames drained.
     */
    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public int drain() {
        return drainPublished();
    }

    /**
     * One of two producers' append.
     *
     * @param payload the thread's payload.
     * @return the position, or a negative claim result.
     */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(2)
    public long appendTwo(final Payload payload) {
        return claimAndPublish(payload);
    }

    /**
     * One drain pass beside two producers.
     *
     * @return frames drained.
     */
    @Benchmark
    @Group("twoProducers")
    @GroupThreads(1)
    public int drainTwo() {
        return drainPublished();
    }

    private long claimAndPublish(final Payload payload) {
        long position = logBuffer.claim(alignedLength);
        // Full: wait for the drain, as an append waits for the I/O thread; bounded, because at the end
        // of an iteration the drain stops before the producers do.
        for (int tries = 0; position == LogBuffer.BACK_PRESSURED && tries < MAX_YIELDS; tries++) {
            backPressured.increment();
            Thread.yield();
            position = logBuffer.claim(alignedLength);
        }
        if (position < 0) {
            return position;
        }
        logBuffer.publish(position, payload.bytes, 0, payloadBytes);
        appended.increment();
        return position;
    }

    private int drainPublished() {
        int frames = 0;
        long position = scanned;
        while (frames < 1024) {
            if ((position & (SEGMENT_BYTES - 1)) == 0) {
                position += SegmentHeaderDescriptor.HEADER_LENGTH;
            }
            final int length = logBuffer.frameLengthAcquire(position);
            if (length == 0) {
                break;
            }
            position += FrameDescriptor.alignedLength(length);
            frames++;
        }
        scanned = position;
        if (position - released >= RELEASE_EVERY_BYTES || frames == 0) {
            logBuffer.release(position);
            released = position;
        }
        return frames;
    }
}
