package io.walden.codecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.codec.RecordCodec;
import io.walden.testkit.SampleRecords;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every codec of the module: what it encodes decodes to the same bytes, with the other implementation
 * of the same format too (native and pure Java read each other's frames); the announced length is the
 * record's; an encoding stays within the codec's bound; and a damaged encoding is refused with {@link
 * IllegalArgumentException}, never read or written out of bounds.
 */
final class CodecRoundTripTest {
    private static final int[] LENGTHS = {0, 1, 15, 16, 100, 1000, 4096, 65_536, 1 << 20, 4 * 1024 * 1024 + 17};

    static Stream<Arguments> pairs() {
        final List<RecordCodec> lz4 = List.of(Codecs.lz4(), Codecs.lz4PureJava());
        final List<RecordCodec> zstd = List.of(Codecs.zstd(), Codecs.zstdPureJava(), Codecs.zstd(9));
        return Stream.concat(
                lz4.stream().flatMap(w -> lz4.stream().map(r -> Arguments.of(w, r))),
                zstd.stream().flatMap(w -> zstd.stream().map(r -> Arguments.of(w, r))));
    }

    @ParameterizedTest(name = "written by {0}, read by {1}")
    @MethodSource("pairs")
    void everyRecordDecodesToItsBytesWithEitherImplementationOfTheFormat(
            final RecordCodec writer, final RecordCodec reader) {
        final SplittableRandom random = new SplittableRandom(writer.name().hashCode());
        final RecordCodec.Encoder encoder = writer.newEncoder();
        final RecordCodec.Decoder decoder = reader.newDecoder();
        for (final int length : LENGTHS) {
            for (int kind = 0; kind < 3; kind++) {
                final byte[] record =
                        switch (kind) {
                            case 0 -> SampleRecords.jsonLike(random, Math.max(length, 50));
                            case 1 -> random(random, length);
                            default -> new byte[length];
                        };
                final UnsafeBuffer encoded = encode(encoder, writer, record);
                assertEquals(record.length, decoder.decodedLength(encoded, 0, encoded.capacity()), writer + " length");
                final UnsafeBuffer decoded = direct(record.length + 64);
                final int produced = decoder.decode(encoded, 0, encoded.capacity(), decoded, 32, record.length);
                assertEquals(record.length, produced);
                final byte[] back = new byte[produced];
                decoded.getBytes(32, back);
                assertArrayEquals(record, back, writer + " then " + reader + ", " + record.length + " bytes");
            }
        }
        encoder.close();
        decoder.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void jsonLikeRecordsShrink(final RecordCodec codec) {
        final SplittableRandom random = new SplittableRandom(3);
        long stored = 0;
        long given = 0;
        final RecordCodec.Encoder encoder = codec.newEncoder();
        for (int i = 0; i < 200; i++) {
            final byte[] record = SampleRecords.jsonLike(random, 1024);
            given += record.length;
            stored += encode(encoder, codec, record).capacity();
        }
        encoder.close();
        System.out.printf("%s: 1 KiB JSON-like records stored at %.3f of their size%n", codec, stored / (double) given);
        assertTrue(stored < given / 2, codec + " stored " + stored + " of " + given + " bytes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void aDamagedEncodingIsRefusedOrDecodesWithinItsBounds(final RecordCodec codec) {
        final SplittableRandom random = new SplittableRandom(11);
        final RecordCodec.Encoder encoder = codec.newEncoder();
        final RecordCodec.Decoder decoder = codec.newDecoder();
        final byte[] record = SampleRecords.jsonLike(random, 2000);
        final UnsafeBuffer encoded = encode(encoder, codec, record);
        int refused = 0;
        for (int trial = 0; trial < 2000; trial++) {
            final UnsafeBuffer damaged = direct(encoded.capacity());
            damaged.putBytes(0, encoded, 0, encoded.capacity());
            final int length = trial % 4 == 0 ? random.nextInt(encoded.capacity()) : encoded.capacity();
            final int at = random.nextInt(length == 0 ? 1 : length);
            if (length > 0) {
                damaged.putByte(at, (byte) (damaged.getByte(at) ^ (1 << random.nextInt(8))));
            }
            final UnsafeBuffer target = direct(record.length + 16);
            target.setMemory(record.length, 16, (byte) 0x5A);
            try {
                decoder.decode(damaged, 0, length, target, 0, record.length);
            } catch (final IllegalArgumentException expected) {
                refused++;
            }
            for (int i = record.length; i < record.length + 16; i++) {
                assertEquals(0x5A, target.getByte(i), "a decode wrote past its capacity");
            }
        }
        encoder.close();
        decoder.close();
        assertTrue(refused > 0, "no damaged encoding was refused");
    }

    static Stream<RecordCodec> codecs() {
        return Stream.of(Codecs.lz4(), Codecs.lz4PureJava(), Codecs.zstd(), Codecs.zstdPureJava());
    }

    static UnsafeBuffer encode(final RecordCodec.Encoder encoder, final RecordCodec codec, final byte[] record) {
        final UnsafeBuffer source = direct(record.length + 7);
        source.putBytes(7, record);
        final int bound = codec.maxEncodedLength(record.length);
        final UnsafeBuffer target = direct(bound + 5);
        final int length =
                encoder.encode(new UnsafeBuffer(source, 7, record.length), 0, record.length, target, 5, bound);
        assertTrue(length <= bound, codec + " wrote " + length + " bytes, past its bound " + bound);
        final UnsafeBuffer encoded = direct(length);
        encoded.putBytes(0, target, 5, length);
        return encoded;
    }

    static UnsafeBuffer direct(final int length) {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, length)), 0, length);
    }

    private static byte[] random(final SplittableRandom random, final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }
}
