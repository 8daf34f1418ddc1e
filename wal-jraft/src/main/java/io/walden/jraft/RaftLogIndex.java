package io.walden.jraft;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongHashSet;

/**
 * The in-memory index of a Raft log: for each entry index held, the LSN of its record and its term.
 * It keeps jraft's {@code LogStorage} contract as jraft's own RocksDB store keeps it, a map from index
 * to entry, not a stricter one:
 *
 * <ul>
 *   <li>{@link #put} stores an entry at any index: the next one, one past a gap (the indexes between
 *       hold nothing), or one already held (the new entry replaces it; later entries stay);
 *   <li>the first index is the first-index mark ({@link #setFirst}, written by {@code truncatePrefix})
 *       if there is one, else the lowest index held, else 1; reading it pins it as the mark ({@link
 *       #pinFirst}), as RocksDB's store does;
 *   <li>the last index is the highest index held, or 0 when none is;
 *   <li>{@link #truncateSuffix} drops every entry after an index; {@link #clear} drops everything,
 *       the mark included ({@code reset}).
 * </ul>
 *
 * <p>The same operations rebuild the index when the log is opened: the adapter's records are
 * replayed in log order, so a later record wins.
 *
 * <p>Layout: two parallel lists from {@code base}, the LSN of the entry's first record ({@link
 * #ABSENT} for a hole) and the term of each index up to the last; holes are indexes in a gap or below
 * a mark. An entry stored in several records (larger than one record) also has the LSN of its last
 * record in a map, for truncations, which must keep every record of a kept entry.
 *
 * <p><b>Threading:</b> not thread-safe; the adapter guards it with its index lock.
 */
final class RaftLogIndex {
    /** The LSN of an index that holds no entry. */
    static final long ABSENT = -1;
    /** The most holes one append may open: a gap past it is refused (see {@link #gapAllowed}). */
    static final long MAX_GAP = 1 << 20;

    private long mark = -1;
    // Index of lsns[0] and terms[0]; lsns[last - base] is never ABSENT while the lists are not empty.
    private long base = 1;
    private final LongArrayList lsns = new LongArrayList();
    private final LongArrayList terms = new LongArrayList();
    private final LongHashSet configurationIndexes = new LongHashSet();
    // Index -> LSN of the last record, for entries stored in more than one record.
    private final Long2LongHashMap lastRecordLsns = new Long2LongHashMap(ABSENT);

    /** @return the first index: the mark, else the lowest index held, else 1. */
    long first() {
        if (mark >= 0) {
            return mark;
        }
        return lsns.isEmpty() ? 1 : base;
    }

    /** @return the last index: the highest index held, or 0. */
    long last() {
        return lsns.isEmpty() ? 0 : base + lsns.size() - 1;
    }

    /** @return whether the first index is pinned by a mark. */
    boolean hasMark() {
        return mark >= 0;
    }

    /**
     * Pins the first index as the mark, if the index holds entries and has no mark yet.
     *
     * @return whether it set the mark now.
     */
    boolean pinFirst() {
        if (mark < 0 && !lsns.isEmpty()) {
            mark = base;
            return true;
        }
        return false;
    }

    /**
     * The LSN of the entry at an index.
     *
     * @param index the entry index.
     * @return its LSN, or {@link #ABSENT} if no entry is held there (a hole, or below the mark).
     */
    long lsn(final long index) {
        if (index < first() || index < base || index > last()) {
            return ABSENT;
        }
        return lsns.getLong((int) (index - base));
    }

    /**
     * The term of the entry at an index.
     *
     * @param index the entry index.
     * @return its term, or 0 if no entry is held there.
     */
    long term(final long index) {
        return lsn(index) == ABSENT ? 0 : terms.getLong((int) (index - base));
    }

    /**
     * Whether an entry may be put at an index: not more than {@link #MAX_GAP} past the last index of
     * a non-empty index (the lists hold one slot per index up to the last).
     *
     * @param index the entry index.
     * @return true if {@link #put} accepts it.
     */
    boolean gapAllowed(final long index) {
        return lsns.isEmpty() || index <= last() + MAX_GAP;
    }

    /**
     * Stores an entry held in one record at an index, replacing one held there.
     *
     * @param index the entry index, at least 0.
     * @param lsn its record's LSN.
     * @param term its term.
     * @param configuration whether it is a configuration entry.
     */
    void put(final long index, final long lsn, final long term, final boolean configuration) {
        put(index, lsn, lsn, term, configuration);
    }

    /**
     * Stores an entry at an index, replacing one held there. An index below the mark is not held.
     *
     * @param index the entry index, at least 0.
     * @param lsn the LSN of its first record.
     * @param lastLsn the LSN of its last record: {@code lsn} for an entry in one record.
     * @param term its term.
     * @param configuration whether it is a configuration entry.
     */
    void put(final long index, final long lsn, final long lastLsn, final long term, final boolean configuration) {
        if (index < 0 || (mark >= 0 && index < mark)) {
            return;
        }
        if (lsns.isEmpty()) {
            base = index;
        } else if (index < base) {
            // Below the lowest index held (no mark): holes from here up to it.
            final int holes = (int) (base - index);
            final LongArrayList oldLsns = new LongArrayList();
            final LongArrayList oldTerms = new LongArrayList();
            oldLsns.addAll(lsns);
            oldTerms.addAll(terms);
            lsns.clear();
            terms.clear();
            for (int i = 0; i < holes; i++) {
                lsns.addLong(ABSENT);
                terms.addLong(0);
            }
            lsns.addAll(oldLsns);
            terms.addAll(oldTerms);
            base = index;
        }
        while (base + lsns.size() <= index) {
            lsns.addLong(ABSENT);
            terms.addLong(0);
        }
        final int slot = (int) (index - base);
        lsns.setLong(slot, lsn);
        terms.setLong(slot, term);
        if (lastLsn != lsn) {
            lastRecordLsns.put(index, lastLsn);
        } else if (!lastRecordLsns.isEmpty()) {
            lastRecordLsns.remove(index);
        }
        if (configuration) {
            configurationIndexes.add(index);
        } else {
            configurationIndexes.remove(index);
        }
    }

    /**
     * Sets the first-index mark and drops every entry below it.
     *
     * @param first the new first index.
     */
    void setFirst(final long first) {
        mark = first;
        dropBelow(first);
    }

    /**
     * Drops every entry after an index.
     *
     * @param lastKept the last index kept.
     */
    void truncateSuffix(final long lastKept) {
        while (!lsns.isEmpty() && (last() > lastKept || lsns.getLong(lsns.size() - 1) == ABSENT)) {
            configurationIndexes.remove(last());
            lsns.removeAt(lsns.size() - 1);
            terms.removeAt(terms.size() - 1);
        }
        if (lsns.isEmpty()) {
            base = 1;
        }
    }

    /** Drops every entry and the mark. */
    void clear() {
        mark = -1;
        base = 1;
        lsns.clear();
        terms.clear();
        configurationIndexes.clear();
        lastRecordLsns.clear();
    }

    /**
     * The LSN of the last record of the entry at an index.
     *
     * @param index the entry index.
     * @return the LSN, or {@link #ABSENT} if no entry is held there.
     */
    long lastLsn(final long index) {
        final long lsn = lsn(index);
        if (lsn == ABSENT || lastRecordLsns.isEmpty()) {
            return lsn;
        }
        final long last = lastRecordLsns.get(index);
        return last == ABSENT ? lsn : last;
    }

    /**
     * The highest LSN of the records of the entries at or below an index (and at or above the first
     * index): a cut after it keeps every record of those entries.
     *
     * @param index the index.
     * @return the LSN, or {@link #ABSENT} if no entry is held there.
     */
    long maxLsnAtOrBelow(final long index) {
        long max = ABSENT;
        final long from = Math.max(first(), base);
        for (long i = from; i <= Math.min(index, last()); i++) {
            max = Math.max(max, lastLsn(i));
        }
        return max;
    }

    /**
     * The lowest LSN of the entries after an index.
     *
     * @param index the index.
     * @return the LSN, or {@link Long#MAX_VALUE} if no entry is held after it.
     */
    long minLsnAfter(final long index) {
        long min = Long.MAX_VALUE;
        for (long i = Math.max(index + 1, Math.max(first(), base)); i <= last(); i++) {
            final long lsn = lsns.getLong((int) (i - base));
            if (lsn != ABSENT) {
                min = Math.min(min, lsn);
            }
        }
        return min;
    }

    /**
     * The lowest LSN of the entries held.
     *
     * @return the LSN, or {@link Long#MAX_VALUE} if none is held.
     */
    long minLsn() {
        return minLsnAfter(first() - 1);
    }

    /**
     * The configuration entries held, in index order.
     *
     * @return their indexes.
     */
    long[] configurationIndexes() {
        final long[] indexes = new long[configurationIndexes.size()];
        int i = 0;
        final LongHashSet.LongIterator iterator = configurationIndexes.iterator();
        while (iterator.hasNext()) {
            indexes[i++] = iterator.nextValue();
        }
        java.util.Arrays.sort(indexes);
        return indexes;
    }

    private void dropBelow(final long first) {
        if (lsns.isEmpty()) {
            return;
        }
        if (first > last()) {
            lsns.clear();
            terms.clear();
            configurationIndexes.clear();
            base = 1;
            return;
        }
        final int dead = (int) Math.max(0, first - base);
        if (dead == 0) {
            return;
        }
        for (long i = base; i < first; i++) {
            configurationIndexes.remove(i);
        }
        final LongArrayList keptLsns = new LongArrayList();
        final LongArrayList keptTerms = new LongArrayList();
        for (int i = dead; i < lsns.size(); i++) {
            keptLsns.addLong(lsns.getLong(i));
            keptTerms.addLong(terms.getLong(i));
        }
        lsns.clear();
        terms.clear();
        lsns.addAll(keptLsns);
        terms.addAll(keptTerms);
        base = first;
    }
}
