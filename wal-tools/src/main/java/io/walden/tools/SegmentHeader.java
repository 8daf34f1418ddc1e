package io.walden.tools;

import static io.walden.format.SegmentHeaderDescriptor.BASE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CAPACITY_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAGS_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CONTINUED;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.LOG_ID_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.VERSION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET;

import io.walden.format.SegmentHeaderDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A segment header as read from a file, with what is wrong with it: the fields {@link
 * io.walden.format.SegmentHeaderDescriptor} lays out, judged by the same checks recovery makes.
 *
 * @param capacity the segment capacity field.
 * @param base the base position field.
 * @param logId the log identity field.
 * @param version the format version field.
 * @param flags the flags field.
 * @param durablePosition the durable position field (zero: none recorded).
 * @param writeLimitOffset the write limit field (zero: none recorded).
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
        int writeLimitOffset,
        boolean checksumOk,
        String problem) {

    /** @return whether the header records a clean close. */
    boolean closedCleanly() {
        return (flags & FLAG_CLOSED_CLEANLY) != 0;
    }

    /** @return whether the header records that the log went on into the next segment. */
    boolean continued() {
        return (flags & FLAG_CONTINUED) != 0;
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
                    0,
                    false,
                    "the file (" + length + " bytes) is shorter than a segment header (" + HEADER_LENGTH
                            + " bytes): not a Walden segment");
        }
        final boolean checksumOk = SegmentHeaderDecoder.checksumMatches(block);
        final SegmentHeader unchecked = new SegmentHeader(
                block.getLong(CAPACITY_OFFSET),
                block.getLong(BASE_POSITION_OFFSET),
                block.getLong(LOG_ID_OFFSET),
                block.getInt(VERSION_OFFSET),
                block.getInt(FLAGS_OFFSET),
                block.getLong(DURABLE_POSITION_OFFSET),
                block.getInt(WRITE_LIMIT_OFFSET),
                checksumOk,
                null);
        final String problem = length < HEADER_LENGTH
                ? "the file (" + length + " bytes) is shorter than a segment header (" + HEADER_LENGTH + " bytes)"
                : SegmentHeaderDecoder.validate(block, expectedBase);
        return problem == null ? unchecked : unchecked.withProblem(problem);
    }

    private SegmentHeader withProblem(final String problem) {
        return new SegmentHeader(
                capacity, base, logId, version, flags, durablePosition, writeLimitOffset, checksumOk, problem);
    }
}
