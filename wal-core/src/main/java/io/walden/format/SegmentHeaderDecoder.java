package io.walden.format;

import static io.walden.format.SegmentHeaderDescriptor.BASE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CAPACITY_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CHECKSUMMED_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAGS_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CONTINUED;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_RECYCLED;
import static io.walden.format.SegmentHeaderDescriptor.FORMAT_VERSION;
import static io.walden.format.SegmentHeaderDescriptor.FRAME_ALIGNMENT_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.KNOWN_FLAGS;
import static io.walden.format.SegmentHeaderDescriptor.LOG_ID_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.VERSION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;
import static io.walden.format.SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.agrona.BitUtil;

/**
 * Reads and checks segment headers as {@link SegmentHeaderDescriptor} lays them out: the checks
 * recovery, the read-only view and the tools make of every segment before its frames.
 *
 * <p><b>Threading:</b> stateless; safe from any thread.
 */
public final class SegmentHeaderDecoder {
    private static final int FORMAT_VERSION_1 = 1;
    private static final int FORMAT_VERSION_2 = 2;

    private SegmentHeaderDecoder() {}

    /**
     * CRC32C of the checksummed part of a header.
     *
     * @param block the header block, little-endian; its position and limit are not changed.
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
     * Whether a header's stored checksum matches its bytes.
     *
     * @param block the header block, little-endian, at least {@code HEADER_CHECKSUM_OFFSET + 4} bytes.
     * @return true if it matches.
     */
    public static boolean checksumMatches(final ByteBuffer block) {
        return block.getInt(HEADER_CHECKSUM_OFFSET) == checksum(block);
    }

    /**
     * The format version of a header that is Walden's (its magic and checksum are right), whatever the
     * version; -1 for anything else (damage, or not a Walden segment).
     *
     * @param block the header bytes, little-endian.
     * @return the version, or -1.
     */
    public static int formatVersion(final ByteBuffer block) {
        return block.getLong(MAGIC_OFFSET) == MAGIC && checksumMatches(block) ? block.getInt(VERSION_OFFSET) : -1;
    }

    /**
     * What is wrong with a format version other than this release's.
     *
     * @param version the version a header carries.
     * @return the problem, naming the version and what to do.
     */
    public static String formatVersionProblem(final int version) {
        if (version == FORMAT_VERSION_1) {
            return "format version 1, written by a development version of Walden before format 2; this version"
                    + " reads format " + FORMAT_VERSION + " only (version 1 frames carry no durable offset, so"
                    + " recovery could not tell a torn write from damage). Read the records with the version that"
                    + " wrote them and append them to a new log";
        }
        if (version == FORMAT_VERSION_2) {
            return "format version 2, written by a development version of Walden before format 3; this version"
                    + " reads format " + FORMAT_VERSION + " only (version 2 headers record no write limit and do not"
                    + " mark a segment the log went on from, so recovery could neither continue after a crash"
                    + " in the segment nor notice a lost newest segment). Read the records with the version that"
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
        if (!checksumMatches(block)) {
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
        if ((flags & ~KNOWN_FLAGS) != 0) {
            return "unknown header flags 0x" + Integer.toHexString(flags);
        }
        final int limit = block.getInt(WRITE_LIMIT_OFFSET);
        if (limit != 0 && (limit < HEADER_LENGTH || limit > capacity || limit % WRITE_LIMIT_ALIGNMENT != 0)) {
            return "write limit " + limit + " is impossible for a segment of " + capacity + " bytes";
        }
        if ((flags & FLAG_RECYCLED) != 0 && limit == 0) {
            return "a recycled segment's header records no write limit: its stale bytes could not be told apart";
        }
        if (limit != 0 && durable > expectedBasePosition + limit) {
            return "durable position " + durable + " lies past the write limit, offset " + limit;
        }
        if ((durable != 0 || (flags & FLAG_CLOSED_CLEANLY) != 0)
                && (durable < expectedBasePosition + HEADER_LENGTH
                        || durable > expectedBasePosition + capacity
                        || durable % FrameDescriptor.FRAME_ALIGNMENT != 0)) {
            return "durable position " + durable + " is impossible for this segment (flags 0x"
                    + Integer.toHexString(flags) + ")";
        }
        return null;
    }

    /**
     * @param block a valid header.
     * @return its capacity field.
     */
    public static int capacity(final ByteBuffer block) {
        return (int) block.getLong(CAPACITY_OFFSET);
    }

    /**
     * @param block a valid header.
     * @return its log identity field.
     */
    public static long logId(final ByteBuffer block) {
        return block.getLong(LOG_ID_OFFSET);
    }

    /**
     * @param block a valid header.
     * @return the durable position it records, or zero.
     */
    public static long durablePosition(final ByteBuffer block) {
        return block.getLong(DURABLE_POSITION_OFFSET);
    }

    /**
     * @param block a valid header.
     * @return the write limit it records, or zero (the whole segment may hold frames).
     */
    public static int writeLimitOffset(final ByteBuffer block) {
        return block.getInt(WRITE_LIMIT_OFFSET);
    }

    /**
     * @param block a valid header.
     * @return whether it records that the log went on into the next segment, whose file must exist.
     */
    public static boolean continued(final ByteBuffer block) {
        return (block.getInt(FLAGS_OFFSET) & FLAG_CONTINUED) != 0;
    }

    /**
     * @param block a valid header.
     * @return whether it is a recycled segment's: bytes at or past the write limit are stale.
     */
    public static boolean recycled(final ByteBuffer block) {
        return (block.getInt(FLAGS_OFFSET) & FLAG_RECYCLED) != 0;
    }

    /**
     * Where the bytes of a segment stop belonging to it: in a recycled segment, its write limit (the
     * bytes from there on are stale and read as zeros); in any other, its capacity.
     *
     * @param block a valid header.
     * @return the offset.
     */
    public static long staleFromOffset(final ByteBuffer block) {
        return recycled(block) ? block.getInt(WRITE_LIMIT_OFFSET) : block.getLong(CAPACITY_OFFSET);
    }

    /**
     * @param block a valid header.
     * @return where the log ended at a clean close, or -1 if the header records none.
     */
    public static long cleanEndPosition(final ByteBuffer block) {
        return (block.getInt(FLAGS_OFFSET) & FLAG_CLOSED_CLEANLY) != 0 ? block.getLong(DURABLE_POSITION_OFFSET) : -1;
    }
}
