package io.walden.internal.state;

import static io.walden.format.FrameDescriptor.FLAGS_OFFSET;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.LENGTH_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The in-memory log buffer: a ring of page-aligned direct memory holding frames byte for byte as
 * they go to disk. The log position {@code p} lives at ring offset {@code p & (capacity - 1)}.
 *
 * <pre>
 *   log positions:  ... | lap k-1 | lap k: released ... scanned ... tail | free ...
 *   ring offsets:   0 ............................................ capacity
 * </pre>
 *
 * <p>Claiming: a producer reads the tail, checks that the claimed space is free (below {@code released
 * + capacity}), and moves the tail with one compare-and-set, which keeps claims exact: a timed-out
 * append leaves nothing behind. A frame never crosses the end of a lap (a multiple of the capacity):
 * the producer whose frame would cross claims the rest of the lap as padding and places its frame at
 * the next lap. Every segment end is a lap end (a segment holds whole laps), and there the frame moves
 * past the next segment's header.
 *
 * <p>Publishing: the producer copies the payload and header fields, then stores the frame length with
 * release semantics; the I/O thread loads it with acquire semantics, and only then fills in the durable
 * offset and the checksum. After a range is written the I/O thread zeroes it and only then moves {@code
 * released}, so unclaimed space always reads as zero length.
 *
 * <p><b>Threading:</b> {@link #claim} and the {@code publish*} methods are called by any producer
 * thread; {@link #release}, {@link #frameLengthAcquire} and the read accessors by the I/O thread.
 */
public final class LogBuffer implements AutoCloseable {
    /** Claim result: the buffer has no space now. */
    public static final long BACK_PRESSURED = -1;
    /** Claim result: the log no longer accepts appends. */
    public static final long CLOSED = -2;

    /** Longest range {@link #release} zeroes with stores of its own rather than with setMemory. */
    private static final int SMALL_ZERO_BYTES_MAX = 512;
    /** Set in the tail once the log stops accepting appends; the tail then never moves again. */
    static final long TAIL_CLOSED_FLAG = Long.MIN_VALUE;

    private static final VarHandle TAIL;
    private static final VarHandle RELEASED;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(LogBuffer.class, "tail", long.class);
            RELEASED = lookup.findVarHandle(LogBuffer.class, "releasedPosition", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final AlignedBuffer memory;
    private final ByteBuffer byteBuffer;
    private final UnsafeBuffer buffer;
    private final int capacityBytes;
    private final long capacityMask;
    private final long segmentMask;

    // Shared: producers compare-and-set; the close flag is set once by the closer or the I/O thread.
    @SuppressWarnings("unused")
    private volatile long tail;

    // Written by the holder of the I/O duty with release; read by producers with acquire.
    @SuppressWarnings("unused")
    private volatile long releasedPosition;

    public LogBuffer(
            final int capacityBytes,
            final int segmentCapacityBytes,
            final long tailPosition,
            final long releasedPosition) {
        Invariants.check(BitUtil.isPowerOfTwo(capacityBytes), "capacityBytes=%d", capacityBytes);
        Invariants.check(
                segmentCapacityBytes % capacityBytes == 0,
                "segmentCapacityBytes=%d capacityBytes=%d",
                segmentCapacityBytes,
                capacityBytes);
        this.memory = new AlignedBuffer(capacityBytes);
        this.byteBuffer = memory.buffer();
        this.buffer = new UnsafeBuffer(byteBuffer);
        this.capacityBytes = capacityBytes;
        this.capacityMask = capacityBytes - 1L;
        this.segmentMask = segmentCapacityBytes - 1L;
        Invariants.check(
                (tailPosition & segmentMask) == 0
                        || (tailPosition & segmentMask) >= SegmentHeaderDescriptor.HEADER_LENGTH,
                "tail %d inside a segment header",
                tailPosition);
        TAIL.setRelease(this, tailPosition);
        Invariants.check(
                releasedPosition <= tailPosition && tailPosition - releasedPosition < capacityBytes,
                "released %d tail %d",
                releasedPosition,
                tailPosition);
        RELEASED.setRelease(this, releasedPosition);
    }

    /** The claimed frame's position, or {@link #BACK_PRESSURED} or {@link #CLOSED}. */
    public long claim(final int alignedLength) {
        while (true) {
            final long tailValue = (long) TAIL.getVolatile(this);
            if (tailValue < 0) {
                return CLOSED;
            }
            final long lapEnd = (tailValue | capacityMask) + 1;
            long framePosition = tailValue;
            if ((tailValue & segmentMask) == 0) {
                framePosition = tailValue + SegmentHeaderDescriptor.HEADER_LENGTH;
            } else if (tailValue + alignedLength > lapEnd) {
                framePosition = (lapEnd & segmentMask) == 0 ? lapEnd + SegmentHeaderDescriptor.HEADER_LENGTH : lapEnd;
            }
            final long newTail = framePosition + alignedLength;
            if (newTail - (long) RELEASED.getAcquire(this) > capacityBytes) {
                return BACK_PRESSURED;
            }
            if (TAIL.compareAndSet(this, tailValue, newTail)) {
                if (framePosition != tailValue && (tailValue & segmentMask) != 0) {
                    publishPadding(tailValue, (int) (lapEnd - tailValue));
                }
                return framePosition;
            }
        }
    }

    /**
     * Pads the block the tail stands in, so the next claim starts on a block boundary: only if the tail
     * is still at {@code expectedTail} (all before it published) and the space is free. The duty holder
     * only.
     */
    public int padToBlockEnd(final long expectedTail, final int blockSizeBytes) {
        final long blockEnd = (expectedTail | (blockSizeBytes - 1L)) + 1;
        Invariants.check(
                (expectedTail & (blockSizeBytes - 1L)) != 0 && capacityBytes % blockSizeBytes == 0,
                "padding from %d to a block of %d",
                expectedTail,
                blockSizeBytes);
        if (blockEnd - (long) RELEASED.getAcquire(this) > capacityBytes
                || !TAIL.compareAndSet(this, expectedTail, blockEnd)) {
            return 0;
        }
        final int length = (int) (blockEnd - expectedTail);
        publishPadding(expectedTail, length);
        return length;
    }

    /** Copies a payload into a claimed frame and publishes it; so do the overloads below. */
    public void publish(final long position, final DirectBuffer source, final int offset, final int length) {
        final int frameOffset = offset(position);
        buffer.putBytes(frameOffset + HEADER_LENGTH, source, offset, length);
        publishHeader(frameOffset, length);
    }

    public void publish(final long position, final byte[] source, final int offset, final int length) {
        final int frameOffset = offset(position);
        buffer.putBytes(frameOffset + HEADER_LENGTH, source, offset, length);
        publishHeader(frameOffset, length);
    }

    /** As {@code publish}, with the frame's batch flag. */
    public void publishBatchRecord(
            final long position,
            final DirectBuffer source,
            final int offset,
            final int length,
            final boolean batchContinues) {
        publishWithFlags(position, source, offset, length, batchContinues ? FrameDescriptor.FLAG_BATCH_CONTINUES : 0);
    }

    /**
     * As {@code publish}, with flags: the batch flag, a codec id ({@link FrameDescriptor#FLAGS_CODEC_MASK})
     * for a payload stored encoded.
     */
    public void publishWithFlags(
            final long position, final DirectBuffer source, final int offset, final int length, final short flags) {
        final int frameOffset = offset(position);
        buffer.putBytes(frameOffset + HEADER_LENGTH, source, offset, length);
        if (flags != 0) {
            buffer.putShort(frameOffset + FLAGS_OFFSET, flags);
        }
        publishHeader(frameOffset, length);
    }

    public void publish(final long position, final ByteBuffer source) {
        final int frameOffset = offset(position);
        final int length = source.remaining();
        buffer.putBytes(frameOffset + HEADER_LENGTH, source, source.position(), length);
        publishHeader(frameOffset, length);
    }

    /** The type, then the length with release; flags stay zero (released space is zeroed). */
    private void publishHeader(final int frameOffset, final int payloadLength) {
        buffer.putShort(frameOffset + TYPE_OFFSET, TYPE_DATA);
        buffer.putIntOrdered(frameOffset + LENGTH_OFFSET, HEADER_LENGTH + payloadLength);
    }

    private void publishPadding(final long position, final int length) {
        final int frameOffset = offset(position);
        if (length >= HEADER_LENGTH) {
            buffer.putShort(frameOffset + TYPE_OFFSET, TYPE_PADDING);
        }
        buffer.putIntOrdered(frameOffset + LENGTH_OFFSET, length);
    }

    /** Stops further claims; idempotent. Returns the tail it stopped at. */
    public long closeTail() {
        while (true) {
            final long tailValue = (long) TAIL.getVolatile(this);
            if (tailValue < 0 || TAIL.compareAndSet(this, tailValue, tailValue | TAIL_CLOSED_FLAG)) {
                return tailValue & ~TAIL_CLOSED_FLAG;
            }
        }
    }

    /** The tail position: where the next claim starts, claimed frames being possibly unpublished. */
    public long tailPosition() {
        return (long) TAIL.getVolatile(this) & ~TAIL_CLOSED_FLAG;
    }

    public boolean isTailClosed() {
        return (long) TAIL.getVolatile(this) < 0;
    }

    /** Zeroes the ring up to a position and makes that space claimable again. The holder of the I/O duty only. */
    public void release(final long newReleasedPosition) {
        final long oldReleasedPosition = (long) RELEASED.getOpaque(this);
        Invariants.check(
                newReleasedPosition >= oldReleasedPosition,
                "release went back from %d to %d",
                oldReleasedPosition,
                newReleasedPosition);
        long position = oldReleasedPosition;
        while (position < newReleasedPosition) {
            final int offset = offset(position);
            final int length = (int) Math.min(newReleasedPosition - position, capacityBytes - offset);
            zero(offset, length);
            position += length;
        }
        RELEASED.setRelease(this, newReleasedPosition);
    }

    /**
     * Zeroes a range; short ones a long at a time, cheaper than setMemory for a lone writer's frame.
     */
    private void zero(final int offset, final int length) {
        if (length <= SMALL_ZERO_BYTES_MAX && ((offset | length) & (Long.BYTES - 1)) == 0) {
            for (int i = 0; i < length; i += Long.BYTES) {
                buffer.putLong(offset + i, 0L);
            }
        } else {
            buffer.setMemory(offset, length, (byte) 0);
        }
    }

    /** The frame length at a position, loaded with acquire semantics; zero if not published. */
    public int frameLengthAcquire(final long position) {
        return buffer.getIntVolatile(offset(position) + LENGTH_OFFSET);
    }

    public int offset(final long position) {
        return (int) (position & capacityMask);
    }

    /** The ring as an Agrona buffer. The holder of the I/O duty only. */
    public UnsafeBuffer buffer() {
        return buffer;
    }

    /** A new view of the ring for checksums; each user owns its view. */
    public ByteBuffer newByteBufferView() {
        return byteBuffer.duplicate();
    }

    public int capacityBytes() {
        return capacityBytes;
    }

    /** Frees the memory; no thread may touch the buffer afterwards. */
    @Override
    public void close() {
        memory.close();
    }
}
