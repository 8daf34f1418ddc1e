package io.walden.groups.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupIndex} against a sorted map over random chains of entries (forward, over held indexes,
 * past gaps, below the first index) and bounds records: the LSN at every index, the bounds, the pin
 * (recomputed by brute force from its definition) and the memory bound of 16 bytes per index once a
 * group has truncated.
 */
class GroupIndexTest {
    private static final int CHAINS = 300;
    private static final int STEPS = 400;

    @Test
    void matchesASortedMapOverRandomChains() {
        for (int chain = 0; chain < CHAINS; chain++) {
            final Random random = new Random(chain);
            final GroupIndex index = new GroupIndex(chain);
            final TreeMap<Long, Long> model = new TreeMap<>();
            long first = 1;
            long last = 0;
            long boundsLsn = GroupIndex.ABSENT;
            long lsn = 100;
            for (int step = 0; step < STEPS; step++) {
                lsn += 1 + random.nextInt(50);
                final int op = random.nextInt(10);
                if (op < 6) {
                    final long i = last < first
                            ? 1 + random.nextInt(100)
                            : first - 3 + random.nextInt((int) (last - first) + 8);
                    index.put(i, lsn);
                    model.put(i, lsn);
                    if (last < first) {
                        first = i;
                        last = i;
                    } else {
                        first = Math.min(first, i);
                        last = Math.max(last, i);
                    }
                } else {
                    final long f = first - 3 + random.nextInt((int) Math.max(1, last - first) + 8);
                    final long l = random.nextInt(4) == 0 ? f - 1 : f + random.nextInt(60);
                    index.bounds(f, l, lsn);
                    boundsLsn = lsn;
                    first = f;
                    last = Math.max(l, f - 1);
                }
                model.headMap(first, false).clear();
                model.tailMap(last, false).clear();
                check(index, model, first, last, boundsLsn, "chain " + chain + " step " + step);
            }
        }
    }

    @Test
    void memoryFollowsTheIndexesHeld() {
        final GroupIndex index = new GroupIndex(1);
        for (long i = 1; i <= 100_000; i++) {
            index.put(i, i * 10);
        }
        assertTrue(index.arrayBytes() <= 100_000 * 12 + 64, "grown by half: " + index.arrayBytes());
        for (long kept = 99_000; kept <= 100_000; kept += 100) {
            index.bounds(kept, 100_000, 1_000_000 + kept);
            assertTrue(
                    index.arrayBytes() <= index.size() * 16 + 64,
                    index.size() + " indexes held in " + index.arrayBytes() + " bytes");
        }
    }

    private static void check(
            final GroupIndex index,
            final TreeMap<Long, Long> model,
            final long first,
            final long last,
            final long boundsLsn,
            final String where) {
        assertEquals(first, index.first(), where);
        assertEquals(last, index.last(), where);
        for (long i = first - 2; i <= last + 2; i++) {
            assertEquals(model.getOrDefault(i, GroupIndex.ABSENT), index.lsn(i), where + " index " + i);
        }
        long pin = Long.MAX_VALUE;
        for (final long lsn : model.values()) {
            pin = Math.min(pin, lsn);
        }
        final boolean boundsNeeded = boundsLsn != GroupIndex.ABSENT
                && (last < first || !model.containsKey(first) || !model.containsKey(last));
        if (boundsNeeded) {
            pin = Math.min(pin, boundsLsn);
        }
        assertEquals(pin, index.pinLsn(), where + " pin");
    }
}
