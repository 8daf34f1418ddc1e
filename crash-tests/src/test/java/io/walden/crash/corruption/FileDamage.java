package io.walden.crash.corruption;

import io.walden.format.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Damages files directly on disk, as storage faults, operators and other programs do.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class FileDamage {
    private FileDamage() {}

    /**
     * Flips one bit.
     *
     * @param file the file.
     * @param offset the byte.
     * @param bit the bit, 0 to 7.
     * @throws IOException on an I/O failure.
     */
    public static void flipBit(final Path file, final long offset, final int bit) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            if (channel.read(one, offset) != 1) {
                throw new IOException("cannot read offset " + offset + " of " + file);
            }
            one.put(0, (byte) (one.get(0) ^ (1 << bit))).clear();
            write(channel, one, offset);
        }
    }

    /**
     * Overwrites a range with zeros.
     *
     * @param file the file.
     * @param fromOffset first byte.
     * @param toOffset after the last byte.
     * @throws IOException on an I/O failure.
     */
    static void zero(final Path file, final long fromOffset, final long toOffset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            write(channel, ByteBuffer.allocate((int) (toOffset - fromOffset)), fromOffset);
        }
    }

    /**
     * Cuts a file short.
     *
     * @param file the file.
     * @param sizeBytes its new size.
     * @throws IOException on an I/O failure.
     */
    static void truncate(final Path file, final long sizeBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(sizeBytes);
        }
    }

    /**
     * Writes a file of random bytes, replacing any file of that name.
     *
     * @param file the file.
     * @param sizeBytes its size.
     * @param seed the seed of its contents.
     * @throws IOException on an I/O failure.
     */
    static void writeRandom(final Path file, final int sizeBytes, final long seed) throws IOException {
        final byte[] bytes = new byte[sizeBytes];
        new Random(seed).nextBytes(bytes);
        writeBytes(file, bytes);
    }

    /**
     * Writes a file, replacing any file of that name.
     *
     * @param file the file.
     * @param bytes its contents.
     * @throws IOException on an I/O failure.
     */
    static void writeBytes(final Path file, final byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            write(channel, ByteBuffer.wrap(bytes), 0);
        }
    }

    /**
     * Rewrites the base position in a segment header, clears its durability state (flags and durable
     * position, which belong to the old base: a durability mark or clean close recorded there would be
     * refused at offset 0 before any frame is looked at) and recomputes the header checksum, so that
     * the header is what a segment at the claimed base would carry before its first mark.
     *
     * @param file the segment file.
     * @param basePosition the base position to claim.
     * @throws IOException on an I/O failure.
     */
    static void forgeBasePosition(final Path file, final long basePosition) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.CHECKSUMMED_LENGTH + 4)
                    .order(ByteOrder.LITTLE_ENDIAN);
            while (header.hasRemaining()) {
                if (channel.read(header, header.position()) < 0) {
                    throw new IOException(file + " is shorter than a segment header");
                }
            }
            header.putLong(SegmentHeaderDescriptor.BASE_POSITION_OFFSET, basePosition);
            header.putInt(SegmentHeaderDescriptor.FLAGS_OFFSET, 0);
            header.putLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET, 0);
            final CRC32C crc = new CRC32C();
            crc.update(header.array(), 0, SegmentHeaderDescriptor.CHECKSUMMED_LENGTH);
            header.putInt(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET, (int) crc.getValue());
            header.clear();
            write(channel, header, 0);
        }
    }

    private static void write(final FileChannel channel, final ByteBuffer buffer, final long offset)
            throws IOException {
        long position = offset;
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
    }
}
