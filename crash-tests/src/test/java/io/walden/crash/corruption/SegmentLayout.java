package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The layout of one segment file, parsed straight from its bytes by the rules of {@code FORMAT.md}
 * (independently of wal-core's scanner): which area every byte belongs to, and at which frame.
 *
 * <p><b>Threading:</b> immutable.
 */
final class SegmentLayout {
    /** What a byte of a segment file is. */
    enum Area {
        /** Segment header bytes 0..63: magic, version, lengths, base, identity, reserved, checksum. */
        HEADER_FIELDS,
        /** Segment header bytes 64..4095: zero by the format. */
        HEADER_UNUSED,
        /** The 16-byte header of a data frame. */
        FRAME_HEADER,
        /** A data frame's payload. */
        PAYLOAD,
        /** The 1 to 7 bytes between a frame's end and the next 8-byte boundary: written as zeros. */
        ALIGNMENT_GAP,
        /** The 16-byte header of a padding frame. */
        PADDING_HEADER,
        /** The body of a padding frame: zeros, covered by its checksum. */
        PADDING_BODY,
        /** An 8-byte padding frame: length and checksum only. */
        SHORT_PADDING,
        /** Space after the last frame that was never written. */
        UNWRITTEN
    }

    /**
     * A run of bytes of one area.
     *
     * @param area the area.
     * @param startOffset first byte.
     * @param endOffset after the last byte.
     * @param frameOffset the frame the bytes belong to (the frame an alignment gap follows); zero
     *     for the segment header; -1 for unwritten space.
     */
    record Region(Area area, long startOffset, long endOffset, long frameOffset) {
        /** @return the region's length in bytes. */
        long lengthBytes() {
            return endOffset - startOffset;
        }
    }

    private final List<Region> regions;

    private SegmentLayout(final List<Region> regions) {
        this.regions = List.copyOf(regions);
    }

    /**
     * Parses a segment file and checks it against the records the log holds in it.
     *
     * @param bytes the whole file.
     * @param base its base position.
     * @param expected the records in it, in LSN order.
     * @return the layout.
     */
    static SegmentLayout parse(final byte[] bytes, final long base, final List<LogRecord> expected) {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final List<Region> regions = new ArrayList<>();
        final int headerFieldsEnd = SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4;
        regions.add(new Region(Area.HEADER_FIELDS, 0, headerFieldsEnd, 0));
        regions.add(new Region(Area.HEADER_UNUSED, headerFieldsEnd, SegmentHeaderDescriptor.HEADER_LENGTH, 0));
        assertEquals(SegmentHeaderDescriptor.MAGIC, buffer.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET));
        assertEquals(base, buffer.getLong(SegmentHeaderDescriptor.BASE_POSITION_OFFSET));
        assertTrue(isZero(bytes, headerFieldsEnd, SegmentHeaderDescriptor.HEADER_LENGTH), "unused header bytes");
        int recordIndex = 0;
        int offset = SegmentHeaderDescriptor.HEADER_LENGTH;
        while (offset < bytes.length) {
            final int frameLength = buffer.getInt(offset + FrameDescriptor.LENGTH_OFFSET);
            if (frameLength == 0) {
                assertTrue(isZero(bytes, offset, bytes.length), "a zero length is followed by zeros only");
                regions.add(new Region(Area.UNWRITTEN, offset, bytes.length, -1));
                break;
            }
            final int alignedLength = FrameDescriptor.alignedLength(frameLength);
            assertTrue(
                    (frameLength == FrameDescriptor.SHORT_PADDING_LENGTH
                                    || frameLength >= FrameDescriptor.HEADER_LENGTH)
                            && offset + alignedLength <= bytes.length,
                    "frame length " + frameLength + " at offset " + offset);
            if (frameLength == FrameDescriptor.SHORT_PADDING_LENGTH) {
                regions.add(new Region(Area.SHORT_PADDING, offset, offset + frameLength, offset));
            } else if (buffer.getShort(offset + FrameDescriptor.TYPE_OFFSET) == FrameDescriptor.TYPE_PADDING) {
                regions.add(new Region(Area.PADDING_HEADER, offset, offset + FrameDescriptor.HEADER_LENGTH, offset));
                if (frameLength > FrameDescriptor.HEADER_LENGTH) {
                    regions.add(new Region(
                            Area.PADDING_BODY, offset + FrameDescriptor.HEADER_LENGTH, offset + frameLength, offset));
                }
                assertTrue(isZero(bytes, offset + FrameDescriptor.HEADER_LENGTH, offset + frameLength), "padding");
            } else {
                assertEquals(FrameDescriptor.TYPE_DATA, buffer.getShort(offset + FrameDescriptor.TYPE_OFFSET));
                final LogRecord record = expected.get(recordIndex++);
                assertEquals(record.lsn(), base + offset, "position of the next record");
                assertArrayEquals(
                        record.payload(),
                        Arrays.copyOfRange(bytes, offset + FrameDescriptor.HEADER_LENGTH, offset + frameLength),
                        "payload of " + record);
                regions.add(new Region(Area.FRAME_HEADER, offset, offset + FrameDescriptor.HEADER_LENGTH, offset));
                if (frameLength > FrameDescriptor.HEADER_LENGTH) {
                    regions.add(new Region(
                            Area.PAYLOAD, offset + FrameDescriptor.HEADER_LENGTH, offset + frameLength, offset));
                }
            }
            if (alignedLength > frameLength) {
                assertTrue(isZero(bytes, offset + frameLength, offset + alignedLength), "alignment gap");
                regions.add(new Region(Area.ALIGNMENT_GAP, offset + frameLength, offset + alignedLength, offset));
            }
            offset += alignedLength;
        }
        assertEquals(expected.size(), recordIndex, "every record of the segment is in the file");
        return new SegmentLayout(regions);
    }

    /** @return the regions, in file order. */
    List<Region> regions() {
        return regions;
    }

    /**
     * The region holding a byte.
     *
     * @param offset a file offset.
     * @return its region.
     */
    Region regionAt(final long offset) {
        int low = 0;
        int high = regions.size() - 1;
        while (low < high) {
            final int middle = (low + high + 1) >>> 1;
            if (regions.get(middle).startOffset() <= offset) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        final Region region = regions.get(low);
        if (offset < region.startOffset() || offset >= region.endOffset()) {
            throw new IllegalArgumentException("offset " + offset + " is outside the segment");
        }
        return region;
    }

    /**
     * Bytes per area.
     *
     * @return the number of bytes of each area present.
     */
    Map<Area, Long> bytesPerArea() {
        final Map<Area, Long> bytes = new EnumMap<>(Area.class);
        for (final Region region : regions) {
            bytes.merge(region.area(), region.lengthBytes(), Long::sum);
        }
        return bytes;
    }

    private static boolean isZero(final byte[] bytes, final int from, final int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
