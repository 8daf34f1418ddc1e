package io.walden.format;

import static io.walden.format.FrameDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.FrameDescriptor.DURABLE_OFFSET_OFFSET;
import static io.walden.format.FrameDescriptor.FLAGS_OFFSET;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.LENGTH_OFFSET;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;
import static io.walden.format.FrameDescriptor.TYPE_SKIPPABLE_MASK;

import java.nio.ByteBuffer;

/**
 * Reads the frame at one position of a log and judges it by the format's rules ({@link
 * FrameDescriptor} has the layout): the one decoder that recovery, readers, the read-only view and the
 * tools use, so that all of them take the same bytes for the same frame.
 *
 * <p>The caller holds bytes of a segment in a buffer, from the frame's first byte on, and says how
 * many it holds, where the frame is (its segment's base position and its offset in the segment) and
 * where the segment ends. {@link #decode} answers, judging in this order:
 *
 * <table>
 *   <caption>The frame rules, in the order they are applied</caption>
 *   <tr><th>bytes</th><th>verdict</th></tr>
 *   <tr><td>fewer than 8 held</td><td>{@link Verdict#MORE_BYTES}</td></tr>
 *   <tr><td>length 0</td><td>{@link Verdict#EMPTY}: nothing was written there</td></tr>
 *   <tr><td>length other than 8, below 16, or past the segment's end</td>
 *       <td>{@link Problem#IMPOSSIBLE_LENGTH}</td></tr>
 *   <tr><td>the header (16 bytes), then the frame to its aligned end (a discard frame: its header),
 *       not all held</td><td>{@link Verdict#MORE_BYTES}, with {@link #bytesNeeded()}</td></tr>
 *   <tr><td>checksum does not match</td><td>{@link Problem#CHECKSUM_MISMATCH}</td></tr>
 *   <tr><td>type not data, padding or discard, and without {@link FrameDescriptor#TYPE_SKIPPABLE_MASK}</td>
 *       <td>{@link Problem#UNKNOWN_TYPE}</td></tr>
 *   <tr><td>flags other than none, or {@link FrameDescriptor#FLAG_BATCH_CONTINUES} and a codec id on a data frame</td>
 *       <td>{@link Problem#FLAGS_NOT_ALLOWED}</td></tr>
 *   <tr><td>durable offset outside [4096, the frame's offset]</td>
 *       <td>{@link Problem#DURABLE_OFFSET_OUT_OF_RANGE}</td></tr>
 *   <tr><td>a discard frame that ends neither at the segment's end nor at a 4096-byte block boundary</td>
 *       <td>{@link Problem#DISCARD_ENDS_OFF_BLOCK}</td></tr>
 *   <tr><td>a non-zero byte in the alignment gap</td><td>{@link Problem#ALIGNMENT_GAP_NOT_ZERO}</td></tr>
 *   <tr><td>anything else</td><td>{@link Verdict#FRAME}: data, padding (short or not), discard, or an
 *       unknown type that readers skip</td></tr>
 * </table>
 *
 * <p>The bytes a discard frame covers are not part of it; a caller that reads them (recovery, the
 * dump) judges them with {@link #judgeDiscardedBytes}. Whether a frame may follow the one before it
 * (batches) is not a rule of one frame either: the callers that follow batches judge it.
 *
 * <p>Decoding allocates nothing. After a call, the accessors describe the frame as far as it was
 * read: {@link #frameLength()} once 8 bytes were held, the header fields once a full header was.
 *
 * <p><b>Threading:</b> not thread-safe; each thread that decodes frames owns an instance.
 */
public final class FrameDecoder {
    /** What the bytes at a frame's position are. */
    public enum Verdict {
        /** A valid frame; the accessors describe it. */
        FRAME,
        /** A zero length: nothing was written there. */
        EMPTY,
        /** The buffer holds too few bytes to judge; {@link #bytesNeeded()} says how many it needs. */
        MORE_BYTES,
        /** Not a valid frame; {@link #problem()} says why and {@link #describe()} says it in words. */
        INVALID
    }

    /** Why bytes are not a valid frame, in the order the rules are applied. */
    public enum Problem {
        /** The frame is valid, or was not judged invalid. */
        NONE,
        /** The length field is not 8, below the header's length or runs past the segment's end. */
        IMPOSSIBLE_LENGTH,
        /** The stored checksum differs from the one computed over the frame where it lies. */
        CHECKSUM_MISMATCH,
        /** A type that is neither known nor marked skippable. */
        UNKNOWN_TYPE,
        /** Flags that the frame's type may not carry. */
        FLAGS_NOT_ALLOWED,
        /** A durable offset before the first frame or after the frame itself. */
        DURABLE_OFFSET_OUT_OF_RANGE,
        /** A discard frame that ends neither at its segment's end nor at a block boundary. */
        DISCARD_ENDS_OFF_BLOCK,
        /** A non-zero byte in the range a discard frame covers ({@link #judgeDiscardedBytes}). */
        DISCARD_COVERS_DATA,
        /** A non-zero byte between the frame's end and its aligned end. */
        ALIGNMENT_GAP_NOT_ZERO
    }

    /** Offset in a segment of its first frame: a durable offset never lies below it. */
    private static final int FIRST_FRAME_OFFSET = SegmentHeaderDescriptor.HEADER_LENGTH;
    /** A discard frame that does not run to its segment's end ends at a multiple of this. */
    private static final int DISCARD_END_ALIGNMENT = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;

    // The header is read as two little-endian int64 words, at LENGTH_OFFSET (length, checksum) and at
    // TYPE_OFFSET (type, flags, durable offset); a field's shift is its offset within its word, in bits.
    private static final int CHECKSUM_SHIFT = (CHECKSUM_OFFSET - LENGTH_OFFSET) * Byte.SIZE;
    private static final int TYPE_SHIFT = 0;
    private static final int FLAGS_SHIFT = (FLAGS_OFFSET - TYPE_OFFSET) * Byte.SIZE;
    private static final int DURABLE_OFFSET_SHIFT = (DURABLE_OFFSET_OFFSET - TYPE_OFFSET) * Byte.SIZE;

    static {
        if (CHECKSUM_OFFSET + Integer.BYTES > LENGTH_OFFSET + Long.BYTES
                || TYPE_OFFSET != LENGTH_OFFSET + Long.BYTES
                || DURABLE_OFFSET_OFFSET + Integer.BYTES > TYPE_OFFSET + Long.BYTES) {
            throw new ExceptionInInitializerError("the frame header no longer fits the decoder's two words");
        }
    }

    private final FrameChecksum checksum;

    private long frameOffset;
    private int frameLength;
    private boolean hasHeader;
    private short frameType;
    private short flags;
    private int durableOffset;
    private int bytesNeeded;
    private boolean checksumMatched;
    private Problem problem = Problem.NONE;
    private int storedChecksum;
    private int computedChecksum;
    // Where a non-zero byte was found: in the alignment gap, or the end of those a discard frame covers.
    private long nonZeroOffset;

    /**
     * Creates a decoder for the frames of one log.
     *
     * @param logId the log's identity, which every frame's checksum covers.
     */
    public FrameDecoder(final long logId) {
        this.checksum = new FrameChecksum(logId);
    }

    /**
     * Decodes and judges the frame at a position.
     *
     * @param buffer holds the frame's bytes from {@code index}, in little-endian order. Its position and
     *     limit are ignored, and may be left cleared (position zero, limit at its capacity).
     * @param index where the frame's first byte is in {@code buffer}.
     * @param availableBytes how many bytes from {@code index} the buffer holds of the segment.
     * @param basePosition the log position of the frame's segment.
     * @param frameOffset the frame's offset in its segment, 8-byte aligned.
     * @param segmentEndOffset where the segment ends: no frame runs past it.
     * @return the verdict; the accessors tell more.
     */
    public Verdict decode(
            final ByteBuffer buffer,
            final int index,
            final int availableBytes,
            final long basePosition,
            final long frameOffset,
            final long segmentEndOffset) {
        // Kept small for the JIT (the rules live in the small methods below), and it reads the header in
        // two 8-byte words: readers decode every frame they deliver.
        this.frameOffset = frameOffset;
        checksumMatched = false;
        if (problem != Problem.NONE) {
            // A reference store costs a GC barrier: skipped on the valid path, where it is NONE already.
            problem = Problem.NONE;
        }
        if (availableBytes < SHORT_PADDING_LENGTH) {
            frameLength = 0;
            noHeader();
            return moreBytes(SHORT_PADDING_LENGTH);
        }
        final long lengthWord = buffer.getLong(index + LENGTH_OFFSET);
        frameLength = (int) lengthWord;
        readHeader(buffer, index, availableBytes);
        if (frameLength == 0) {
            return Verdict.EMPTY;
        }
        if (!possibleLength(frameOffset, segmentEndOffset)) {
            return invalid(Problem.IMPOSSIBLE_LENGTH);
        }
        if (frameLength >= HEADER_LENGTH && !hasHeader) {
            return moreBytes(HEADER_LENGTH);
        }
        final int needed = bytesToJudge();
        if (availableBytes < needed) {
            return moreBytes(needed);
        }
        if (!checksumMatches(buffer, index, (int) (lengthWord >>> CHECKSUM_SHIFT), basePosition + frameOffset)) {
            return invalid(Problem.CHECKSUM_MISMATCH);
        }
        final Problem found = hasHeader ? fieldProblem(segmentEndOffset) : Problem.NONE;
        if (found != Problem.NONE) {
            return invalid(found);
        }
        return needed > frameLength && !gapZero(buffer, index)
                ? invalid(Problem.ALIGNMENT_GAP_NOT_ZERO)
                : Verdict.FRAME;
    }

    /**
     * Whether anything was written in a frame slot: its length field is not zero.
     *
     * @param buffer holds the slot's length field at {@code index}, in little-endian order.
     * @param index where the slot starts in {@code buffer}.
     * @return true if the length field is not zero.
     */
    public static boolean slotWritten(final ByteBuffer buffer, final int index) {
        return buffer.getInt(index + LENGTH_OFFSET) != 0;
    }

    /**
     * Whether the header at a position could be a valid frame's, without the checksum: the length
     * fits and, for a full header, type, flags and durable offset are allowed: a cheap test before
     * {@link #decode}.
     *
     * @param buffer holds the frame's bytes from {@code index}, in little-endian order.
     * @param index where the frame's first byte is in {@code buffer}.
     * @param availableBytes how many bytes from {@code index} the buffer holds of the segment.
     * @param frameOffset the frame's offset in its segment.
     * @param segmentEndOffset where the segment ends.
     * @return true if plausible: a short padding frame (no header), or a full header; false also if the
     *     buffer holds too little of the header to tell.
     */
    public boolean plausibleHeader(
            final ByteBuffer buffer,
            final int index,
            final int availableBytes,
            final long frameOffset,
            final long segmentEndOffset) {
        this.frameOffset = frameOffset;
        checksumMatched = false;
        if (availableBytes < SHORT_PADDING_LENGTH) {
            frameLength = 0;
            noHeader();
            return false;
        }
        frameLength = buffer.getInt(index + LENGTH_OFFSET);
        readHeader(buffer, index, availableBytes);
        if (frameLength == 0 || !possibleLength(frameOffset, segmentEndOffset)) {
            return false;
        }
        if (frameLength < HEADER_LENGTH) {
            return true;
        }
        return hasHeader && headerProblem() == Problem.NONE;
    }

    /**
     * Judges the bytes that the discard frame {@link #decode} just found valid covers: recovery leaves
     * them zero.
     *
     * @param nonZeroEndOffset the segment offset after the last non-zero byte from the end of the
     *     discard frame's header to the frame's end; the header's end if all are zero.
     * @return {@link Verdict#FRAME} if all are zero, else {@link Verdict#INVALID} with {@link
     *     Problem#DISCARD_COVERS_DATA}.
     * @throws IllegalStateException if the last frame decoded is not a valid discard frame.
     */
    public Verdict judgeDiscardedBytes(final long nonZeroEndOffset) {
        if (!checksumMatched || problem != Problem.NONE || !hasHeader || frameType != TYPE_DISCARD) {
            throw new IllegalStateException("the last frame decoded is not a valid discard frame");
        }
        if (nonZeroEndOffset > frameOffset + HEADER_LENGTH) {
            nonZeroOffset = nonZeroEndOffset;
            return invalid(Problem.DISCARD_COVERS_DATA);
        }
        return Verdict.FRAME;
    }

    /** @return the frame's length field, header and payload unaligned; 0 if fewer than 8 bytes were held. */
    public int frameLength() {
        return frameLength;
    }

    /** @return the space the frame takes in its segment: its length rounded up to 8. */
    public int alignedLength() {
        return FrameDescriptor.alignedLength(frameLength);
    }

    /** @return whether the frame has a full header (type, flags, durable offset); a short padding has none. */
    public boolean hasHeader() {
        return hasHeader;
    }

    /** @return the type field; {@link FrameDescriptor#TYPE_PADDING} for a short padding frame. */
    public short frameType() {
        return frameType;
    }

    /** @return the flags field; 0 without a full header. */
    public short flags() {
        return flags;
    }

    /** @return whether a data frame's batch goes on in the next frame. */
    public boolean batchContinues() {
        return FrameDescriptor.batchContinues(flags);
    }

    /** @return the id of the codec that encoded a data frame's payload; 0 if it is stored as given. */
    public int codecId() {
        return FrameDescriptor.codecId(flags);
    }

    /** @return the durable offset field; -1 without a full header. */
    public int durableOffset() {
        return durableOffset;
    }

    /** @return after {@link Verdict#MORE_BYTES}: how many bytes from the frame's start are needed. */
    public int bytesNeeded() {
        return bytesNeeded;
    }

    /** @return whether the checksum matched (the frame may still break a rule checked after it). */
    public boolean checksumMatched() {
        return checksumMatched;
    }

    /** @return after {@link Verdict#INVALID}: why; {@link Problem#NONE} otherwise. */
    public Problem problem() {
        return problem;
    }

    /**
     * What is wrong with the frame last judged invalid, in the words recovery reports. Allocates: for
     * error paths.
     *
     * @return the problem as a sentence fragment.
     * @throws IllegalStateException if the last verdict was not {@link Verdict#INVALID}.
     */
    public String describe() {
        return switch (problem) {
            case IMPOSSIBLE_LENGTH -> "frame length " + frameLength + " is impossible here";
            case CHECKSUM_MISMATCH ->
                String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)", storedChecksum, computedChecksum);
            case UNKNOWN_TYPE -> "unknown frame type " + frameType;
            case FLAGS_NOT_ALLOWED ->
                "frame flags 0x" + Integer.toHexString(flags & 0xFFFF) + " not allowed on a frame of type " + frameType;
            case DURABLE_OFFSET_OUT_OF_RANGE ->
                "durable offset " + durableOffset + " outside [" + FIRST_FRAME_OFFSET + ", " + frameOffset
                        + "]: a frame can only prove what was synced before it";
            case DISCARD_ENDS_OFF_BLOCK ->
                "discard frame of " + frameLength + " bytes ends at offset " + (frameOffset + frameLength)
                        + ", neither at the segment's end nor at a " + DISCARD_END_ALIGNMENT + "-byte block boundary";
            case DISCARD_COVERS_DATA ->
                "non-zero byte before offset " + nonZeroOffset + " in the range the discard frame covers,"
                        + " which recovery leaves zero";
            case ALIGNMENT_GAP_NOT_ZERO ->
                "non-zero byte at offset " + nonZeroOffset + " in the alignment gap after the frame,"
                        + " which the writer leaves zero";
            case NONE -> throw new IllegalStateException("the last frame decoded is not invalid");
        };
    }

    /** A discard frame's checksum covers its header only, and the bytes it covers are judged apart. */
    private int bytesToJudge() {
        return hasHeader && frameType == TYPE_DISCARD ? HEADER_LENGTH : alignedLength();
    }

    /** Notes both checksums if they differ, for {@link #describe}. */
    private boolean checksumMatches(final ByteBuffer buffer, final int index, final int stored, final long position) {
        final int computed = checksum.compute(
                buffer, index, frameLength, FrameDescriptor.checksummedLength(frameLength, frameType), position);
        checksumMatched = stored == computed;
        if (!checksumMatched) {
            storedChecksum = stored;
            computedChecksum = computed;
        }
        return checksumMatched;
    }

    /** As {@link #headerProblem}, and the discard frame's end. */
    private Problem fieldProblem(final long segmentEndOffset) {
        final Problem found = headerProblem();
        if (found == Problem.NONE
                && frameType == TYPE_DISCARD
                && frameOffset + frameLength != segmentEndOffset
                && (frameOffset + frameLength) % DISCARD_END_ALIGNMENT != 0) {
            return Problem.DISCARD_ENDS_OFF_BLOCK;
        }
        return found;
    }

    /** Notes the offset of a non-zero byte. */
    private boolean gapZero(final ByteBuffer buffer, final int index) {
        for (int i = frameLength, end = alignedLength(); i < end; i++) {
            if (buffer.get(index + i) != 0) {
                nonZeroOffset = frameOffset + i;
                return false;
            }
        }
        return true;
    }

    /** From the header's second word, if the length calls for a full header and the buffer holds one. */
    private void readHeader(final ByteBuffer buffer, final int index, final int availableBytes) {
        if (frameLength < HEADER_LENGTH || availableBytes < HEADER_LENGTH) {
            noHeader();
            return;
        }
        final long fieldsWord = buffer.getLong(index + TYPE_OFFSET);
        hasHeader = true;
        frameType = (short) (fieldsWord >>> TYPE_SHIFT);
        flags = (short) (fieldsWord >>> FLAGS_SHIFT);
        durableOffset = (int) (fieldsWord >>> DURABLE_OFFSET_SHIFT);
    }

    private void noHeader() {
        hasHeader = false;
        frameType = TYPE_PADDING;
        flags = 0;
        durableOffset = -1;
    }

    /** A short padding, or a full header that ends by the segment's end. */
    private boolean possibleLength(final long frameOffset, final long segmentEndOffset) {
        return frameLength == SHORT_PADDING_LENGTH
                || (frameLength >= HEADER_LENGTH && frameLength <= segmentEndOffset - frameOffset);
    }

    /** The first rule a full header's type, flags or durable offset breaks, or NONE. */
    private Problem headerProblem() {
        if (frameType != TYPE_DATA
                && frameType != TYPE_PADDING
                && frameType != TYPE_DISCARD
                && (frameType & TYPE_SKIPPABLE_MASK) == 0) {
            return Problem.UNKNOWN_TYPE;
        }
        if (!FrameDescriptor.validFlags(frameType, flags)) {
            return Problem.FLAGS_NOT_ALLOWED;
        }
        if (durableOffset < FIRST_FRAME_OFFSET || durableOffset > frameOffset) {
            return Problem.DURABLE_OFFSET_OUT_OF_RANGE;
        }
        return Problem.NONE;
    }

    private Verdict moreBytes(final int needed) {
        bytesNeeded = needed;
        return Verdict.MORE_BYTES;
    }

    private Verdict invalid(final Problem found) {
        problem = found;
        return Verdict.INVALID;
    }
}
