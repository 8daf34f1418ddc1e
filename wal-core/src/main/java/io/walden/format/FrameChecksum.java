package io.walden.format;

import static io.walden.format.FrameDescriptor.BINDING_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Computes a frame's checksum as {@link FrameDescriptor} defines it: CRC32C over the binding block
 * (position, log identity, frame length) and the frame from its type field on. The one computation
 * of a frame's checksum: the writer seals frames with it and {@link FrameDecoder}, which every
 * reader of frames uses, verifies them with it.
 *
 * <p><b>Threading:</b> not thread-safe; each thread that checksums frames owns an instance.
 */
public final class FrameChecksum {
    private static final int BINDING_POSITION_OFFSET = 0;
    private static final int BINDING_LOG_ID_OFFSET = 8;
    private static final int BINDING_FRAME_LENGTH_OFFSET = 16;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer binding = ByteBuffer.allocateDirect(BINDING_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final long logId;

    /** @param logId the identity of the log whose frames this checksums. */
    public FrameChecksum(final long logId) {
        this.logId = logId;
    }

    /**
     * Checksum of a frame held in a direct buffer. Leaves the buffer cleared (position zero, limit at capacity).
     *
     * @param frames a direct buffer holding the frame.
     * @param frameOffset index of the frame's first byte in {@code frames}.
     * @param frameLength the frame's length field.
     * @param position the log position the frame belongs at.
     * @return the checksum.
     */
    public int compute(final ByteBuffer frames, final int frameOffset, final int frameLength, final long position) {
        return compute(frames, frameOffset, frameLength, frameLength, position);
    }

    /**
     * Checksum of a frame of which only part is covered (a discard frame covers its header only; see
     * {@link FrameDescriptor#checksummedLength}). Leaves the buffer cleared.
     *
     * @param frames a direct buffer holding the frame's covered bytes.
     * @param frameOffset index of the frame's first byte in {@code frames}.
     * @param frameLength the frame's length field.
     * @param checksummedLength how many of the frame's bytes the checksum covers, from its start.
     * @param position the log position the frame belongs at.
     * @return the checksum.
     */
    public int compute(
            final ByteBuffer frames,
            final int frameOffset,
            final int frameLength,
            final int checksummedLength,
            final long position) {
        crc.reset();
        binding.clear();
        binding.putLong(BINDING_POSITION_OFFSET, position)
                .putLong(BINDING_LOG_ID_OFFSET, logId)
                .putInt(BINDING_FRAME_LENGTH_OFFSET, frameLength);
        crc.update(binding);
        if (checksummedLength > SHORT_PADDING_LENGTH) {
            frames.clear();
            frames.position(frameOffset + TYPE_OFFSET);
            frames.limit(frameOffset + checksummedLength);
            crc.update(frames);
            frames.clear();
        }
        return (int) crc.getValue();
    }
}
