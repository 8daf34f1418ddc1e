package io.walden.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import net.jpountz.xxhash.XXHashFactory;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The module's XXH32 agrees with lz4-java's on every length up to 100 bytes, at any offset and seed. */
final class XxHash32Test {
    @Test
    void agreesWithLz4JavaOnEveryShortLengthOffsetAndSeed() {
        final SplittableRandom random = new SplittableRandom(5);
        final byte[] bytes = new byte[200];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        final ByteBuffer heap = ByteBuffer.wrap(bytes);
        final UnsafeBuffer view = new UnsafeBuffer(bytes);
        for (int length = 0; length <= 100; length++) {
            for (int offset = 0; offset < 8; offset++) {
                final int seed = random.nextInt();
                assertEquals(
                        XXHashFactory.safeInstance().hash32().hash(heap, offset, length, seed),
                        XxHash32.hash(view, offset, length, seed),
                        "length " + length + ", offset " + offset);
            }
        }
    }
}
