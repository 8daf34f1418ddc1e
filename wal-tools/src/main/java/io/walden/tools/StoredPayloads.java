package io.walden.tools;

import io.walden.codec.RecordCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ServiceLoader;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Decodes the payloads {@code dump} finds stored encoded (a codec id in the frame's flags), with the
 * codecs on the tool's class path ({@code wal-codecs} is in its jar; an application's own through
 * {@link ServiceLoader} on {@code java -cp}), into one reused direct buffer.
 *
 * <p><b>Threading:</b> one thread.
 */
final class StoredPayloads {
    private final RecordCodec[] codecs = new RecordCodec[RecordCodec.ID_MAX + 1];
    private final RecordCodec.Decoder[] decoders = new RecordCodec.Decoder[RecordCodec.ID_MAX + 1];
    private final UnsafeBuffer source = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer target = new UnsafeBuffer(0, 0);
    private ByteBuffer decoded = ByteBuffer.allocateDirect(0);
    private String problem;

    StoredPayloads() {
        for (final RecordCodec codec : ServiceLoader.load(RecordCodec.class, StoredPayloads.class.getClassLoader())) {
            if (codec.id() > 0 && codec.id() <= RecordCodec.ID_MAX && codecs[codec.id()] == null) {
                codecs[codec.id()] = codec;
            }
        }
    }

    /** The name of a codec id, for the frame's line: the codec's own, or the format's with "(absent)". */
    String name(final int id) {
        return codecs[id] != null ? codecs[id].name() : RecordCodec.knownName(id) + " (absent)";
    }

    /**
     * Decodes a stored payload; its record's length, from index 0 of {@link #decoded()}, or -1 with
     * {@link #problem()} saying why (the codec is absent, or the payload does not decode).
     */
    int decode(final int id, final ByteBuffer window, final int index, final int length) {
        problem = null;
        if (codecs[id] == null) {
            problem = "stored with codec " + id + " (" + RecordCodec.knownName(id) + "), which is not on the class"
                    + " path; --raw shows it as stored";
            return -1;
        }
        if (decoders[id] == null) {
            decoders[id] = codecs[id].newDecoder();
        }
        source.wrap(window, index, length);
        final int decodedLength = decoders[id].decodedLength(source, 0, length);
        if (decodedLength < 0) {
            problem = codecs[id].name() + " finds no length in the stored payload";
            return -1;
        }
        if (decoded.capacity() < decodedLength) {
            decoded = ByteBuffer.allocateDirect(decodedLength).order(ByteOrder.LITTLE_ENDIAN);
        }
        target.wrap(decoded, 0, Math.max(0, decodedLength));
        try {
            return decoders[id].decode(source, 0, length, target, 0, decodedLength);
        } catch (final IllegalArgumentException ex) {
            problem = "the stored payload does not decode with " + codecs[id].name() + ": " + ex.getMessage();
            return -1;
        }
    }

    /** The buffer the last decoded record is in. */
    ByteBuffer decoded() {
        return decoded;
    }

    /** Why the last decode gave -1. */
    String problem() {
        return problem;
    }
}
