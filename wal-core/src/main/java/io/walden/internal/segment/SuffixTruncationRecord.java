package io.walden.internal.segment;

import static io.walden.format.SuffixTruncationDescriptor.CHECKSUMMED_LENGTH;
import static io.walden.format.SuffixTruncationDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.CONTINUE_POSITION_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.CUT_POSITION_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.LENGTH;
import static io.walden.format.SuffixTruncationDescriptor.LOG_ID_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.MAGIC;
import static io.walden.format.SuffixTruncationDescriptor.MAGIC_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.RESERVED_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.VERSION;
import static io.walden.format.SuffixTruncationDescriptor.VERSION_OFFSET;
import static io.walden.format.SuffixTruncationDescriptor.ZERO_FROM_OFFSET;

import io.walden.format.SuffixTruncationDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** Encodes and decodes the suffix-truncation record ({@link SuffixTruncationDescriptor}). */
public record SuffixTruncationRecord(long logId, long cutPosition, long continuePosition) {
    /** Writes the record into the first {@link SuffixTruncationDescriptor#LENGTH} bytes of a buffer. */
    public void write(final ByteBuffer block) {
        final ByteBuffer out = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < LENGTH; i += Long.BYTES) {
            out.putLong(i, 0);
        }
        out.putLong(MAGIC_OFFSET, MAGIC);
        out.putInt(VERSION_OFFSET, VERSION);
        out.putLong(LOG_ID_OFFSET, logId);
        out.putLong(CUT_POSITION_OFFSET, cutPosition);
        out.putLong(CONTINUE_POSITION_OFFSET, continuePosition);
        out.putInt(CHECKSUM_OFFSET, checksum(out));
    }

    /** Throws {@link IllegalArgumentException} naming what is wrong if the bytes are no valid record. */
    public static SuffixTruncationRecord read(final ByteBuffer block, final long capacityBytes) {
        final ByteBuffer in = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (in.limit() < LENGTH) {
            throw new IllegalArgumentException("it is " + in.limit() + " bytes long, not " + LENGTH);
        }
        if (in.getLong(MAGIC_OFFSET) != MAGIC) {
            throw new IllegalArgumentException("its magic is not \"WALDNCUT\"");
        }
        if (in.getInt(VERSION_OFFSET) != VERSION) {
            throw new IllegalArgumentException("its version is " + in.getInt(VERSION_OFFSET) + ", not " + VERSION);
        }
        if (in.getInt(CHECKSUM_OFFSET) != checksum(in)) {
            throw new IllegalArgumentException("its checksum does not match");
        }
        if (in.getInt(RESERVED_OFFSET) != 0) {
            throw new IllegalArgumentException("its reserved field is not zero");
        }
        for (int i = ZERO_FROM_OFFSET; i < LENGTH; i++) {
            if (in.get(i) != 0) {
                throw new IllegalArgumentException("byte " + i + " is not zero");
            }
        }
        final long cut = in.getLong(CUT_POSITION_OFFSET);
        final long continueAt = in.getLong(CONTINUE_POSITION_OFFSET);
        if (cut <= 0 || continueAt <= cut || continueAt % capacityBytes != 0 || cut % Long.BYTES != 0) {
            throw new IllegalArgumentException("its positions (cut " + cut + ", continue " + continueAt
                    + ") are impossible for segments of " + capacityBytes + " bytes");
        }
        return new SuffixTruncationRecord(in.getLong(LOG_ID_OFFSET), cut, continueAt);
    }

    private static int checksum(final ByteBuffer buffer) {
        final CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().position(0).limit(CHECKSUMMED_LENGTH));
        return (int) crc.getValue();
    }
}
