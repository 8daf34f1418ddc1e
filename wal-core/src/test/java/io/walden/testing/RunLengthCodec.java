package io.walden.testing;

import io.walden.codec.RecordCodec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A codec for tests, with no library: run-length encoding under an application id ({@link
 * RecordCodec#PRIVATE_ID_MIN}), so that the core's encoding and decoding paths are tested on every
 * backend without wal-codecs. Records of long runs shrink; random ones grow (and are stored as given).
 *
 * <pre>
 *   decoded length (int32 LE) | (run length 1..255 (u8), byte) ...
 * </pre>
 *
 * <p><b>Threading:</b> immutable; encoders and decoders are stateless.
 */
public final class RunLengthCodec implements RecordCodec {
    /** The id its frames carry. */
    public static final int ID = PRIVATE_ID_MIN;

    private static final int LENGTH_FIELD = Integer.BYTES;
    private static final int RUN_MAX = 255;

    private final int id;

    /** The codec under {@link #ID}. */
    public RunLengthCodec() {
        this(ID);
    }

    /** @param id the id to store frames under (a test of a codec a reader lacks uses another). */
    public RunLengthCodec(final int id) {
        this.id = id;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public String name() {
        return "run-length (test)";
    }

    @Override
    public int maxEncodedLength(final int length) {
        return LENGTH_FIELD + 2 * length;
    }

    @Override
    public Encoder newEncoder() {
        return new Encoder() {
            @Override
            public int encode(
                    final DirectBuffer source,
                    final int sourceOffset,
                    final int length,
                    final MutableDirectBuffer target,
                    final int targetOffset,
                    final int targetCapacity) {
                target.putInt(targetOffset, length);
                int at = targetOffset + LENGTH_FIELD;
                int i = 0;
                while (i < length) {
                    final byte value = source.getByte(sourceOffset + i);
                    int run = 1;
                    while (run < RUN_MAX && i + run < length && source.getByte(sourceOffset + i + run) == value) {
                        run++;
                    }
                    target.putByte(at, (byte) run);
                    target.putByte(at + 1, value);
                    at += 2;
                    i += run;
                }
                return at - targetOffset;
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public Decoder newDecoder() {
        return new Decoder() {
            @Override
            public int decodedLength(final DirectBuffer source, final int offset, final int length) {
                return length < LENGTH_FIELD ? -1 : source.getInt(offset);
            }

            @Override
            public int decode(
                    final DirectBuffer source,
                    final int offset,
                    final int length,
                    final MutableDirectBuffer target,
                    final int targetOffset,
                    final int targetCapacity) {
                if (length < LENGTH_FIELD || (length - LENGTH_FIELD) % 2 != 0) {
                    throw new IllegalArgumentException("not a run-length encoding of " + length + " bytes");
                }
                int produced = 0;
                for (int at = offset + LENGTH_FIELD; at < offset + length; at += 2) {
                    final int run = source.getByte(at) & 0xFF;
                    if (run == 0 || produced + run > targetCapacity) {
                        throw new IllegalArgumentException("a run past the record's end");
                    }
                    target.setMemory(targetOffset + produced, run, source.getByte(at + 1));
                    produced += run;
                }
                return produced;
            }

            @Override
            public void close() {}
        };
    }
}
