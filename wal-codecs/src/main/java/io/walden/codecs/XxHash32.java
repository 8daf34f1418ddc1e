package io.walden.codecs;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.DirectBuffer;

/**
 * XXH32 (xxhash.com, the 32-bit variant), for the one byte of an LZ4 frame's header checksum: the
 * frame format needs it, and the pure-Java codec must not need lz4-java for it.
 *
 * <p><b>Threading:</b> stateless.
 */
final class XxHash32 {
    private static final int PRIME1 = 0x9E3779B1;
    private static final int PRIME2 = 0x85EBCA77;
    private static final int PRIME3 = 0xC2B2AE3D;
    private static final int PRIME4 = 0x27D4EB2F;
    private static final int PRIME5 = 0x165667B1;
    private static final int STRIPE_BYTES = 16;

    private XxHash32() {}

    /**
     * @param buffer holds the bytes.
     * @param offset the first byte.
     * @param length how many (little-endian words, as the specification reads them).
     * @param seed the seed.
     * @return the hash.
     */
    static int hash(final DirectBuffer buffer, final int offset, final int length, final int seed) {
        final int end = offset + length;
        int index = offset;
        int hash;
        if (length >= STRIPE_BYTES) {
            int v1 = seed + PRIME1 + PRIME2;
            int v2 = seed + PRIME2;
            int v3 = seed;
            int v4 = seed - PRIME1;
            for (; index + STRIPE_BYTES <= end; index += STRIPE_BYTES) {
                v1 = round(v1, buffer.getInt(index, LITTLE_ENDIAN));
                v2 = round(v2, buffer.getInt(index + 4, LITTLE_ENDIAN));
                v3 = round(v3, buffer.getInt(index + 8, LITTLE_ENDIAN));
                v4 = round(v4, buffer.getInt(index + 12, LITTLE_ENDIAN));
            }
            hash = Integer.rotateLeft(v1, 1)
                    + Integer.rotateLeft(v2, 7)
                    + Integer.rotateLeft(v3, 12)
                    + Integer.rotateLeft(v4, 18);
        } else {
            hash = seed + PRIME5;
        }
        hash += length;
        for (; index + Integer.BYTES <= end; index += Integer.BYTES) {
            hash += buffer.getInt(index, LITTLE_ENDIAN) * PRIME3;
            hash = Integer.rotateLeft(hash, 17) * PRIME4;
        }
        for (; index < end; index++) {
            hash += (buffer.getByte(index) & 0xFF) * PRIME5;
            hash = Integer.rotateLeft(hash, 11) * PRIME1;
        }
        hash ^= hash >>> 15;
        hash *= PRIME2;
        hash ^= hash >>> 13;
        hash *= PRIME3;
        hash ^= hash >>> 16;
        return hash;
    }

    private static int round(final int accumulator, final int lane) {
        return Integer.rotateLeft(accumulator + lane * PRIME2, 13) * PRIME1;
    }
}
