package io.walden;

import io.walden.format.FrameDescriptor;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Records to append as one unit with {@link Wal#append(WalBatch, Durability)}, with one durability
 * level and one wait: after any crash, recovery keeps all of them or none, and no reader delivers some
 * of them without the rest.
 *
 * <p>A reusable builder: {@link #add} copies each record into the batch's own buffer, {@code append}
 * copies them into the log and records each one's LSN ({@link #lsn(int)}), and {@link #clear()} empties
 * it; once its buffers fit the largest batch a caller makes, reuse allocates nothing.
 *
 * <p>Size: the frames of a batch together (each record plus a 16-byte header, rounded up to 8 bytes,
 * {@link #framedBytes()}) may take at most what one record of {@link WalConfig#maxRecordBytes()} takes;
 * a larger batch is refused whole.
 *
 * <p><b>Threading:</b> not thread-safe; one thread fills and appends a batch at a time.
 */
public final class WalBatch {
    private static final int INITIAL_RECORDS = 16;

    private final ExpandableDirectByteBuffer payloads;
    private int[] offsets = new int[INITIAL_RECORDS];
    private int[] lengths = new int[INITIAL_RECORDS];
    private long[] lsns = new long[INITIAL_RECORDS];
    private int size;
    private int payloadBytes;
    private long framedBytes;
    private boolean appended;

    /** Creates an empty batch with a small buffer that grows as records are added. */
    public WalBatch() {
        this(4096);
    }

    /** @param initialCapacityBytes the payload bytes the empty batch holds before its buffer grows. */
    public WalBatch(final int initialCapacityBytes) {
        if (initialCapacityBytes < 0) {
            throw new IllegalArgumentException("initialCapacityBytes must not be negative: " + initialCapacityBytes);
        }
        this.payloads = new ExpandableDirectByteBuffer(Math.max(64, initialCapacityBytes));
    }

    /**
     * @param payload the record to add.
     * @return this batch.
     */
    public WalBatch add(final byte[] payload) {
        return add(payload, 0, payload.length);
    }

    /**
     * @param payload holds the record to add.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @return this batch.
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}.
     */
    public WalBatch add(final byte[] payload, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, payload.length);
        payloads.putBytes(reserve(length), payload, offset, length);
        return this;
    }

    /**
     * @param payload holds the record to add.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @return this batch.
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}.
     */
    public WalBatch add(final DirectBuffer payload, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        payloads.putBytes(reserve(length), payload, offset, length);
        return this;
    }

    /**
     * @param payload the record to add, from position to limit, which stay as they are.
     * @return this batch.
     */
    public WalBatch add(final ByteBuffer payload) {
        final int length = payload.remaining();
        payloads.putBytes(reserve(length), payload, payload.position(), length);
        return this;
    }

    /**
     * Empties the batch for reuse; its buffers keep their size.
     *
     * @return this batch.
     */
    public WalBatch clear() {
        size = 0;
        payloadBytes = 0;
        framedBytes = 0;
        appended = false;
        return this;
    }

    /** @return the number of records in the batch. */
    public int size() {
        return size;
    }

    /** @return whether the batch holds no record. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** @return the payload bytes of all records together. */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** @return the log space the batch takes in bytes: each record's frame, aligned (see the class comment). */
    public long framedBytes() {
        return framedBytes;
    }

    /**
     * @param index the record's index in the batch, from 0.
     * @return the LSN the last append of this batch gave the record.
     * @throws IllegalStateException if the batch was not appended since it was last changed.
     * @throws IndexOutOfBoundsException if there is no such record.
     */
    public long lsn(final int index) {
        Objects.checkIndex(index, size);
        if (!appended) {
            throw new IllegalStateException("the batch was not appended since records were last added to it");
        }
        return lsns[index];
    }

    /**
     * @param index the record's index in the batch, from 0.
     * @return the record's payload length.
     */
    public int length(final int index) {
        Objects.checkIndex(index, size);
        return lengths[index];
    }

    /**
     * Adds a record of {@code length} bytes that the caller writes itself, at the returned offset of
     * {@link #buffer()}: a layer that frames its own records (a header before the caller's bytes) builds
     * them in place, with no copy. The bytes there are undefined until written.
     *
     * @param length the record's length.
     * @return where the record's first byte goes in {@link #buffer()}.
     */
    public int claim(final int length) {
        final int offset = reserve(length);
        payloads.checkLimit(offset + length);
        return offset;
    }

    /**
     * The batch's memory: record {@code i} is {@link #length(int)} bytes at {@link #offset(int)}. A
     * record may be rewritten in place until the batch is appended; the buffer may be replaced by a
     * later {@link #claim} or {@code add}, so take it again after adding.
     *
     * @return the memory the records are held in.
     */
    public MutableDirectBuffer buffer() {
        return payloads;
    }

    /**
     * @param index the record's index in the batch, from 0.
     * @return where the record's first byte is in {@link #buffer()}.
     */
    public int offset(final int index) {
        Objects.checkIndex(index, size);
        return offsets[index];
    }

    DirectBuffer payloads() {
        return payloads;
    }

    /** Records the LSNs an append gave the records, the first at {@code firstLsn}. */
    void appendedAt(final long firstLsn) {
        appendedAt(firstLsn, lengths);
    }

    /** As {@link #appendedAt(long)}, for records stored with other lengths (some encoded), by index. */
    void appendedAt(final long firstLsn, final int[] storedLengths) {
        long lsn = firstLsn;
        for (int i = 0; i < size; i++) {
            lsns[i] = lsn;
            lsn += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(storedLengths[i]));
        }
        appended = true;
    }

    private int reserve(final int length) {
        if (length < 0) {
            throw new IllegalArgumentException("record length must not be negative: " + length);
        }
        if ((long) payloadBytes + length > Integer.MAX_VALUE - 8) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "a batch holds at most 2 GiB of records; append it in parts or as several batches");
        }
        if (size == offsets.length) {
            final int capacity = size * 2;
            offsets = Arrays.copyOf(offsets, capacity);
            lengths = Arrays.copyOf(lengths, capacity);
            lsns = Arrays.copyOf(lsns, capacity);
        }
        final int offset = payloadBytes;
        offsets[size] = offset;
        lengths[size] = length;
        size++;
        payloadBytes += length;
        framedBytes += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
        appended = false;
        return offset;
    }
}
