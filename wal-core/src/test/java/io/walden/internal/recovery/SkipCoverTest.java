package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import org.junit.jupiter.api.Test;

/** Every range SKIP may skip in a small segment, both ways a batch may stand at its start. */
class SkipCoverTest {
    private static final long BLOCK = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;
    private static final long CAPACITY = 3 * BLOCK;

    @Test
    void everyRangeIsCoveredByValidFramesWheneverAnyCoverFits() {
        int covered = 0;
        int left = 0;
        for (long from = SegmentHeaderDescriptor.HEADER_LENGTH; from < CAPACITY; from += 8) {
            for (long to = from + 8; to <= CAPACITY; to += 8) {
                for (final boolean batchOpen : new boolean[] {false, true}) {
                    final SkipCover.Cover cover = SkipCover.cover(from, to, CAPACITY, batchOpen);
                    if (cover == null) {
                        left++;
                        assertTrue(batchOpen, "only an open batch leaves a range uncovered");
                        assertNull(discardEndThatFits(from, to), "a discard frame fits [" + from + ", " + to + ")");
                        continue;
                    }
                    covered++;
                    check(from, to, batchOpen, cover.discardEndOffset());
                }
            }
        }
        assertTrue(covered > 0 && left > 0, covered + " covered, " + left + " left");
    }

    private static void check(final long from, final long to, final boolean batchOpen, final long discardEnd) {
        final String range = "[" + from + ", " + to + ") batchOpen=" + batchOpen + " discardEnd=" + discardEnd;
        assertTrue(discardEnd >= from && discardEnd <= to, range);
        if (discardEnd > from) {
            // A discard frame with a header, ending where the format lets one end.
            assertTrue(discardEnd - from >= FrameDescriptor.HEADER_LENGTH, range);
            assertTrue(discardEnd % BLOCK == 0 || discardEnd == CAPACITY, range);
            // The last such end: the padding after it stays within one block.
            assertEquals(discardEndThatFits(from, to), discardEnd, range);
            assertTrue(to - discardEnd < BLOCK, range);
        } else {
            // Padding alone may not follow a frame whose batch goes on, and is used only where no
            // discard frame fits.
            assertTrue(!batchOpen, range);
            assertNull(discardEndThatFits(from, to), range);
        }
        final long padding = to - discardEnd;
        assertTrue(padding == 0 || padding == FrameDescriptor.SHORT_PADDING_LENGTH || padding >= 16, range);
    }

    /** The last offset in the range, at least a header past its start, that a discard frame may end at. */
    private static Long discardEndThatFits(final long from, final long to) {
        for (long end = to; end >= from + FrameDescriptor.HEADER_LENGTH; end -= 8) {
            if (end % BLOCK == 0 || end == CAPACITY) {
                return end;
            }
        }
        return null;
    }

    @Test
    void aRangeThatIsNoSkippedRangeIsRefused() {
        final long first = SegmentHeaderDescriptor.HEADER_LENGTH;
        assertThrows(IllegalArgumentException.class, () -> SkipCover.cover(first - 8, first + 64, CAPACITY, false));
        assertThrows(IllegalArgumentException.class, () -> SkipCover.cover(first + 64, first + 64, CAPACITY, false));
        assertThrows(IllegalArgumentException.class, () -> SkipCover.cover(first, CAPACITY + 8, CAPACITY, false));
        assertThrows(IllegalArgumentException.class, () -> SkipCover.cover(first + 4, first + 128, CAPACITY, false));
        assertThrows(IllegalArgumentException.class, () -> SkipCover.cover(first, first + 132, CAPACITY, false));
        assertNotNull(SkipCover.cover(CAPACITY - 16, CAPACITY, CAPACITY, true));
        assertNull(SkipCover.cover(CAPACITY - 8, CAPACITY, CAPACITY, true));
    }
}
