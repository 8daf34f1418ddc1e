package io.walden.internal;

import static io.walden.format.SegmentHeaderDescriptor.BASE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CAPACITY_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CHECKSUMMED_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAGS_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY;
import static io.walden.format.SegmentHeaderDescriptor.FORMAT_VERSION;
import static io.walden.format.SegmentHeaderDescriptor.FRAME_ALIGNMENT_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.LOG_ID_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.RESERVED_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.VERSION_OFFSET;

import io.walden.format.FrameDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.agrona.BitUtil;

/**
 * Writes and checks segment headers as {@link io.walden.format.SegmentHeaderDescriptor} lays them
 * out.
 *
 * <p>Public for the {@code walden} tool ({@code wal-tools}), which must judge headers exactly as
 * recovery does; not an API.
 *
 * <p><b>Threading:</b> stateless; safe from any thread.
 */
public final class SegmentHeaders {
    private SegmentHeaders() {}

    /** Format version of the logs that development versions of Walden wrote before format 2. */
    private static final int FORMAT_VERSION_1 = 1;

    /**
     * Fills a header block for a segment with no clean close recorded.
     *
     * @param block a buffer of at least {@code HEADER_LENGTH} bytes; its order is changed to LE.
     * @param segmentCapacityBytes the segment capacity.
     * @param basePosition the segment's base position.
     * @param logId the log identity.
     */
    public static void write(
            final ByteBuffer block, final int segmentCapacityBytes, final long basePosition, final long logId) {
        block.order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < HEADER_LENGTH; i += 8) {
            block.putLong(i, 0);
        }
        block.putLong(MAGIC_OFFSET, MAGIC);
        block.putInt(VERSION_OFFSET, FORMAT_VERSION);
        block.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        block.putLong(CAPACITY_OFFSET, segmentCapacityBytes);
        block.putLong(BASE_POSITION_OFFSET, basePosition);
        block.putLong(LOG_ID_OFFSET, logId);
        block.putInt(FRAME_ALIGNMENT_OFFSET, FrameDescriptor.FRAME_ALIGNMENT);
        block.putInt(HEADER_CHECKSUM_OFFSET, checksum(block));
    }

    /**
     * Records in a valid header block how far the segment is durable, and whether the log closed
     * cleanly there, and updates the checksum. Only the flags, the durable position and the checksum
     * change, all within the first sector.
     *
     * @param block a valid header block, little-endian.
     * @param durablePosition every position of the segment below it is durable; zero for none.
     * @param closedCleanly whether the log closed cleanly at {@code durablePosition}.
     */
    public static void writeState(final ByteBuffer block, final long durablePosition, final boolean closedCleanly) {
        block.putInt(FLAGS_OFFSET, closedCleanly ? FLAG_CLOSED_CLEANLY : 0);
        block.putLong(DURABLE_POSITION_OFFSET, durablePosition);
        block.putInt(HEADER_CHECKSUM_OFFSET, checksum(block));
    }

    /**
     * The durable position a valid header records.
     *
     * @param block the header.
     * @return every position of the segment below it was durable; zero if none is recorded.
     */
    static long durablePosition(final ByteBuffer block) {
        return block.getLong(DURABLE_POSITION_OFFSET);
    }

    /**
     * Where the log ended at a clean close, if the header records one.
     *
     * @param block the header.
     * @return the clean end position, or -1 if the header records no clean close.
     */
    static long cleanEndPosition(final ByteBuffer block) {
        return (block.getInt(FLAGS_OFFSET) & FLAG_CLOSED_CLEANLY) != 0 ? block.getLong(DURABLE_POSITION_OFFSET) : -1;
    }

    /**
     * CRC32C of the checksummed part of a header.
     *
     * @param block the header block, little-endian.
     * @return the checksum.
     */
    public static int checksum(final ByteBuffer block) {
        final CRC32C crc = new CRC32C();
        final ByteBuffer view = block.duplicate();
        view.clear().limit(CHECKSUMMED_LENGTH);
        crc.update(view);
        return (int) crc.getValue();
    }

    /**
     * The format version of a header that is Walden's (its magic and checksum are right), whatever the
     * version; -1 for anything else (damage, or not a Walden segment).
     *
     * @param block the header bytes, little-endian.
     * @return the version, or -1.
     */
    static int formatVersion(final ByteBuffer block) {
        return block.getLong(MAGIC_OFFSET) == MAGIC && block.getInt(HEADER_CHECKSUM_OFFSET) == checksum(block)
                ? block.getInt(VERSION_OFFSET)
                : -1;
    }

    /**
     * What is wrong with a format version other than this release's.
     *
     * @param version the version a header carries.
     * @return the problem, naming the version and what to do.
     */
    static String formatVersionProblem(final int version) {
        if (version == FORMAT_VERSION_1) {
            return "format version 1, written by a development version of Walden before format 2; this version"
                    + " reads format " + FORMAT_VERSION + " only (version 1 frames carry no durable offset, so"
                    + " recovery could not tell a torn write from damage). Read the records with the version that"
                    + " wrote them and append them to a new log";
        }
        return "unsupported format version " + version + " (this code reads " + FORMAT_VERSION
                + "); open the log with the Walden version that wrote it";
    }

    /**
     * Checks a header read from a segment file.
     *
     * @param block the header bytes, little-endian, all {@code HEADER_LENGTH} of them: the unused part
     *     must be zero.
     * @param expectedBasePosition the base position the file name gives.
     * @return null if valid, else what is wrong.
     */
    public static String validate(final ByteBuffer block, final long expectedBasePosition) {
        if (block.getLong(MAGIC_OFFSET) != MAGIC) {
            return "not a Walden segment (bad magic 0x" + Long.toHexString(block.getLong(MAGIC_OFFSET)) + ")";
        }
        if (block.getInt(HEADER_CHECKSUM_OFFSET) != checksum(block)) {
            return "segment header checksum mismatch";
        }
        if (block.getInt(VERSION_OFFSET) != FORMAT_VERSION) {
            return formatVersionProblem(block.getInt(VERSION_OFFSET));
        }
        if (block.getInt(HEADER_LENGTH_OFFSET) != HEADER_LENGTH
                || block.getInt(FRAME_ALIGNMENT_OFFSET) != FrameDescriptor.FRAME_ALIGNMENT) {
            return "unsupported header length or frame alignment";
        }
        for (int offset = HEADER_CHECKSUM_OFFSET + 4; offset < HEADER_LENGTH; offset++) {
            // Not covered by the checksum, so checked here: a bit flipped in the unused part of the
            // header is damage like any other, never ignored.
            if (block.get(offset) != 0) {
                return "non-zero byte 0x" + Integer.toHexString(block.get(offset) & 0xFF) + " at offset " + offset
                        + " of the segment header, which format version " + FORMAT_VERSION + " keeps zero";
            }
        }
        if (block.getLong(BASE_POSITION_OFFSET) != expectedBasePosition) {
            return "header says base position " + block.getLong(BASE_POSITION_OFFSET) + " but the file name says "
                    + expectedBasePosition;
        }
        final long capacity = block.getLong(CAPACITY_OFFSET);
        if (capacity < HEADER_LENGTH || !BitUtil.isPowerOfTwo(capacity) || expectedBasePosition % capacity != 0) {
            return "invalid segment capacity " + capacity;
        }
        final int flags = block.getInt(FLAGS_OFFSET);
        final long durable = block.getLong(DURABLE_POSITION_OFFSET);
        if ((flags & ~FLAG_CLOSED_CLEANLY) != 0 || block.getInt(RESERVED_OFFSET) != 0) {
            return "unknown header flags 0x" + Integer.toHexString(flags) + " or a non-zero reserved field";
        }
        if ((durable != 0 || flags != 0)
                && (durable < expectedBasePosition + HEADER_LENGTH
                        || durable > expectedBasePosition + capacity
                        || durable % FrameDescriptor.FRAME_ALIGNMENT != 0)) {
            return "durable position " + durable + " is impossible for this segment (flags 0x"
                    + Integer.toHexString(flags) + ")";
        }
        return null;
    }

    /**
     * The capacity field of a valid header.
     *
     * @param block the header.
     * @return the capacity.
     */
    static int capacity(final ByteBuffer block) {
        return (int) block.getLong(CAPACITY_OFFSET);
    }

    /**
     * The log identity field of a valid header.
     *
     * @param block the header.
     * @return the identity.
     */
    static long logId(final ByteBuffer block) {
        return block.getLong(LOG_ID_OFFSET);
    }
}
