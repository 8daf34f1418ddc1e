package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link RaftLogIndex} against a model of jraft's RocksDB store: a sorted map from index to entry and a
 * first-index mark. Random chains of puts (next index, gaps, replacements, below the lowest index),
 * first-index marks, suffix truncations, resets and reads of the first index (which pin it) run on
 * both, and after every step every query must agree.
 */
class RaftLogIndexTest {
    private static final int CHAINS = 2_000;
    private static final int STEPS = 60;

    /** The model: jraft's RocksDB store, as a map. */
    private static final class Model {
        final TreeMap<Long, long[]> entries = new TreeMap<>();
        final TreeSet<Long> configurations = new TreeSet<>();
        long mark = -1;

        long first() {
            return mark >= 0 ? mark : entries.isEmpty() ? 1 : entries.firstKey();
        }

        long last() {
            return entries.isEmpty() ? 0 : entries.lastKey();
        }

        long lsn(final long index) {
            if (mark >= 0 && index < mark) {
                return RaftLogIndex.ABSENT;
            }
            final long[] entry = entries.get(index);
            return entry == null ? RaftLogIndex.ABSENT : entry[0];
        }
    }

    @Test
    void everyChainAgreesWithTheModel() {
        for (int chain = 0; chain < CHAINS; chain++) {
            final long seed = 0x5eed_0000L + chain;
            final SplittableRandom random = new SplittableRandom(seed);
            final RaftLogIndex index = new RaftLogIndex();
            final Model model = new Model();
            final List<String> steps = new ArrayList<>();
            long nextLsn = 100;
            for (int step = 0; step < STEPS; step++) {
                final int kind = random.nextInt(100);
                final long base = Math.max(0, model.last());
                if (kind < 55) {
                    final long at;
                    final int where = random.nextInt(10);
                    if (where < 6) {
                        at = model.last() + 1;
                    } else if (where < 8) {
                        at = base + 1 + random.nextInt(5);
                    } else {
                        at = Math.max(0, base - random.nextInt(8));
                    }
                    final long term = 1 + random.nextInt(4);
                    final boolean configuration = random.nextInt(5) == 0;
                    final long lsn = nextLsn;
                    // Some entries take several records: their last record lies further on.
                    final long lastLsn = random.nextInt(6) == 0 ? lsn + 8 * (1 + random.nextInt(10)) : lsn;
                    nextLsn = lastLsn + 8 * (1 + random.nextInt(20));
                    steps.add("put " + at + " lsn " + lsn + (lastLsn != lsn ? " to " + lastLsn : "")
                            + (configuration ? " configuration" : ""));
                    if (lastLsn == lsn && random.nextBoolean()) {
                        index.put(at, lsn, term, configuration);
                    } else {
                        index.put(at, lsn, lastLsn, term, configuration);
                    }
                    if (model.mark < 0 || at >= model.mark) {
                        model.entries.put(at, new long[] {lsn, term, lastLsn});
                        if (configuration) {
                            model.configurations.add(at);
                        } else {
                            model.configurations.remove(at);
                        }
                    }
                } else if (kind < 68) {
                    final long first = Math.max(0, model.first() + random.nextInt(12) - 3);
                    steps.add("setFirst " + first);
                    index.setFirst(first);
                    model.mark = first;
                    model.entries.headMap(first).clear();
                    model.configurations.headSet(first).clear();
                } else if (kind < 82) {
                    final long lastKept = Math.max(-1, model.last() - random.nextInt(10));
                    steps.add("truncateSuffix " + lastKept);
                    index.truncateSuffix(lastKept);
                    model.entries.tailMap(lastKept, false).clear();
                    model.configurations.tailSet(lastKept, false).clear();
                } else if (kind < 86) {
                    steps.add("clear");
                    index.clear();
                    model.entries.clear();
                    model.configurations.clear();
                    model.mark = -1;
                } else {
                    steps.add("pinFirst");
                    index.pinFirst();
                    if (model.mark < 0 && !model.entries.isEmpty()) {
                        model.mark = model.entries.firstKey();
                    }
                }
                check(index, model, "seed " + seed + " after " + steps);
            }
        }
    }

    private static void check(final RaftLogIndex index, final Model model, final String where) {
        assertEquals(model.first(), index.first(), () -> "first index, " + where);
        assertEquals(model.last(), index.last(), () -> "last index, " + where);
        assertEquals(model.mark >= 0, index.hasMark(), () -> "mark, " + where);
        final long from = Math.max(0, Math.min(model.first(), model.entries.isEmpty() ? 0 : model.entries.firstKey()));
        for (long i = Math.max(0, from - 2); i <= model.last() + 2; i++) {
            final long at = i;
            final long lsn = model.lsn(i);
            assertEquals(lsn, index.lsn(i), () -> "LSN of " + at + ", " + where);
            assertEquals(
                    lsn == RaftLogIndex.ABSENT
                            ? RaftLogIndex.ABSENT
                            : model.entries.get(i)[2],
                    index.lastLsn(i),
                    () -> "LSN of the last record of " + at + ", " + where);
            assertEquals(
                    lsn == RaftLogIndex.ABSENT ? 0 : model.entries.get(i)[1],
                    index.term(i),
                    () -> "term of " + at + ", " + where);
            long max = RaftLogIndex.ABSENT;
            long min = Long.MAX_VALUE;
            for (final Map.Entry<Long, long[]> entry : model.entries.entrySet()) {
                if (entry.getKey() < model.first()) {
                    continue;
                }
                if (entry.getKey() <= i) {
                    max = Math.max(max, entry.getValue()[2]);
                } else {
                    min = Math.min(min, entry.getValue()[0]);
                }
            }
            assertEquals(max, index.maxLsnAtOrBelow(i), () -> "max LSN at or below " + at + ", " + where);
            assertEquals(min, index.minLsnAfter(i), () -> "min LSN after " + at + ", " + where);
        }
        assertArrayEquals(
                model.configurations.stream().mapToLong(Long::longValue).toArray(),
                index.configurationIndexes(),
                () -> "configuration entries, " + where);
    }
}
