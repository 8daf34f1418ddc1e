package io.walden.bench;

import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding one frame as the write path does, by payload size: copy the payload into a direct
 * buffer after the header, fill the header fields, compute the frame's CRC32C with wal-core's
 * {@link FrameChecksum} (binding block plus frame, {@link java.util.zip.CRC32C}), store it, and
 * publish the length with an ordered store. The cost of framing and checksumming a record, apart
 * from claiming space and from I/O. {@code -prof gc} should show 0 B/op.
 *
 * <p>Uses {@code io.walden.format.FrameChecksum}, the checksum the writer seals frames with.
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh FrameEncodeBenchmark -prof gc
 * </pre>
 *
 * <p><b>Threading:</b> one benchmark thread; each thread has its own state.
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
public class FrameEncodeBenchmark {
    /** Payload size. */
    @Param({"0", "128", "1024", "4096", "65536"})
    public int payloadBytes;

    private UnsafeBuffer payload;
    private ByteBuffer frameBytes;
    private UnsafeBuffer frame;
    private FrameChecksum checksum;
    private long position;

    /** Allocates the payload and the frame buffer. */
    @Setup
    public void setUp() {
        payload = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, payloadBytes)));
        for (int i = 0; i < payloadBytes; i++) {
            payload.putByte(i, (byte) i);
        }
        frameBytes =
                ByteBuffer.allocateDirect(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadBytes)));
        frame = new UnsafeBuffer(frameBytes);
        checksum = new FrameChecksum(0x5EED_5EED_5EEDL);
        position = 4096;
    }

    /**
     * Encodes one frame at the next position.
     *
     * @return its checksum.
     */
    @Benchmark
    public int encode() {
        final int frameLength = FrameDescriptor.frameLength(payloadBytes);
        frame.putBytes(FrameDescriptor.HEADER_LENGTH, payload, 0, payloadBytes);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, FrameDescriptor.TYPE_DATA);
        frame.putShort(FrameDescriptor.FLAGS_OFFSET, (short) 0);
        frame.putInt(FrameDescriptor.DURABLE_OFFSET_OFFSET, 4096);
        final int crc = checksum.compute(frameBytes, 0, frameLength, position);
        frame.putInt(FrameDescriptor.CHECKSUM_OFFSET, crc);
        frame.putIntOrdered(FrameDescriptor.LENGTH_OFFSET, frameLength);
        position += FrameDescriptor.alignedLength(frameLength);
        return crc;
    }
}
