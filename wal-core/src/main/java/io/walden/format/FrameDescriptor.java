package io.walden.format;

import java.nio.ByteOrder;
import org.agrona.BitUtil;

/**
 * Layout of a frame: the unit in which records are written to a segment.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Frame Length (int32, LE)                     |  0
 *  +---------------------------------------------------------------+
 *  |                  Checksum (CRC32C, int32, LE)                 |  4
 *  +-------------------------------+-------------------------------+
 *  |      Frame Type (int16)       |         Flags (int16)         |  8
 *  +-------------------------------+-------------------------------+
 *  |                  Durable Offset (int32, LE)                   |  12
 *  +---------------------------------------------------------------+
 *  |                     Payload ...                              ...  16
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>A frame starts at an 8-byte aligned position; the next frame starts {@code align(frameLength,
 *       8)} bytes after it, and the gap between is zero. Alignment keeps the length field from tearing.
 *   <li>A frame length of zero marks space never written (segments are zero-filled when prepared).
 *   <li>The checksum is CRC32C over a 20-byte binding block (the frame's log position and the log's
 *       identity as int64, the frame length as int32, little-endian) followed by the frame's bytes from
 *       {@link #TYPE_OFFSET} to the frame length: a frame validates only at the position, in the log
 *       and with the length it was written for, so stale bytes from a recycled file or a moved copy
 *       never validate.
 *   <li>A frame of exactly {@link #SHORT_PADDING_LENGTH} bytes holds only length and checksum: padding
 *       for an 8-byte gap.
 *   <li>A frame of type {@link #TYPE_PADDING} is skipped; padding closes every segment and each lap of
 *       the log buffer.
 *   <li>The durable offset is the offset in this frame's segment below which the log was durable
 *       (synced) when the frame was written, from the first frame offset up to the frame's own. A valid
 *       frame therefore proves that everything before it reached stable storage: recovery treats damage
 *       below the highest durable offset any valid frame carries as corruption, never as a torn write.
 *   <li>A frame of type {@link #TYPE_DISCARD} is written by recovery only, over positions the log gave
 *       up, up to its segment's end. Its checksum covers the binding block and its header only, since
 *       the bytes it covers are never read again; positions under it are never given to another record.
 *   <li>Flags: {@link #FLAG_BATCH_CONTINUES} on a data frame says that the next record of the same
 *       batch follows in the next frame. A batch ends at its first data frame without the flag, or at a
 *       discard frame (a truncation kept the batch's records up to there); one whose frames end any
 *       other way is incomplete: readers never deliver it, and recovery cuts it as a torn tail. Bits 8
 *       to 11 ({@link #FLAGS_CODEC_MASK}) of a data frame name the codec that encoded its payload
 *       ({@link io.walden.codec.RecordCodec}); zero means stored as given. The checksum covers the
 *       payload as stored. Every other flag bit is reserved and zero, and no other frame type carries a
 *       flag.
 *   <li>Types with the high bit ({@link #TYPE_SKIPPABLE_MASK}) set may be skipped by readers that do
 *       not know them; other unknown types are corruption.
 * </ul>
 *
 * <p>{@link FrameDecoder} reads frames by these rules for every reader of a log; {@link FrameChecksum}
 * computes the checksum.
 */
public final class FrameDescriptor {
    /** Offset of the int32 frame length: header plus payload, not aligned. */
    public static final int LENGTH_OFFSET = 0;
    /** Offset of the int32 CRC32C checksum. */
    public static final int CHECKSUM_OFFSET = 4;
    /** Offset of the int16 frame type. */
    public static final int TYPE_OFFSET = 8;
    /** Offset of the int16 flags. */
    public static final int FLAGS_OFFSET = 10;
    /** Offset of the int32 durable offset. */
    public static final int DURABLE_OFFSET_OFFSET = 12;
    /** Length of the full frame header; the payload starts here. */
    public static final int HEADER_LENGTH = 16;
    /** Alignment of every frame's position and of every frame's space in a segment. */
    public static final int FRAME_ALIGNMENT = 8;
    /** Length of the header-less padding frame that fills an 8-byte gap. */
    public static final int SHORT_PADDING_LENGTH = 8;
    /** Length of the checksum binding block: position, log identity, frame length. */
    public static final int BINDING_LENGTH = 20;

    /** A frame carrying one record. */
    public static final short TYPE_DATA = 1;
    /** A frame that fills space and carries nothing; its body is zero. */
    public static final short TYPE_PADDING = 2;
    /** A frame written by recovery over positions the log gave up, up to its segment's end. */
    public static final short TYPE_DISCARD = 3;
    /** Data frame flag: the record's batch goes on in the next frame. */
    public static final short FLAG_BATCH_CONTINUES = 0x1;
    /** Data frame flags: the id of the codec that encoded the payload (zero: stored as given). */
    public static final short FLAGS_CODEC_MASK = 0x0F00;
    /** Shift of the codec id within the flags. */
    public static final int FLAGS_CODEC_SHIFT = 8;
    /** Every flag bit a valid frame may carry. */
    public static final short FLAGS_KNOWN = FLAG_BATCH_CONTINUES | FLAGS_CODEC_MASK;

    /** Frame types with this bit set may be skipped by readers that do not know them. */
    public static final int TYPE_SKIPPABLE_MASK = 0x8000;

    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError(
                    "Walden's format is little-endian and its code needs a little-endian platform");
        }
        if (HEADER_LENGTH % FRAME_ALIGNMENT != 0 || SHORT_PADDING_LENGTH != FRAME_ALIGNMENT) {
            throw new ExceptionInInitializerError("frame layout constants are inconsistent");
        }
    }

    private FrameDescriptor() {}

    /**
     * Space a frame occupies in a segment.
     *
     * @param frameLength header plus payload bytes.
     * @return {@code frameLength} rounded up to {@link #FRAME_ALIGNMENT}.
     */
    public static int alignedLength(final int frameLength) {
        return BitUtil.align(frameLength, FRAME_ALIGNMENT);
    }

    /**
     * @param payloadLength payload bytes.
     * @return the frame length: header plus payload bytes.
     */
    public static int frameLength(final int payloadLength) {
        return HEADER_LENGTH + payloadLength;
    }

    /**
     * How many bytes of a frame its checksum covers after the binding block: the whole frame, except
     * for a discard frame, whose checksum covers its header only.
     *
     * @param frameLength the frame's length field.
     * @param frameType the frame's type field, ignored for short padding.
     * @return the end of the checksummed bytes, relative to the frame's start.
     */
    public static int checksummedLength(final int frameLength, final short frameType) {
        return frameLength >= HEADER_LENGTH && frameType == TYPE_DISCARD ? HEADER_LENGTH : frameLength;
    }

    /**
     * Whether a frame's flags are allowed for its type: none but {@link #FLAG_BATCH_CONTINUES} and a
     * codec id ({@link #FLAGS_CODEC_MASK}), and those on data frames only.
     *
     * @param frameType the frame's type field.
     * @param flags the frame's flags field.
     * @return true if the flags are valid.
     */
    public static boolean validFlags(final short frameType, final short flags) {
        return flags == 0 || (frameType == TYPE_DATA && (flags & ~FLAGS_KNOWN) == 0);
    }

    /**
     * @param flags a data frame's flags field.
     * @return the id of the codec that encoded the frame's payload, zero if it is stored as given.
     */
    public static int codecId(final short flags) {
        return (flags & FLAGS_CODEC_MASK) >>> FLAGS_CODEC_SHIFT;
    }

    /**
     * @param codecId a codec id, from 0 to 15.
     * @return the flag bits that name it.
     */
    public static short codecFlags(final int codecId) {
        if (codecId < 0 || codecId > (FLAGS_CODEC_MASK >>> FLAGS_CODEC_SHIFT)) {
            throw new IllegalArgumentException("a codec id is from 0 to 15: " + codecId);
        }
        return (short) (codecId << FLAGS_CODEC_SHIFT);
    }

    /**
     * @param flags a data frame's flags field.
     * @return true if the frame's batch goes on in the next frame.
     */
    public static boolean batchContinues(final short flags) {
        return (flags & FLAG_BATCH_CONTINUES) != 0;
    }

    /**
     * @param frameLength the frame's length field.
     * @param frameType the frame's type field, ignored for short padding.
     * @return true for padding frames (short, {@link #TYPE_PADDING} and {@link #TYPE_DISCARD}).
     */
    public static boolean isPadding(final int frameLength, final short frameType) {
        return frameLength == SHORT_PADDING_LENGTH || frameType == TYPE_PADDING || frameType == TYPE_DISCARD;
    }
}
