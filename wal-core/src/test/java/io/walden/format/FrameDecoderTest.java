package io.walden.format;

import static io.walden.format.FrameDescriptor.FLAG_BATCH_CONTINUES;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDecoder.Problem;
import io.walden.format.FrameDecoder.Verdict;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameDecoder} over every class of header input: each combination of length, type, flags,
 * checksum, durable offset and alignment gap, judged against the rules of FORMAT.md written out plainly
 * here ({@link #expected}), with frames sealed by an independent CRC32C; then how many bytes it asks for,
 * the cheap header test, the discard frame's covered bytes, the words of each problem (recovery reports
 * them, and tests of recovery match them), and that the valid path allocates nothing.
 */
class FrameDecoderTest {
    private static final long LOG_ID = 0x0123_4567_89AB_CDEFL;
    private static final long BASE = 1L << 30;
    private static final int FRAME_OFFSET = 8192;
    private static final int SEGMENT_END = FRAME_OFFSET + 8192;
    /** Where the frame starts in the test buffer: not at zero, so that indexes are honoured. */
    private static final int INDEX = 40;

    private static final int[] LENGTHS = {
        0, // nothing written
        4, // below a short padding
        SHORT_PADDING_LENGTH, // short padding
        12, // between short padding and a header
        15, // one byte short of a header
        HEADER_LENGTH, // header only, aligned
        HEADER_LENGTH + 1, // unaligned by 7
        HEADER_LENGTH + 7, // unaligned by 1
        HEADER_LENGTH + 8, // aligned
        HEADER_LENGTH + 100, // unaligned by 4
        4096, // to a block boundary before the segment's end (a discard frame before a write limit)
        SEGMENT_END - FRAME_OFFSET, // exactly to the segment's end
        SEGMENT_END - FRAME_OFFSET + 8, // beyond the segment's end
        -16, // negative
        Integer.MAX_VALUE,
    };
    private static final short[] TYPES = {
        TYPE_DATA, TYPE_PADDING, TYPE_DISCARD, (short) 0x8001, (short) 0xFFFF, 0, 4, 0x7FFF,
    };
    private static final short[] FLAGS = {0, FLAG_BATCH_CONTINUES, 0x2, (short) 0x8000, (short) 0xFFFF};
    private static final int[] DURABLE_OFFSETS = {
        -1,
        SegmentHeaderDescriptor.HEADER_LENGTH - 8,
        SegmentHeaderDescriptor.HEADER_LENGTH,
        FRAME_OFFSET,
        FRAME_OFFSET + 8,
    };

    private final FrameDecoder decoder = new FrameDecoder(LOG_ID);

    @Test
    void everyCombinationOfHeaderInputsIsJudgedByTheFormatRules() {
        int cases = 0;
        int valid = 0;
        for (final int length : LENGTHS) {
            for (final short type : TYPES) {
                for (final short flags : FLAGS) {
                    for (final int durableOffset : DURABLE_OFFSETS) {
                        for (final boolean checksumRight : new boolean[] {true, false}) {
                            for (final boolean gapZero : new boolean[] {true, false}) {
                                final ByteBuffer buffer =
                                        frame(length, type, flags, durableOffset, checksumRight, gapZero);
                                final Problem expected =
                                        expected(length, type, flags, durableOffset, checksumRight, gapZero);
                                final Verdict verdict = decoder.decode(
                                        buffer, INDEX, buffer.capacity() - INDEX, BASE, FRAME_OFFSET, SEGMENT_END);
                                final String what = "length " + length + " type " + type + " flags " + flags
                                        + " durable " + durableOffset + " checksum " + checksumRight + " gap zero "
                                        + gapZero;
                                if (length == 0) {
                                    assertEquals(Verdict.EMPTY, verdict, what);
                                } else if (expected == Problem.NONE) {
                                    assertEquals(Verdict.FRAME, verdict, what);
                                    assertValidFrameFields(length, type, flags, durableOffset, what);
                                    valid++;
                                } else {
                                    assertEquals(Verdict.INVALID, verdict, what);
                                    assertEquals(expected, decoder.problem(), what);
                                    assertFalse(decoder.describe().isEmpty(), what);
                                }
                                assertEquals(
                                        expected.ordinal() > Problem.CHECKSUM_MISMATCH.ordinal()
                                                || verdict == Verdict.FRAME,
                                        decoder.checksumMatched(),
                                        what);
                                cases++;
                            }
                        }
                    }
                }
            }
        }
        assertEquals(LENGTHS.length * TYPES.length * FLAGS.length * DURABLE_OFFSETS.length * 4, cases);
        assertTrue(valid > 50, "valid frames among the cases: " + valid);
    }

    private void assertValidFrameFields(
            final int length, final short type, final short flags, final int durableOffset, final String what) {
        assertEquals(length, decoder.frameLength(), what);
        assertEquals(FrameDescriptor.alignedLength(length), decoder.alignedLength(), what);
        if (length == SHORT_PADDING_LENGTH) {
            assertFalse(decoder.hasHeader(), what);
            assertEquals(TYPE_PADDING, decoder.frameType(), what);
            assertEquals(0, decoder.flags(), what);
            assertEquals(-1, decoder.durableOffset(), what);
        } else {
            assertTrue(decoder.hasHeader(), what);
            assertEquals(type, decoder.frameType(), what);
            assertEquals(flags, decoder.flags(), what);
            assertEquals(durableOffset, decoder.durableOffset(), what);
            assertEquals(flags == FLAG_BATCH_CONTINUES, decoder.batchContinues(), what);
        }
    }

    /**
     * The rules of FORMAT.md ("Frame"), in the order recovery reports them: the first problem, or NONE
     * for a valid frame (or an empty slot, length 0).
     */
    private static Problem expected(
            final int length,
            final short type,
            final short flags,
            final int durableOffset,
            final boolean checksumRight,
            final boolean gapZero) {
        if (length == 0) {
            return Problem.NONE;
        }
        final boolean shortPadding = length == SHORT_PADDING_LENGTH;
        if (!shortPadding && (length < HEADER_LENGTH || length > SEGMENT_END - FRAME_OFFSET)) {
            return Problem.IMPOSSIBLE_LENGTH;
        }
        if (!checksumRight) {
            return Problem.CHECKSUM_MISMATCH;
        }
        if (!shortPadding) {
            final boolean known = type == TYPE_DATA || type == TYPE_PADDING || type == TYPE_DISCARD;
            if (!known && (type & 0x8000) == 0) {
                return Problem.UNKNOWN_TYPE;
            }
            if (flags != 0 && !(type == TYPE_DATA && flags == FLAG_BATCH_CONTINUES)) {
                return Problem.FLAGS_NOT_ALLOWED;
            }
            if (durableOffset < SegmentHeaderDescriptor.HEADER_LENGTH || durableOffset > FRAME_OFFSET) {
                return Problem.DURABLE_OFFSET_OUT_OF_RANGE;
            }
            if (type == TYPE_DISCARD && FRAME_OFFSET + length != SEGMENT_END && (FRAME_OFFSET + length) % 4096 != 0) {
                return Problem.DISCARD_ENDS_OFF_BLOCK;
            }
        }
        if (length % 8 != 0 && !gapZero) {
            return Problem.ALIGNMENT_GAP_NOT_ZERO;
        }
        return Problem.NONE;
    }

    @Test
    void asksForTheLengthThenTheHeaderThenTheWholeFrameButOnlyTheHeaderOfADiscardFrame() {
        final int[][] frames = {
            // length, type, bytes needed to judge it
            {SHORT_PADDING_LENGTH, TYPE_PADDING, SHORT_PADDING_LENGTH},
            {HEADER_LENGTH + 1, TYPE_DATA, HEADER_LENGTH + 8},
            {HEADER_LENGTH + 100, TYPE_PADDING, HEADER_LENGTH + 104},
            {SEGMENT_END - FRAME_OFFSET, TYPE_DISCARD, HEADER_LENGTH},
            {SEGMENT_END - FRAME_OFFSET, 0x8001, SEGMENT_END - FRAME_OFFSET},
        };
        for (final int[] frame : frames) {
            final int length = frame[0];
            final ByteBuffer buffer = frame(length, (short) frame[1], (short) 0, FRAME_OFFSET, true, true);
            for (int available = 0; available < frame[2]; available++) {
                final String what = "length " + length + " type " + frame[1] + " with " + available + " bytes";
                assertEquals(Verdict.MORE_BYTES, decode(buffer, available), what);
                final int needed = available < SHORT_PADDING_LENGTH
                        ? SHORT_PADDING_LENGTH
                        : length >= HEADER_LENGTH && available < HEADER_LENGTH ? HEADER_LENGTH : frame[2];
                assertEquals(needed, decoder.bytesNeeded(), what);
            }
            assertEquals(Verdict.FRAME, decode(buffer, frame[2]), "length " + length + " with all it needs");
        }
    }

    @Test
    void judgesAnEmptySlotAndAnImpossibleLengthFromTheLengthAloneBeforeAskingForMore() {
        final ByteBuffer empty = frame(0, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        assertEquals(Verdict.EMPTY, decode(empty, SHORT_PADDING_LENGTH));
        final ByteBuffer beyond = frame(SEGMENT_END - FRAME_OFFSET + 8, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        assertEquals(Verdict.INVALID, decode(beyond, SHORT_PADDING_LENGTH));
        assertEquals(Problem.IMPOSSIBLE_LENGTH, decoder.problem());
    }

    @Test
    void aFrameValidatesOnlyAtItsPositionAndInItsLog() {
        final ByteBuffer buffer = frame(HEADER_LENGTH + 24, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        assertEquals(Verdict.FRAME, decode(buffer, buffer.capacity() - INDEX));
        assertEquals(
                Verdict.INVALID,
                decoder.decode(buffer, INDEX, buffer.capacity() - INDEX, BASE, FRAME_OFFSET + 8, SEGMENT_END));
        assertEquals(Problem.CHECKSUM_MISMATCH, decoder.problem());
        assertEquals(
                Verdict.INVALID,
                new FrameDecoder(LOG_ID + 1)
                        .decode(buffer, INDEX, buffer.capacity() - INDEX, BASE, FRAME_OFFSET, SEGMENT_END));
        assertEquals(
                Verdict.INVALID,
                decoder.decode(buffer, INDEX, buffer.capacity() - INDEX, BASE * 2, FRAME_OFFSET, SEGMENT_END));
    }

    @Test
    void plausibleHeaderAppliesTheHeaderRulesWithoutTheChecksumOrTheGap() {
        for (final int length : LENGTHS) {
            for (final short type : TYPES) {
                for (final short flags : FLAGS) {
                    for (final int durableOffset : DURABLE_OFFSETS) {
                        final ByteBuffer buffer = frame(length, type, flags, durableOffset, false, false);
                        final Problem problem = expected(length, type, flags, durableOffset, true, true);
                        final boolean plausible =
                                length != 0 && (problem == Problem.NONE || problem == Problem.DISCARD_ENDS_OFF_BLOCK);
                        final String what =
                                "length " + length + " type " + type + " flags " + flags + " durable " + durableOffset;
                        assertEquals(
                                plausible,
                                decoder.plausibleHeader(
                                        buffer, INDEX, buffer.capacity() - INDEX, FRAME_OFFSET, SEGMENT_END),
                                what);
                        if (plausible) {
                            assertEquals(length >= HEADER_LENGTH, decoder.hasHeader(), what);
                            assertEquals(length, decoder.frameLength(), what);
                        }
                    }
                }
            }
        }
        final ByteBuffer data = frame(HEADER_LENGTH + 8, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        assertFalse(decoder.plausibleHeader(data, INDEX, HEADER_LENGTH - 1, FRAME_OFFSET, SEGMENT_END));
        assertFalse(decoder.plausibleHeader(data, INDEX, SHORT_PADDING_LENGTH - 1, FRAME_OFFSET, SEGMENT_END));
    }

    @Test
    void aDiscardFrameIsValidOnlyIfTheBytesItCoversAreZero() {
        final ByteBuffer discard = frame(SEGMENT_END - FRAME_OFFSET, TYPE_DISCARD, (short) 0, FRAME_OFFSET, true, true);
        assertEquals(Verdict.FRAME, decode(discard, HEADER_LENGTH));
        assertEquals(Verdict.FRAME, decoder.judgeDiscardedBytes(FRAME_OFFSET + HEADER_LENGTH));
        assertEquals(Verdict.INVALID, decoder.judgeDiscardedBytes(FRAME_OFFSET + 100));
        assertEquals(Problem.DISCARD_COVERS_DATA, decoder.problem());
        assertEquals(
                "non-zero byte before offset 8292 in the range the discard frame covers, which recovery leaves zero",
                decoder.describe());
        final ByteBuffer data = frame(HEADER_LENGTH + 8, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        assertEquals(Verdict.FRAME, decode(data, data.capacity() - INDEX));
        assertThrows(IllegalStateException.class, () -> decoder.judgeDiscardedBytes(FRAME_OFFSET + 100));
        assertThrows(IllegalStateException.class, decoder::describe);
    }

    /** Recovery reports these words, and tests of recovery and of the tools match them: they stay. */
    @Test
    void describesEachProblemInRecoverysWords() {
        assertDescribes(
                frame(12, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true), "frame length 12 is impossible here");
        final ByteBuffer badChecksum = frame(HEADER_LENGTH + 8, TYPE_DATA, (short) 0, FRAME_OFFSET, true, true);
        final int stored = badChecksum.getInt(INDEX + FrameDescriptor.CHECKSUM_OFFSET);
        badChecksum.putInt(INDEX + FrameDescriptor.CHECKSUM_OFFSET, stored ^ 0x10);
        assertDescribes(
                badChecksum,
                String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)", stored ^ 0x10, stored));
        assertDescribes(
                frame(HEADER_LENGTH + 8, (short) 4, (short) 0, FRAME_OFFSET, true, true), "unknown frame type 4");
        assertDescribes(
                frame(HEADER_LENGTH + 8, TYPE_PADDING, FLAG_BATCH_CONTINUES, FRAME_OFFSET, true, true),
                "frame flags 0x1 not allowed on a frame of type 2");
        assertDescribes(
                frame(HEADER_LENGTH + 8, TYPE_DATA, (short) 0xFFFF, FRAME_OFFSET, true, true),
                "frame flags 0xffff not allowed on a frame of type 1");
        assertDescribes(
                frame(HEADER_LENGTH + 8, TYPE_DATA, (short) 0, FRAME_OFFSET + 8, true, true),
                "durable offset 8200 outside [4096, 8192]: a frame can only prove what was synced before it");
        assertDescribes(
                frame(HEADER_LENGTH + 8, TYPE_DISCARD, (short) 0, FRAME_OFFSET, true, true),
                "discard frame of 24 bytes ends at offset 8216, neither at the segment's end nor at a 4096-byte block"
                        + " boundary");
        assertDescribes(
                frame(HEADER_LENGTH + 1, TYPE_DATA, (short) 0, FRAME_OFFSET, true, false),
                "non-zero byte at offset 8215 in the alignment gap after the frame, which the writer leaves zero");
    }

    private void assertDescribes(final ByteBuffer buffer, final String expected) {
        assertEquals(Verdict.INVALID, decode(buffer, buffer.capacity() - INDEX));
        assertEquals(expected, decoder.describe());
    }

    @Test
    void aSlotWithAZeroLengthHoldsNothing() {
        final ByteBuffer buffer = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        assertFalse(FrameDecoder.slotWritten(buffer, 0));
        buffer.put(3, (byte) 0x80);
        assertTrue(FrameDecoder.slotWritten(buffer, 0));
    }

    @Test
    void decodingAValidFrameAllocatesNothing() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final ByteBuffer data = frame(HEADER_LENGTH + 100, TYPE_DATA, FLAG_BATCH_CONTINUES, FRAME_OFFSET, true, true);
        final int available = data.capacity() - INDEX;
        long frames = 0;
        for (int i = 0; i < 20_000; i++) {
            frames += decode(data, available) == Verdict.FRAME ? 1 : 0;
            frames += decoder.plausibleHeader(data, INDEX, available, FRAME_OFFSET, SEGMENT_END) ? 1 : 0;
        }
        assertEquals(40_000, frames);
        // Up to three measured rounds: a one-off allocation (class loading, a JIT deoptimisation) shows
        // in one round at most; an allocation per call (at least 16 bytes each) shows in every round.
        long allocated = -1;
        for (int round = 0; round < 3 && allocated != 0; round++) {
            frames = 0;
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                frames += decode(data, available) == Verdict.FRAME ? 1 : 0;
                frames += decoder.plausibleHeader(data, INDEX, available, FRAME_OFFSET, SEGMENT_END) ? 1 : 0;
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertEquals(20_000, frames);
        }
        assertEquals(0, allocated, "bytes allocated by 10,000 decodes of a valid frame, in each of 3 rounds");
    }

    private Verdict decode(final ByteBuffer buffer, final int available) {
        return decoder.decode(buffer, INDEX, available, BASE, FRAME_OFFSET, SEGMENT_END);
    }

    /**
     * A frame at {@link #INDEX} of a direct buffer that holds it to its aligned end (a whole segment's
     * rest at most), sealed with a checksum computed independently of {@link FrameChecksum}.
     */
    private static ByteBuffer frame(
            final int length,
            final short type,
            final short flags,
            final int durableOffset,
            final boolean checksumRight,
            final boolean gapZero) {
        final int room = SEGMENT_END - FRAME_OFFSET + 16;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(INDEX + room).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(INDEX + FrameDescriptor.LENGTH_OFFSET, length);
        buffer.putShort(INDEX + FrameDescriptor.TYPE_OFFSET, type);
        buffer.putShort(INDEX + FrameDescriptor.FLAGS_OFFSET, flags);
        buffer.putInt(INDEX + FrameDescriptor.DURABLE_OFFSET_OFFSET, durableOffset);
        final boolean fits = length >= HEADER_LENGTH && length <= room;
        final boolean covered = fits && type != TYPE_DISCARD;
        for (int i = HEADER_LENGTH; covered && i < length; i++) {
            buffer.put(INDEX + i, (byte) (i * 31 + 7));
        }
        if (fits && length % 8 != 0 && !gapZero) {
            buffer.put(INDEX + FrameDescriptor.alignedLength(length) - 1, (byte) 0x5A);
        }
        if (length == SHORT_PADDING_LENGTH || fits) {
            final int checksum = reference(buffer, length, type);
            buffer.putInt(INDEX + FrameDescriptor.CHECKSUM_OFFSET, checksumRight ? checksum : checksum ^ 1);
        }
        return buffer;
    }

    /** CRC32C(position, log id, length as little-endian, then the frame's checksummed bytes from 8). */
    private static int reference(final ByteBuffer buffer, final int length, final short type) {
        final ByteBuffer binding = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        binding.putLong(BASE + FRAME_OFFSET).putLong(LOG_ID).putInt(length);
        final CRC32C crc = new CRC32C();
        crc.update(binding.array());
        final int end = length == SHORT_PADDING_LENGTH ? 8 : type == TYPE_DISCARD ? HEADER_LENGTH : length;
        for (int i = FrameDescriptor.TYPE_OFFSET; i < end; i++) {
            crc.update(buffer.get(INDEX + i));
        }
        return (int) crc.getValue();
    }
}
