package io.walden.internal.truncation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Every small log (up to 8 segments, any start, any size limit, any protected position, any order of
 * segment ages) against a model that deletes one oldest segment at a time while it may.
 */
class RetentionRuleTest {
    private static final int CAPACITY = 4096;
    private static final int MAX_SEGMENTS = 8;

    @Test
    void shouldCutBySizeExactlyWhereDeletingOneOldestSegmentAtATimeStops() {
        for (int start = 0; start < 3; start++) {
            for (int count = 1; count <= MAX_SEGMENTS; count++) {
                final long startBase = (long) start * CAPACITY;
                final long activeBase = startBase + (long) (count - 1) * CAPACITY;
                for (long maxTotal = 0; maxTotal <= (MAX_SEGMENTS + 1L) * CAPACITY; maxTotal += CAPACITY / 2) {
                    for (final long protectedPosition : protectedPositions(activeBase)) {
                        assertEquals(
                                sizeModel(startBase, activeBase, maxTotal, protectedPosition),
                                RetentionRule.bySize(startBase, activeBase, CAPACITY, maxTotal, protectedPosition),
                                "start " + startBase + ", active " + activeBase + ", max " + maxTotal + ", protected "
                                        + protectedPosition);
                    }
                }
            }
        }
    }

    @Test
    void shouldCutByAgeExactlyWhereDeletingOneOldSegmentAtATimeStops() {
        final long cutoffMs = 1_000;
        for (int count = 1; count <= MAX_SEGMENTS; count++) {
            final long startBase = 2L * CAPACITY;
            final long activeBase = startBase + (long) (count - 1) * CAPACITY;
            // Every assignment of old (bit set) and young to the segments, the active one included.
            for (int oldMask = 0; oldMask < 1 << count; oldMask++) {
                final long[] lastModifiedMs = new long[count];
                for (int i = 0; i < count; i++) {
                    lastModifiedMs[i] = (oldMask & (1 << i)) != 0 ? (i % 2 == 0 ? -1 : cutoffMs - 1) : cutoffMs;
                }
                for (final long protectedPosition : protectedPositions(activeBase)) {
                    assertEquals(
                            ageModel(startBase, activeBase, lastModifiedMs, cutoffMs, protectedPosition),
                            RetentionRule.byAge(
                                    startBase, activeBase, CAPACITY, lastModifiedMs, cutoffMs, protectedPosition),
                            "segments " + count + ", old mask " + Integer.toBinaryString(oldMask) + ", protected "
                                    + protectedPosition);
                }
            }
        }
    }

    @Test
    void shouldRefuseSegmentsThatAreNotWholeOrInOrder() {
        assertThrows(AssertionError.class, () -> RetentionRule.bySize(CAPACITY, 0, CAPACITY, 0, 0));
        assertThrows(AssertionError.class, () -> RetentionRule.bySize(1, CAPACITY, CAPACITY, 0, 0));
        assertThrows(AssertionError.class, () -> RetentionRule.bySize(0, CAPACITY, 3000, 0, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> RetentionRule.byAge(0, CAPACITY, CAPACITY, new long[1], 0, Long.MAX_VALUE));
    }

    private static long[] protectedPositions(final long activeBase) {
        final long[] positions = new long[(int) (activeBase / (CAPACITY / 2)) + 4];
        for (int i = 0; i < positions.length - 2; i++) {
            positions[i] = (long) i * (CAPACITY / 2) + (i % 3 == 0 ? 1 : 0);
        }
        positions[positions.length - 2] = activeBase + CAPACITY + 17;
        positions[positions.length - 1] = Long.MAX_VALUE;
        return positions;
    }

    /** Deletes the oldest segment while the log is too big, it is not the active one and it is wholly below protection. */
    private static long sizeModel(
            final long startBase, final long activeBase, final long maxTotal, final long protectedPosition) {
        long first = startBase;
        while ((activeBase - first + CAPACITY) > maxTotal
                && first < activeBase
                && first + CAPACITY <= protectedPosition) {
            first += CAPACITY;
        }
        return first;
    }

    /** Deletes the oldest segment while it is old, not the active one and wholly below protection. */
    private static long ageModel(
            final long startBase,
            final long activeBase,
            final long[] lastModifiedMs,
            final long cutoffMs,
            final long protectedPosition) {
        long first = startBase;
        while (first < activeBase
                && lastModifiedMs[(int) ((first - startBase) / CAPACITY)] < cutoffMs
                && first + CAPACITY <= protectedPosition) {
            first += CAPACITY;
        }
        return first;
    }
}
