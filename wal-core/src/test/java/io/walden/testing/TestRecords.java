package io.walden.testing;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Payloads that can be checked on their own, and reading a whole log back into memory.
 *
 * <p>A tagged payload starts with a 16-byte tag, {@code writer, sequence, length, crc32c} (int32
 * little-endian each), followed by bytes generated from {@code writer} and {@code sequence}: a reader
 * can tell which append produced a record and check that every byte is the one appended.
 *
 * <p><b>Threading:</b> stateless; thread-safe.
 */
public final class TestRecords {
    /** Length of the tag at the start of a tagged payload. */
    public static final int TAG_LENGTH = 16;

    /** A tagged payload's content comes in runs of this many equal bytes (compressible). */
    public static final int CONTENT_RUN_BYTES = 8;

    private TestRecords() {}

    /**
     * A record read back, copied out of the reader's buffer.
     *
     * @param lsn its position.
     * @param payload its bytes.
     */
    public record Read(long lsn, byte[] payload) {
        @Override
        public boolean equals(final Object other) {
            return other instanceof Read read && read.lsn == lsn && Arrays.equals(read.payload, payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(lsn) * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Read[lsn=" + lsn + ", length=" + payload.length + "]";
        }
    }

    /**
     * A parsed tag.
     *
     * @param writer who appended the record.
     * @param sequence the writer's sequence number.
     */
    public record Tag(int writer, int sequence) {}

    /**
     * Bytes generated from a seed.
     *
     * @param seed the seed.
     * @param length how many.
     * @return the bytes.
     */
    public static byte[] bytes(final long seed, final int length) {
        final byte[] bytes = new byte[length];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /**
     * A tagged payload.
     *
     * @param writer who appends it.
     * @param sequence the writer's sequence number.
     * @param length total length, at least {@link #TAG_LENGTH}.
     * @return the payload.
     */
    public static byte[] tagged(final int writer, final int sequence, final int length) {
        if (length < TAG_LENGTH) {
            throw new IllegalArgumentException("tagged payloads are at least " + TAG_LENGTH + " bytes");
        }
        final byte[] payload = new byte[length];
        // The content comes in runs of CONTENT_RUN_BYTES equal bytes, so that a log that compresses its
        // records (a codec, even a run-length test codec) stores most of them encoded.
        final byte[] content =
                bytes(seed(writer, sequence), (length - TAG_LENGTH + CONTENT_RUN_BYTES - 1) / CONTENT_RUN_BYTES);
        for (int i = TAG_LENGTH; i < length; i++) {
            payload[i] = content[(i - TAG_LENGTH) / CONTENT_RUN_BYTES];
        }
        final ByteBuffer tag = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        tag.putInt(0, writer).putInt(4, sequence).putInt(8, length);
        tag.putInt(12, crc(payload));
        return payload;
    }

    /**
     * Checks a tagged payload: tag checksum, length and every content byte.
     *
     * @param payload the payload read back.
     * @return its tag.
     * @throws AssertionError naming what is wrong.
     */
    public static Tag verify(final byte[] payload) {
        if (payload.length < TAG_LENGTH) {
            throw new AssertionError("payload of " + payload.length + " bytes is shorter than a tag");
        }
        final ByteBuffer tag = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        final int writer = tag.getInt(0);
        final int sequence = tag.getInt(4);
        final int length = tag.getInt(8);
        if (length != payload.length) {
            throw new AssertionError("payload of writer " + writer + " sequence " + sequence + " has " + payload.length
                    + " bytes, its tag says " + length);
        }
        if (tag.getInt(12) != crc(payload)) {
            throw new AssertionError("checksum mismatch in payload of writer " + writer + " sequence " + sequence);
        }
        final byte[] expected = tagged(writer, sequence, length);
        if (!Arrays.equals(expected, payload)) {
            throw new AssertionError("content differs in payload of writer " + writer + " sequence " + sequence);
        }
        return new Tag(writer, sequence);
    }

    /**
     * Reads every record visible from a position with {@link WalReader#replay}.
     *
     * @param wal the log.
     * @param fromLsn where to start.
     * @param visibility WRITTEN or SYNCED.
     * @return the records in the order delivered.
     */
    public static List<Read> replayAll(final Wal wal, final long fromLsn, final Durability visibility) {
        try (WalReader reader = wal.reader(fromLsn, visibility)) {
            final List<Read> records = new ArrayList<>();
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                records.add(new Read(lsn, payload));
            });
            return records;
        }
    }

    /**
     * Reads every durable record of a log from its start.
     *
     * @param wal the log.
     * @return the records.
     */
    public static List<Read> replayAll(final Wal wal) {
        return replayAll(wal, wal.startPosition(), Durability.SYNCED);
    }

    /**
     * Polls a reader until it is caught up, in batches of at most {@code limit}, checking that no
     * poll delivers more than {@code limit}.
     *
     * @param reader the reader.
     * @param limit the batch limit.
     * @return the records delivered.
     */
    public static List<Read> pollAll(final WalReader reader, final int limit) {
        final List<Read> records = new ArrayList<>();
        while (true) {
            final int before = records.size();
            final int count = reader.poll(
                    (buffer, offset, length, lsn) -> {
                        final byte[] payload = new byte[length];
                        buffer.getBytes(offset, payload);
                        records.add(new Read(lsn, payload));
                    },
                    limit);
            if (count != records.size() - before) {
                throw new AssertionError("poll returned " + count + " but delivered " + (records.size() - before));
            }
            if (count > limit) {
                throw new AssertionError("poll delivered " + count + " records with a limit of " + limit);
            }
            if (count == 0) {
                return records;
            }
        }
    }

    private static long seed(final int writer, final int sequence) {
        return ((long) writer << 32) ^ (sequence & 0xFFFF_FFFFL) ^ 0x5DEECE66DL;
    }

    private static int crc(final byte[] payload) {
        final CRC32C crc = new CRC32C();
        crc.update(payload, 0, 12);
        crc.update(payload, TAG_LENGTH, payload.length - TAG_LENGTH);
        return (int) crc.getValue();
    }
}
