package io.walden.internal.codec;

import io.walden.WalBatch;
import io.walden.codec.RecordCodec;
import io.walden.format.FrameDescriptor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One of a log's encoders, taken by an appending thread for one append: it encodes a record, or each
 * record of a batch, into its own buffer before the append claims space, and goes back to the pool
 * once the frames are published (before the append waits for its level).
 *
 * <pre>
 *   payload (heap: copied into input) ──► encoder ──► output [record 0 | record 2 | ...]
 *   storedLengths[i]: what record i takes stored; outputOffsets[i]: where it is in output, or PLAIN
 * </pre>
 *
 * <p>A record is kept encoded only where its frame takes less space than the record's own would; the
 * others are stored as given.
 *
 * <p><b>Threading:</b> owned by the appending thread between {@link RecordEncoding#acquire} and {@link
 * #release()}.
 */
public final class EncodeSlot implements AutoCloseable {
    /** {@link #outputOffset(int)} of a record stored as given. */
    public static final int PLAIN = -1;

    private static final VarHandle RECORDS;
    private static final VarHandle INPUT_BYTES;
    private static final VarHandle STORED_BYTES;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            RECORDS = lookup.findVarHandle(EncodeSlot.class, "recordsCompressed", long.class);
            INPUT_BYTES = lookup.findVarHandle(EncodeSlot.class, "compressedInputBytes", long.class);
            STORED_BYTES = lookup.findVarHandle(EncodeSlot.class, "compressedStoredBytes", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final RecordEncoding owner;
    private final RecordCodec.Encoder encoder;
    private final short codecFlags;
    private final int thresholdBytes;
    private final ScratchBuffer input;
    private final ScratchBuffer output;
    private final UnsafeBuffer source = new UnsafeBuffer(0, 0);
    private int[] storedLengths = new int[16];
    private int[] outputOffsets = new int[16];
    private WalBatch batch;
    private long framedBytes;
    private boolean held;
    // Written by the slot's holder (release stores), read by the stats from any thread.
    private long recordsCompressed;
    private long compressedInputBytes;
    private long compressedStoredBytes;

    EncodeSlot(
            final RecordEncoding owner, final RecordCodec codec, final int thresholdBytes, final int inputLimitBytes) {
        this.owner = owner;
        this.encoder = codec.newEncoder();
        this.codecFlags = FrameDescriptor.codecFlags(codec.id());
        this.thresholdBytes = thresholdBytes;
        this.input = new ScratchBuffer(inputLimitBytes);
        this.output = new ScratchBuffer(RecordEncoding.outputLimitBytes(codec, inputLimitBytes));
    }

    /**
     * Encodes one record of a byte array, a {@link ByteBuffer} (position to limit) or a {@link
     * DirectBuffer}.
     */
    boolean encode(final Object payload, final int offset, final int length) {
        batch = null;
        wrapSource(payload, offset, length);
        return encodeRecord(0, source, 0, length, 0) >= 0;
    }

    /**
     * Encodes each record of a batch at or above the threshold, in order, while the buffer has room for
     * the codec's bound of the next one.
     */
    long encode(final WalBatch records) {
        batch = records;
        final int size = records.size();
        if (storedLengths.length < size) {
            storedLengths = Arrays.copyOf(storedLengths, Math.max(size, 2 * storedLengths.length));
            outputOffsets = Arrays.copyOf(outputOffsets, storedLengths.length);
        }
        final DirectBuffer payloads = records.buffer();
        // Sized once for every encoding the batch may need: the buffer never grows under encodings made.
        long bounds = 0;
        for (int i = 0; i < size; i++) {
            if (records.length(i) >= thresholdBytes) {
                bounds += owner.maxEncodedLength(records.length(i));
            }
        }
        output.ensure((int) Math.min(owner.outputLimitBytes(), bounds));
        long framedBytes = 0;
        int used = 0;
        for (int i = 0; i < size; i++) {
            final int length = records.length(i);
            final int at = encodeRecord(i, payloads, records.offset(i), length, used);
            if (at >= 0) {
                used = at + storedLengths[i];
            }
            framedBytes += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(storedLengths[i]));
        }
        this.framedBytes = framedBytes;
        return framedBytes;
    }

    /** What the batch the last {@link RecordEncoding#encode} encoded takes framed, stored. */
    public long framedBytes() {
        return framedBytes;
    }

    /** The batch the last {@link RecordEncoding#encode} encoded, or null for a single record. */
    public WalBatch batch() {
        return batch;
    }

    /**
     */
    public int storedLength(final int index) {
        return storedLengths[index];
    }

    /**
     */
    public int outputOffset(final int index) {
        return outputOffsets[index];
    }

    /** The stored lengths of the records, by index (the array is the slot's own). */
    public int[] storedLengths() {
        return storedLengths;
    }

    /** The encodings. */
    public DirectBuffer output() {
        return output.ensure(1);
    }

    /** The frame flags that name the codec. */
    public short codecFlags() {
        return codecFlags;
    }

    /** Gives the slot back to the pool: once its frames are published, or the append gave up. */
    public void release() {
        if (held) {
            held = false;
            batch = null;
            owner.release(this);
        }
    }

    long recordsCompressed() {
        return (long) RECORDS.getAcquire(this);
    }

    long compressedInputBytes() {
        return (long) INPUT_BYTES.getAcquire(this);
    }

    long compressedStoredBytes() {
        return (long) STORED_BYTES.getAcquire(this);
    }

    void hold() {
        held = true;
    }

    @Override
    public void close() {
        encoder.close();
        input.close();
        output.close();
    }

    /**
     * Encodes record {@code index} at {@code at} of the output if it is long enough and there is room;
     * sets its stored length and output offset.
     */
    private int encodeRecord(
            final int index, final DirectBuffer payload, final int offset, final int length, final int at) {
        storedLengths[index] = length;
        outputOffsets[index] = PLAIN;
        if (length < thresholdBytes) {
            return -1;
        }
        final int bound = owner.maxEncodedLength(length);
        if ((long) at + bound > (at == 0 ? owner.outputLimitBytes() : output.capacityBytes())) {
            // No room left for this one without growing over the encodings made before it.
            return -1;
        }
        final UnsafeBuffer target = output.ensure(at + bound);
        final DirectBuffer from = direct(payload, offset, length);
        final int encodedLength = encoder.encode(from, 0, length, target, at, bound);
        if (FrameDescriptor.alignedLength(FrameDescriptor.frameLength(encodedLength))
                >= FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length))) {
            return -1;
        }
        storedLengths[index] = encodedLength;
        outputOffsets[index] = at;
        RECORDS.setRelease(this, recordsCompressed + 1);
        INPUT_BYTES.setRelease(this, compressedInputBytes + length);
        STORED_BYTES.setRelease(this, compressedStoredBytes + encodedLength);
        return at;
    }

    private void wrapSource(final Object payload, final int offset, final int length) {
        if (payload instanceof byte[] bytes) {
            input.ensure(length).putBytes(0, bytes, offset, length);
            source.wrap(input.ensure(length), 0, length);
        } else if (payload instanceof ByteBuffer byteBuffer) {
            final int length2 = byteBuffer.remaining();
            if (byteBuffer.isDirect()) {
                source.wrap(byteBuffer, byteBuffer.position(), length2);
            } else {
                input.ensure(length2).putBytes(0, byteBuffer, byteBuffer.position(), length2);
                source.wrap(input.ensure(length2), 0, length2);
            }
        } else {
            source.wrap((DirectBuffer) payload, offset, length);
        }
    }

    /** The payload as a view of a direct ByteBuffer, copied into the input buffer if it is not one. */
    private DirectBuffer direct(final DirectBuffer payload, final int offset, final int length) {
        final ByteBuffer backing = payload.byteBuffer();
        if (backing != null && backing.isDirect()) {
            if (payload == source && offset == 0) {
                return source;
            }
            source.wrap(payload, offset, length);
            return source;
        }
        final UnsafeBuffer copy = input.ensure(length);
        payload.getBytes(offset, copy, 0, length);
        source.wrap(copy, 0, length);
        return source;
    }
}
