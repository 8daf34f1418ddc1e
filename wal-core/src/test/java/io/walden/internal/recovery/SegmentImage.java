package io.walden.internal.recovery;

import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.SegmentHeaders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The bytes of one segment file as the log writes them, built for tests of recovery on images: a
 * header (log identity, capacity, base; optionally a clean close, a durability mark, a write limit and
 * the recycled and continued flags), then frames from the first frame offset on, each sealed with the
 * checksum that binds it to its position in this log ({@link FrameChecksum}, position = base + offset),
 * and damage or zeros where a test wants them. Each append starts at a cursor and moves it past what
 * it wrote; {@link #at} moves it anywhere.
 */
final class SegmentImage {
    /** Offset of a segment's first frame. */
    static final int FIRST = SegmentHeaderDescriptor.HEADER_LENGTH;
    /** The byte {@link #garbage} writes: read as a frame length, always an impossible one. */
    static final byte GARBAGE = (byte) 0xA5;
    /** Every payload byte: not zero, so that a frame's last byte is its last non-zero byte. */
    static final byte PAYLOAD = 0x5A;

    private final long logId;
    private final int capacity;
    private final long base;
    private final ByteBuffer bytes;
    private final FrameChecksum checksum;
    private int offset = FIRST;
    private int durableOffset = FIRST;

    /** A segment of a log whose header records nothing but who it belongs to, zeros after it. */
    SegmentImage(final long logId, final int capacity, final long base) {
        this.logId = logId;
        this.capacity = capacity;
        this.base = base;
        this.bytes = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
        this.checksum = new FrameChecksum(logId);
        SegmentHeaders.write(bytes, capacity, base, logId);
    }

    long base() {
        return base;
    }

    /** Where the next append starts. */
    int offset() {
        return offset;
    }

    /** Moves the cursor to an offset (8-byte aligned). */
    SegmentImage at(final int frameOffset) {
        offset = frameOffset;
        return this;
    }

    // ---- header ----

    /** The header records that the log closed cleanly at a position (in this segment). */
    SegmentImage cleanClose(final long position) {
        SegmentHeaders.writeState(bytes, position, true);
        return this;
    }

    /** The header records a durability mark: every position below it was synced. */
    SegmentImage durableMark(final long position) {
        SegmentHeaders.writeState(bytes, position, false);
        return this;
    }

    /** The header marks the file as recycled, its bytes at or past the write limit stale. */
    SegmentImage recycled(final int writeLimitOffset) {
        SegmentHeaders.writeRecycled(bytes, writeLimitOffset);
        return this;
    }

    /** The header records a write limit and whether the log went on into the next segment. */
    SegmentImage writeLimit(final int writeLimitOffset, final boolean continued) {
        SegmentHeaders.writeLimitAndContinued(bytes, writeLimitOffset, continued);
        return this;
    }

    /** The header records that the log went on into the next segment (the write limit kept). */
    SegmentImage continued() {
        return writeLimit(SegmentHeaderDecoder.writeLimitOffset(bytes), true);
    }

    /** Sets a header field of 4 bytes and seals the header again: a header a test shapes at will. */
    SegmentImage headerInt(final int fieldOffset, final int value) {
        bytes.putInt(fieldOffset, value);
        bytes.putInt(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET, SegmentHeaderDecoder.checksum(bytes));
        return this;
    }

    // ---- frames ----

    /** The frames appended from now on carry this durable offset (the first frame offset proves nothing). */
    SegmentImage durableOffset(final int frameDurableOffset) {
        durableOffset = frameDurableOffset;
        return this;
    }

    /** Complete records: one data frame per payload size, none of them flagged as going on. */
    SegmentImage data(final int... payloadSizes) {
        for (final int size : payloadSizes) {
            frame(FrameDescriptor.TYPE_DATA, (short) 0, size, logId, base + offset);
        }
        return this;
    }

    /** A complete batch: every frame but the last says that the batch goes on. */
    SegmentImage batch(final int... payloadSizes) {
        for (int i = 0; i < payloadSizes.length; i++) {
            final short flags = i < payloadSizes.length - 1 ? FrameDescriptor.FLAG_BATCH_CONTINUES : 0;
            frame(FrameDescriptor.TYPE_DATA, flags, payloadSizes[i], logId, base + offset);
        }
        return this;
    }

    /** The first frames of a batch, every one saying that the batch goes on. */
    SegmentImage openBatch(final int... payloadSizes) {
        for (final int size : payloadSizes) {
            frame(FrameDescriptor.TYPE_DATA, FrameDescriptor.FLAG_BATCH_CONTINUES, size, logId, base + offset);
        }
        return this;
    }

    /** One data frame that ends exactly at the capacity, flagged as going on or not. */
    SegmentImage dataToEnd(final boolean batchContinues) {
        final int payload = capacity - offset - FrameDescriptor.HEADER_LENGTH;
        final short flags = batchContinues ? FrameDescriptor.FLAG_BATCH_CONTINUES : 0;
        return frame(FrameDescriptor.TYPE_DATA, flags, payload, logId, base + offset);
    }

    /** A padding frame that fills the rest of the segment, as the writer closes a full segment. */
    SegmentImage padToEnd() {
        return padding(capacity - offset);
    }

    /** A padding frame of a length (a multiple of 8; a short padding frame if 8). */
    SegmentImage padding(final int length) {
        if (length == FrameDescriptor.SHORT_PADDING_LENGTH) {
            bytes.putInt(offset + FrameDescriptor.LENGTH_OFFSET, length);
            bytes.putInt(
                    offset + FrameDescriptor.CHECKSUM_OFFSET, checksum.compute(bytes, offset, length, base + offset));
            offset += length;
            return this;
        }
        return frame(
                FrameDescriptor.TYPE_PADDING, (short) 0, length - FrameDescriptor.HEADER_LENGTH, logId, base + offset);
    }

    /**
     * A data frame sealed as if for another log or another position: the checksum binds a frame to
     * both, so it does not validate here.
     */
    SegmentImage dataSealedFor(final long sealLogId, final long sealPosition, final int payloadSize) {
        return frame(FrameDescriptor.TYPE_DATA, (short) 0, payloadSize, sealLogId, sealPosition);
    }

    /** A discard frame, as recovery writes one, from the cursor to an offset (a block boundary or the capacity). */
    SegmentImage discard(final int endOffset) {
        DiscardFrames.write(bytes, offset, base + offset, offset, endOffset, logId);
        offset = endOffset;
        return this;
    }

    private SegmentImage frame(
            final short type, final short flags, final int payloadSize, final long sealLogId, final long sealPosition) {
        final int length = FrameDescriptor.frameLength(payloadSize);
        bytes.putInt(offset + FrameDescriptor.LENGTH_OFFSET, length);
        bytes.putShort(offset + FrameDescriptor.TYPE_OFFSET, type);
        bytes.putShort(offset + FrameDescriptor.FLAGS_OFFSET, flags);
        bytes.putInt(offset + FrameDescriptor.DURABLE_OFFSET_OFFSET, durableOffset);
        final byte fill = type == FrameDescriptor.TYPE_PADDING ? 0 : PAYLOAD;
        for (int i = FrameDescriptor.HEADER_LENGTH; i < length; i++) {
            bytes.put(offset + i, fill);
        }
        final FrameChecksum seal = sealLogId == logId ? checksum : new FrameChecksum(sealLogId);
        bytes.putInt(offset + FrameDescriptor.CHECKSUM_OFFSET, seal.compute(bytes, offset, length, sealPosition));
        offset += FrameDescriptor.alignedLength(length);
        return this;
    }

    // ---- damage and zeros ----

    /** Non-zero bytes that are no frame, at the cursor. */
    SegmentImage garbage(final int length) {
        for (int i = 0; i < length; i++) {
            bytes.put(offset + i, GARBAGE);
        }
        offset += length;
        return this;
    }

    /** Leaves bytes zero (never written), at the cursor. */
    SegmentImage zeros(final int length) {
        offset += length;
        return this;
    }

    /** Zeroes a range anywhere in the segment: bytes of a write that never reached the disk. */
    SegmentImage erase(final int fromOffset, final int toOffset) {
        for (int i = fromOffset; i < toOffset; i++) {
            bytes.put(i, (byte) 0);
        }
        return this;
    }

    /** Flips every bit of one byte anywhere in the segment: damage to what was written there. */
    SegmentImage flip(final int byteOffset) {
        bytes.put(byteOffset, (byte) ~bytes.get(byteOffset));
        return this;
    }

    /** Copies another image's bytes from an offset to the end over this one's: an earlier life's stale bytes. */
    SegmentImage stale(final SegmentImage earlier, final int fromOffset) {
        for (int i = fromOffset; i < capacity; i++) {
            bytes.put(i, earlier.bytes.get(i));
        }
        return this;
    }

    // ---- output ----

    /** The whole file's bytes. */
    byte[] bytes() {
        final byte[] copy = new byte[capacity];
        bytes.duplicate().clear().get(copy);
        return copy;
    }

    /** Writes the whole file into a directory under its segment name. */
    Path writeTo(final Path directory) throws IOException {
        return writeTo(directory, capacity);
    }

    /** Writes the file's first bytes into a directory under its segment name: a file cut short. */
    Path writeTo(final Path directory, final int size) throws IOException {
        final Path path = SegmentNames.segmentPath(directory, base);
        Files.write(path, Arrays.copyOf(bytes(), size));
        return path;
    }
}
