package io.walden.internal;

import static io.walden.format.FrameDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.LENGTH_OFFSET;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;
import static io.walden.format.FrameDescriptor.TYPE_SKIPPABLE_MASK;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads a segment file from its first frame and validates every frame, through a window of direct
 * memory filled with large positional reads.
 *
 * <p>Torn writes: segments are zero-filled and synced before use and a partially filled block is
 * only ever rewritten with identical leading bytes, so a write that a crash cut short leaves whole
 * 512-byte sectors as zeros where the frame had data. A bad frame that has such a zero sector, or a
 * zero length, is consistent with a torn write; a bad frame without one is corruption.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the recovering thread.
 */
final class SegmentScanner implements AutoCloseable {
    /** How a scan of a segment ended. */
    enum End {
        /** Valid frames fill the segment up to its capacity. */
        COMPLETE,
        /** A zero frame length: nothing was written from here. */
        ZEROS,
        /** A frame that does not validate. */
        INVALID
    }

    /**
     * The outcome of scanning one segment.
     *
     * @param end how it ended.
     * @param endOffset offset after the last valid frame.
     * @param records data frames validated.
     * @param payloadBytes their payload bytes.
     * @param problem what is wrong at {@code endOffset} when {@code end} is INVALID.
     * @param tornCompatible whether the invalid frame looks like a torn write.
     * @param skippedRanges pairs of [start, end) offsets skipped under the SKIP policy.
     */
    record Result(
            End end,
            long endOffset,
            long records,
            long payloadBytes,
            String problem,
            boolean tornCompatible,
            long[] skippedRanges) {}

    static final int SECTOR_BYTES = 512;
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    private final FrameChecksum checksum;
    private AlignedBuffer windowMemory;
    private ByteBuffer window;
    private FileChannel channel;
    private long windowFileOffset;
    private int windowLength;
    private long fileSize;

    SegmentScanner(final long logId, final int maxFrameBytes) {
        this.checksum = new FrameChecksum(logId);
        this.windowMemory = new AlignedBuffer(Math.max(WINDOW_BYTES, maxFrameBytes * 2));
        this.window = windowMemory.buffer();
    }

    /**
     * Scans one segment.
     *
     * @param path the segment file.
     * @param basePosition its base position.
     * @param capacityBytes its capacity.
     * @param skipCorrupt whether to skip invalid frames that are followed by valid ones.
     * @return the outcome.
     * @throws IOException if the file cannot be read.
     */
    Result scan(final Path path, final long basePosition, final long capacityBytes, final boolean skipCorrupt)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            channel = file;
            fileSize = Math.min(file.size(), capacityBytes);
            windowLength = 0;
            windowFileOffset = 0;
            long offset = SegmentHeaderDescriptor.HEADER_LENGTH;
            long records = 0;
            long payloadBytes = 0;
            final LongList skipped = new LongList();
            while (offset < capacityBytes) {
                final String problem = validate(offset, basePosition, capacityBytes);
                if (problem == null) {
                    final int frameLength = frameLength(offset);
                    if (frameLength >= HEADER_LENGTH && frameType(offset) == TYPE_DATA) {
                        records++;
                        payloadBytes += frameLength - HEADER_LENGTH;
                    }
                    offset += FrameDescriptor.alignedLength(frameLength);
                    continue;
                }
                if (problem.isEmpty()) {
                    return new Result(End.ZEROS, offset, records, payloadBytes, null, true, skipped.toArray());
                }
                final boolean torn = tornCompatible(offset, capacityBytes);
                if (skipCorrupt && !torn) {
                    final long next = findNextValid(offset, basePosition, capacityBytes);
                    if (next > 0) {
                        skipped.add(offset);
                        skipped.add(next);
                        offset = next;
                        continue;
                    }
                }
                return new Result(End.INVALID, offset, records, payloadBytes, problem, torn, skipped.toArray());
            }
            return new Result(End.COMPLETE, capacityBytes, records, payloadBytes, null, false, skipped.toArray());
        } finally {
            channel = null;
        }
    }

    /**
     * Validates the frame at an offset.
     *
     * @return null if valid, "" if the length is zero (nothing written), else the problem.
     */
    private String validate(final long offset, final long basePosition, final long capacityBytes) throws IOException {
        if (!ensure(offset, SHORT_PADDING_LENGTH)) {
            return "the file ends at " + fileSize + " before its capacity of " + capacityBytes;
        }
        final int frameLength = frameLength(offset);
        if (frameLength == 0) {
            // Unwritten, or a torn write that lost the length's sector: then the rest of that sector
            // is zero as well. A zero length with data beside it in its sector is damage.
            final int sectorRemaining = (int) Math.min(SECTOR_BYTES - (offset % SECTOR_BYTES), fileSize - offset);
            return ensure(offset, sectorRemaining) && isZero(index(offset), sectorRemaining)
                    ? ""
                    : "zero frame length with non-zero bytes after it in its sector";
        }
        if (frameLength != SHORT_PADDING_LENGTH
                && (frameLength < HEADER_LENGTH || frameLength > capacityBytes - offset)) {
            return "frame length " + frameLength + " is impossible here";
        }
        if (!ensure(offset, frameLength)) {
            return "frame of " + frameLength + " bytes runs past the end of the file";
        }
        final int stored = window.getInt(index(offset) + CHECKSUM_OFFSET);
        final int computed = checksum.compute(window, index(offset), frameLength, basePosition + offset);
        if (stored != computed) {
            return String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)", stored, computed);
        }
        if (frameLength >= HEADER_LENGTH) {
            final short type = frameType(offset);
            if (type != TYPE_DATA && type != TYPE_PADDING && (type & TYPE_SKIPPABLE_MASK) == 0) {
                return "unknown frame type " + type;
            }
        }
        final int gapOffset = nonZeroAlignmentGapByte(offset, frameLength);
        if (gapOffset >= 0) {
            return "non-zero byte at offset " + (offset + gapOffset) + " in the alignment gap after the frame,"
                    + " which the writer leaves zero";
        }
        return null;
    }

    /**
     * Finds damage in the 0 to 7 bytes between a frame's end and its aligned end: the checksum does not
     * cover them, and the writer always leaves them zero.
     *
     * @return the index of the first non-zero gap byte relative to the frame, or -1 if all are zero.
     */
    private int nonZeroAlignmentGapByte(final long offset, final int frameLength) throws IOException {
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        if (alignedLength == frameLength || !ensure(offset, alignedLength)) {
            return -1;
        }
        for (int i = frameLength; i < alignedLength; i++) {
            if (window.get(index(offset) + i) != 0) {
                return i;
            }
        }
        return -1;
    }

    private boolean tornCompatible(final long offset, final long capacityBytes) throws IOException {
        final int frameLength = frameLength(offset);
        if (frameLength != SHORT_PADDING_LENGTH
                && (frameLength < HEADER_LENGTH || frameLength > capacityBytes - offset)) {
            return false;
        }
        if (nonZeroAlignmentGapByte(offset, frameLength) >= 0) {
            // A torn write leaves old (zero) or new (zero) bytes in the gap, never anything else.
            return false;
        }
        final long end = Math.min(offset + frameLength, fileSize);
        long sectorStart = offset;
        while (sectorStart < end) {
            final long sectorEnd = Math.min(end, (sectorStart / SECTOR_BYTES + 1) * SECTOR_BYTES);
            if (!ensure(sectorStart, (int) (sectorEnd - sectorStart))) {
                return true;
            }
            if (isZero(index(sectorStart), (int) (sectorEnd - sectorStart))) {
                return true;
            }
            sectorStart = sectorEnd;
        }
        return end < offset + frameLength;
    }

    private long findNextValid(final long from, final long basePosition, final long capacityBytes) throws IOException {
        for (long offset = from + FrameDescriptor.FRAME_ALIGNMENT;
                offset < capacityBytes;
                offset += FrameDescriptor.FRAME_ALIGNMENT) {
            if (!ensure(offset, SHORT_PADDING_LENGTH)) {
                return -1;
            }
            final int frameLength = frameLength(offset);
            if (frameLength >= HEADER_LENGTH && validate(offset, basePosition, capacityBytes) == null) {
                return offset;
            }
        }
        return -1;
    }

    /**
     * Finds where non-zero bytes end in a range of the file.
     *
     * @param path the file.
     * @param fromOffset start of the range.
     * @param toOffset end of the range.
     * @return offset after the last non-zero byte, or {@code fromOffset} if all are zero.
     * @throws IOException if the file cannot be read.
     */
    long nonZeroEnd(final Path path, final long fromOffset, final long toOffset) throws IOException {
        long lastNonZeroEnd = fromOffset;
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            channel = file;
            fileSize = Math.min(file.size(), toOffset);
            windowLength = 0;
            long offset = fromOffset;
            while (offset < fileSize) {
                final int length = (int) Math.min(window.capacity(), fileSize - offset);
                ensure(offset, length);
                final int start = index(offset);
                int i = length;
                while (i >= 8 && window.getLong(start + i - 8) == 0) {
                    i -= 8;
                }
                while (i > 0 && window.get(start + i - 1) == 0) {
                    i--;
                }
                if (i > 0) {
                    lastNonZeroEnd = offset + i;
                }
                offset += length;
            }
        } finally {
            channel = null;
        }
        return lastNonZeroEnd;
    }

    private boolean isZero(final int index, final int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (window.getLong(index + i) != 0) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (window.get(index + i) != 0) {
                return false;
            }
        }
        return true;
    }

    private int frameLength(final long offset) {
        return window.getInt(index(offset) + LENGTH_OFFSET);
    }

    private short frameType(final long offset) {
        return window.getShort(index(offset) + TYPE_OFFSET);
    }

    private int index(final long offset) {
        return (int) (offset - windowFileOffset);
    }

    /** Makes [offset, offset + length) readable in the window; false if the file is shorter. */
    private boolean ensure(final long offset, final int length) throws IOException {
        if (offset + length > fileSize) {
            return false;
        }
        if (offset >= windowFileOffset && offset + length <= windowFileOffset + windowLength) {
            return true;
        }
        if (length > window.capacity()) {
            windowMemory.close();
            windowMemory = new AlignedBuffer(Integer.highestOneBit(length) * 2);
            window = windowMemory.buffer();
        }
        window.clear();
        final long readLength = Math.min(window.capacity(), fileSize - offset);
        window.limit((int) readLength);
        long position = offset;
        while (window.hasRemaining()) {
            final int read = channel.read(window, position);
            if (read < 0) {
                break;
            }
            position += read;
        }
        windowFileOffset = offset;
        windowLength = window.position();
        return offset + length <= windowFileOffset + windowLength;
    }

    @Override
    public void close() {
        windowMemory.close();
    }

    /** A growable list of longs. Cold path. */
    static final class LongList {
        private long[] values = new long[4];
        private int size;

        void add(final long value) {
            if (size == values.length) {
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return java.util.Arrays.copyOf(values, size);
        }
    }
}
