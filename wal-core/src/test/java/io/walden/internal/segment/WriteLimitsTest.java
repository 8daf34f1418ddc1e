package io.walden.internal.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import org.junit.jupiter.api.Test;

/** The write limit's rules over every capacity and a grid of offsets (see {@link WriteLimits}). */
class WriteLimitsTest {
    private static final int[] CAPACITIES = {
        WalConfig.SEGMENT_CAPACITY_BYTES_MIN, 128 * 1024, 1 << 20, 64 << 20, 1 << 30,
    };

    @Test
    void theWindowGrowsWithTheCapacityWithinItsBounds() {
        assertEquals(4096, WriteLimits.windowBytes(64 * 1024));
        assertEquals(64 * 1024, WriteLimits.windowBytes(1 << 20));
        assertEquals(64 * 1024, WriteLimits.windowBytes(1 << 30));
    }

    @Test
    void theInitialLimitLiesAWindowAheadOnABlockBoundaryWithinTheSegment() {
        for (final int capacity : CAPACITIES) {
            for (long start = 4096; start < capacity; start += step(capacity)) {
                final int limit = WriteLimits.initialLimit(start, capacity);
                final String what = "capacity " + capacity + " start " + start;
                assertTrue(limit <= capacity, what);
                assertTrue(limit == capacity || limit % WriteLimits.ALIGNMENT == 0, what);
                assertTrue(
                        limit == capacity || limit >= start + WriteLimits.windowBytes(capacity),
                        what + ": a window ahead");
                assertTrue(limit - start < WriteLimits.windowBytes(capacity) + WriteLimits.ALIGNMENT, what);
            }
        }
    }

    @Test
    void aRaisedLimitCoversTheWriteLiesOnABlockAndIsNotDueAgainAtOnce() {
        for (final int capacity : CAPACITIES) {
            final int window = WriteLimits.windowBytes(capacity);
            for (long start = 4096; start < capacity; start += step(capacity)) {
                for (long end = start + 8; end <= capacity; end += step(capacity) / 3 + 8) {
                    final int limit = WriteLimits.initialLimit(start, capacity);
                    final String what = "capacity " + capacity + " start " + start + " end " + end;
                    final int raised = WriteLimits.raisedLimit(start, end, limit, capacity);
                    assertTrue(raised >= limit && raised >= end && raised <= capacity, what + " raised " + raised);
                    assertTrue(raised == capacity || raised % WriteLimits.ALIGNMENT == 0, what);
                    assertTrue(
                            raised - end <= Math.max(window, 2 * (end - start)) + WriteLimits.ALIGNMENT,
                            what + ": what a crash gives up is bounded, raised " + raised);
                    assertTrue(raised == capacity || !WriteLimits.raiseDue(start, end, raised, capacity), what);
                }
            }
        }
    }

    @Test
    void aRaiseIsDueBeforeTheWritesReachTheLimitAndNeverAtTheCapacity() {
        for (final int capacity : CAPACITIES) {
            final long start = 4096;
            final int limit = WriteLimits.initialLimit(start, capacity);
            if (limit < capacity) {
                assertFalse(WriteLimits.raiseDue(start, start + 8, limit, capacity), "capacity " + capacity);
                assertTrue(WriteLimits.raiseDue(start, limit - 8, limit, capacity), "capacity " + capacity);
                assertTrue(WriteLimits.raiseDue(start, limit, limit, capacity), "capacity " + capacity);
            }
            assertFalse(WriteLimits.raiseDue(start, capacity, capacity, capacity), "capacity " + capacity);
        }
    }

    @Test
    void aSessionThatFillsASegmentRaisesItsLimitLogarithmicallyOften() {
        for (final int capacity : CAPACITIES) {
            final long start = 4096;
            int limit = WriteLimits.initialLimit(start, capacity);
            int raises = 0;
            for (long end = start; end <= capacity; end += 4096) {
                if (WriteLimits.raiseDue(start, end, limit, capacity)) {
                    limit = WriteLimits.raisedLimit(start, end, limit, capacity);
                    raises++;
                }
                assertTrue(end <= limit, "capacity " + capacity + ": a write at " + end + " past the limit " + limit);
            }
            // Each raise lets the session write about 1.5 times what it had written before the next.
            final int bound = 2
                    + (int) Math.ceil(Math.log((double) capacity / WriteLimits.windowBytes(capacity)) / Math.log(1.5));
            assertTrue(raises <= bound, "capacity " + capacity + ": " + raises + " raises, bound " + bound);
        }
    }

    @Test
    void afterACrashTheLogContinuesAtTheLimitOnlyWhenNothingLiesAtOrPastIt() {
        final int capacity = 1 << 20;
        // validEnd, nonZeroEnd, limit -> continue offset
        final long[][] cases = {
            {8192, 8192, 0, WriteLimits.NEXT_SEGMENT}, // no limit recorded
            {8192, 8192, 65536, 65536},
            {8192, 20000, 65536, 65536}, // a torn tail below the limit
            {8192, 65536, 65536, 65536}, // non-zero bytes up to the limit
            {8192, 65544, 65536, WriteLimits.NEXT_SEGMENT}, // a byte past it: not as recorded
            {65536, 65536, 65536, 65536}, // valid frames up to the limit
            {65544, 65544, 65536, WriteLimits.NEXT_SEGMENT},
            {8192, 8192, capacity, WriteLimits.NEXT_SEGMENT}, // no room left
        };
        for (final long[] c : cases) {
            assertEquals(
                    c[3],
                    WriteLimits.continueOffset(c[0], c[1], (int) c[2], capacity),
                    "valid end " + c[0] + " non-zero end " + c[1] + " limit " + c[2]);
        }
    }

    private static int step(final int capacity) {
        return Math.max(4096, capacity / 64) + 8;
    }
}
