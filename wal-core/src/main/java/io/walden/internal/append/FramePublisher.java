package io.walden.internal.append;

import io.walden.internal.codec.EncodeSlot;
import io.walden.internal.state.LogBuffer;
import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;

/**
 * Copies one kind of payload into the frames claimed for it and publishes them: the one step of an
 * append that depends on what holds the payload. The kinds are constants, so no call allocates a
 * strategy.
 *
 * <p><b>Threading:</b> stateless; called by any appending thread, on the space it claimed.
 */
@FunctionalInterface
public interface FramePublisher<P> {
    FramePublisher<byte[]> BYTES = FramePublisher::publishBytes;

    /** A {@link ByteBuffer} from its position to its limit; offset and length are ignored. */
    FramePublisher<ByteBuffer> BYTE_BUFFER = FramePublisher::publishByteBuffer;

    FramePublisher<DirectBuffer> DIRECT_BUFFER = FramePublisher::publishDirectBuffer;

    /** A record an {@link EncodeSlot} encoded; offset and length are ignored. */
    FramePublisher<EncodeSlot> ENCODED = FramePublisher::publishEncoded;

    /** Copies a payload into the space claimed at a position and publishes its frames. */
    long publish(LogBuffer logBuffer, long lsn, P payload, int offset, int length);

    private static long publishBytes(
            final LogBuffer logBuffer, final long lsn, final byte[] payload, final int offset, final int length) {
        logBuffer.publish(lsn, payload, offset, length);
        return lsn;
    }

    private static long publishByteBuffer(
            final LogBuffer logBuffer, final long lsn, final ByteBuffer payload, final int offset, final int length) {
        logBuffer.publish(lsn, payload);
        return lsn;
    }

    private static long publishEncoded(
            final LogBuffer logBuffer, final long lsn, final EncodeSlot slot, final int offset, final int length) {
        logBuffer.publishWithFlags(lsn, slot.output(), slot.outputOffset(0), slot.storedLength(0), slot.codecFlags());
        return lsn;
    }

    private static long publishDirectBuffer(
            final LogBuffer logBuffer, final long lsn, final DirectBuffer payload, final int offset, final int length) {
        logBuffer.publish(lsn, payload, offset, length);
        return lsn;
    }
}
