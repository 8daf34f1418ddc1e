package io.walden.tools;

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
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * A segment header as read from a file, with what is wrong with it, checked as FORMAT.md and {@link
 * io.walden.format.SegmentHeaderDescriptor} define it (the checks recovery makes, written again here
 * from the public layout).
 *
 * @param capacity the segment capacity field.
 * @param base the base position field.
 * @param logId the log identity field.
 * @param version the format version field.
 * @param flags the flags field.
 * @param durablePosition the durable position field (zero: none recorded).
 * @param checksumOk whether the header checksum matches bytes 0 to 59.
 * @param problem what is wrong with the header, or null if it is valid.
 */
record SegmentHeader(
        long capacity,
        long base,
        long logId,
        int version,
        int flags,
        long durablePosition,
        boolean checksumOk,
        String problem) {

    /** @return whether the header records a clean close. */
    boolean closedCleanly() {
        return (flags & FLAG_CLOSED_CLEANLY) != 0;
    }

    /**
     * Reads and checks the header of a segment file.
     *
     * @param path the file.
     * @param expectedBase the base position its name gives.
     * @return the header.
     * @throws IOException if the file cannot be read.
     */
    static SegmentHeader read(final Path path, final long expectedBase) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return read(channel, expectedBase);
        }
    }

    /**
     * Reads and checks the header of a segment file.
     *
     * @param channel the file, open for reading.
     * @param expectedBase the base position its name gives.
     * @return the header.
     * @throws IOException if the file cannot be read.
     */
    static SegmentHeader read(final FileChannel channel, final long expectedBase) throws IOException {
        final ByteBuffer block = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        while (block.hasRemaining()) {
            if (channel.read(block, block.position()) < 0) {
                break;
            }
        }
        final int length = block.position();
        block.clear();
        if (length < HEADER_CHECKSUM_OFFSET + 4) {
            return new SegmentHeader(
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    false,
                    "the file (" + length + " bytes) is shorter than a segment header (" + HEADER_LENGTH
                            + " bytes): not a Walden segment");
        }
        final CRC32C crc = new CRC32C();
        crc.update(block.array(), 0, CHECKSUMMED_LENGTH);
        final boolean checksumOk = block.getInt(HEADER_CHECKSUM_OFFSET) == (int) crc.getValue();
        final SegmentHeader unchecked = new SegmentHeader(
                block.getLong(CAPACITY_OFFSET),
                block.getLong(BASE_POSITION_OFFSET),
                block.getLong(LOG_ID_OFFSET),
                block.getInt(VERSION_OFFSET),
                block.getInt(FLAGS_OFFSET),
                block.getLong(DURABLE_POSITION_OFFSET),
                checksumOk,
                null);
        final String problem = length < HEADER_LENGTH
                ? "the file (" + length + " bytes) is shorter than a segment header (" + HEADER_LENGTH + " bytes)"
                : unchecked.validate(block, expectedBase);
        return problem == null ? unchecked : unchecked.withProblem(problem);
    }

    private SegmentHeader withProblem(final String problem) {
        return new SegmentHeader(capacity, base, logId, version, flags, durablePosition, checksumOk, problem);
    }

    private String validate(final ByteBuffer block, final long expectedBase) {
        if (block.getLong(MAGIC_OFFSET) != MAGIC) {
            return "not a Walden segment (bad magic 0x" + Long.toHexString(block.getLong(MAGIC_OFFSET)) + ")";
        }
        if (!checksumOk) {
            return "segment header checksum mismatch";
        }
        if (version != FORMAT_VERSION) {
            return "format version " + version + ", this tool reads version " + FORMAT_VERSION
                    + "; use the Walden version that wrote the log";
        }
        if (block.getInt(HEADER_LENGTH_OFFSET) != HEADER_LENGTH
                || block.getInt(FRAME_ALIGNMENT_OFFSET) != FrameDescriptor.FRAME_ALIGNMENT) {
            return "unsupported header length or frame alignment";
        }
        for (int offset = HEADER_CHECKSUM_OFFSET + 4; offset < HEADER_LENGTH; offset++) {
            if (block.get(offset) != 0) {
                return "non-zero byte 0x" + Integer.toHexString(block.get(offset) & 0xFF) + " at offset " + offset
                        + " of the segment header, which the format keeps zero";
            }
        }
        if (base != expectedBase) {
            return "header says base position " + base + " but the file name says " + expectedBase;
        }
        if (capacity < HEADER_LENGTH || Long.bitCount(capacity) != 1 || expectedBase % capacity != 0) {
            return "invalid segment capacity " + capacity;
        }
        if ((flags & ~FLAG_CLOSED_CLEANLY) != 0 || block.getInt(RESERVED_OFFSET) != 0) {
            return "unknown header flags 0x" + Integer.toHexString(flags) + " or a non-zero reserved field";
        }
        if ((durablePosition != 0 || flags != 0)
                && (durablePosition < expectedBase + HEADER_LENGTH
                        || durablePosition > expectedBase + capacity
                        || durablePosition % FrameDescriptor.FRAME_ALIGNMENT != 0)) {
            return "durable position " + durablePosition + " is impossible for this segment";
        }
        return null;
    }
}
