package io.walden.groups.internal;

import java.util.Arrays;
import org.agrona.collections.LongArrayList;

/**
 * One group's index: its bounds, the LSN of the record holding each entry, and its key-values.
 *
 * <pre>
 *   lsns:   [ base ... first ............. last ... capacity )
 *                      |<- entries, ABSENT for a gap ->|
 * </pre>
 *
 * <p>A group is a map from index to entry within [first, last] ({@code last == first - 1}: empty). Every
 * change is one of the operations the records of {@link io.walden.groups.GroupRecordDescriptor} name,
 * applied the same way when the log is written and when it is opened: {@link #put} (an entry; the
 * bounds grow to hold it), {@link #bounds} (the state after a truncation or reset) and the key-values.
 * Memory: 8 bytes per index between the bounds, the array grown by half when full and shrunk when a
 * truncation leaves it less than half full: at most 16 bytes per index once a group has truncated.
 *
 * <p>{@link #pinLsn} is the lowest main log position a record must keep for the group to open as it is:
 * every live entry and key-value, the last bounds record where the entries alone do not give the bounds
 * (the group is empty or an entry at a bound is a gap), and every <i>killer</i> not yet copied to the
 * relocation log. {@link #relocationPinLsn} is the same for the relocation log ({@link LogPlaces}).
 *
 * <p>A killer is a main log record that dropped an entry held in the relocation log (or dropped another
 * killer): opening replays the relocation log's copies before the main log, so the copy would come back
 * if the record that dropped it were freed first. Purge copies each killer to the relocation log, after
 * its victims, before the main log may free it ({@link Purger}).
 *
 * <p><b>Threading:</b> guarded by its own monitor; {@link GroupTable} and the group log take it.
 */
public final class GroupIndex {
    /** The LSN of an index that holds no entry. */
    public static final long ABSENT = -1;

    private static final long[] NO_LSNS = new long[0];
    private static final int CAPACITY_MIN = 8;

    private final long groupId;
    private long first = 1;
    private long last;
    // The index of lsns[0].
    private long base = 1;
    private long[] lsns = NO_LSNS;
    private long boundsLsn = ABSENT;
    private GroupValues values;
    // How many indexes between the bounds hold a position in the relocation log.
    private int relocatedEntries;
    // Main log positions of killers not yet copied to the relocation log; null: none.
    private LongArrayList killers;
    // Guarded by the purger's lock: purges in a row that found this group pinning the oldest segment.
    private int pinRounds;

    public GroupIndex(final long groupId) {
        this.groupId = groupId;
    }

    public long groupId() {
        return groupId;
    }

    public long first() {
        return first;
    }

    public long last() {
        return last;
    }

    public boolean isEmpty() {
        return last < first;
    }

    /** The number of indexes between the bounds, gaps included. */
    public long size() {
        return last - first + 1;
    }

    /** True when the group holds nothing a reopened log would show: default bounds, no key-value. */
    public boolean isBlank() {
        return isEmpty() && first == 1 && (values == null || values.size() == 0) && killers == null;
    }

    public long lsn(final long index) {
        if (index < first || index > last) {
            return ABSENT;
        }
        return lsns[(int) (index - base)];
    }

    /** Stores an entry's LSN at an index; the bounds grow to hold it. */
    public void put(final long index, final long lsn) {
        final long replaced = lsn(index);
        if (replaced != ABSENT && dropped(replaced)) {
            noteKiller(lsn);
        }
        if (LogPlaces.inRelocationLog(lsn)) {
            relocatedEntries++;
        }
        if (isEmpty()) {
            dropAll();
            first = index;
            last = index;
            base = index;
            ensureCapacity(1);
        } else if (index < first) {
            extendDown(index);
        } else if (index > last) {
            ensureCapacity(index - base + 1);
            Arrays.fill(lsns, (int) (last + 1 - base), (int) (index - base), ABSENT);
            last = index;
        }
        lsns[(int) (index - base)] = lsn;
    }

    /**
     * Sets the bounds from a bounds record: entries outside them are dropped, indexes inside them the
     * group did not hold are gaps.
     */
    public void bounds(final long newFirst, final long newLast, final long lsn) {
        boundsLsn = lsn;
        if (dropsExposed(newFirst, newLast)) {
            noteKiller(lsn);
        }
        if (newLast < newFirst || isEmpty() || newLast < first || newFirst > last) {
            dropAll();
            first = newFirst;
            last = Math.max(newLast, newFirst - 1);
            base = newFirst;
            if (last >= first) {
                ensureCapacity(last - first + 1);
                Arrays.fill(lsns, 0, (int) (last - first + 1), ABSENT);
            }
            return;
        }
        if (newFirst < first) {
            extendDown(newFirst);
        } else {
            first = newFirst;
        }
        if (newLast > last) {
            ensureCapacity(newLast - base + 1);
            Arrays.fill(lsns, (int) (last + 1 - base), (int) (newLast - base + 1), ABSENT);
        }
        last = newLast;
        compact();
    }

    /**
     * Opening, while it replays the relocation log: a copied killer's drop. Entries outside [keepFirst,
     * keepLast] go and the bounds fit the entries left (blank if none). A copy sets no bounds of its own:
     * its bounds may be stale by the time the main log freed the records that moved them on, and the
     * bounds a group needs are in the main log ({@link #pinLsn}).
     */
    public void dropOutside(final long keepFirst, final long keepLast) {
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        for (long index = Math.max(first, keepFirst); index <= Math.min(last, keepLast); index++) {
            if (lsns[(int) (index - base)] != ABSENT) {
                low = Math.min(low, index);
                high = index;
            }
        }
        if (high < low) {
            clear(ABSENT);
        } else {
            bounds(low, high, ABSENT);
        }
    }

    /** Forgets everything but its killers: the group was removed by the record at {@code lsn}. */
    public void clear(final long lsn) {
        if (dropsExposed(1, 0)) {
            noteKiller(lsn);
        }
        relocatedEntries = 0;
        dropAll();
        first = 1;
        last = 0;
        base = 1;
        boundsLsn = ABSENT;
        values = null;
    }

    public GroupValues values() {
        if (values == null) {
            values = new GroupValues();
        }
        return values;
    }

    public GroupValues valuesOrNull() {
        return values;
    }

    /** The LSN of the last bounds record, or {@link #ABSENT}. */
    public long boundsLsn() {
        return boundsLsn;
    }

    /** Whether opening needs the last bounds record to give the bounds (see the class comment). */
    public boolean boundsNeeded() {
        return boundsLsn != ABSENT && (isEmpty() || lsn(first) == ABSENT || lsn(last) == ABSENT);
    }

    /** The lowest main log position of a record the group needs kept, or {@link Long#MAX_VALUE}: none. */
    public long pinLsn() {
        long pin = boundsNeeded() ? boundsLsn : Long.MAX_VALUE;
        if (!isEmpty()) {
            final int to = (int) (last - base);
            for (int i = (int) (first - base); i <= to; i++) {
                final long lsn = lsns[i];
                if (lsn < pin && LogPlaces.inMainLog(lsn)) {
                    pin = lsn;
                }
            }
        }
        if (values != null) {
            pin = Math.min(pin, values.minLsn());
        }
        for (int i = 0; killers != null && i < killers.size(); i++) {
            pin = Math.min(pin, killers.getLong(i));
        }
        return pin;
    }

    /**
     * The lowest relocation log position of a record the group needs kept, or {@link Long#MAX_VALUE}:
     * none: the entries there. Copied killers need no pin: each follows the copies it dropped.
     */
    public long relocationPinLsn() {
        long pin = Long.MAX_VALUE;
        if (relocatedEntries > 0) {
            final int to = (int) (last - base);
            for (int i = (int) (first - base); i <= to; i++) {
                final long lsn = lsns[i];
                if (LogPlaces.inRelocationLog(lsn)) {
                    pin = Math.min(pin, LogPlaces.positionOf(lsn));
                }
            }
        }
        return pin;
    }

    /** How many indexes hold a position in the relocation log. */
    public int relocatedEntries() {
        return relocatedEntries;
    }

    /** The killers not yet copied to the relocation log, ascending; empty if none. */
    public long[] killers() {
        return killers == null ? new long[0] : killers.toLongArray();
    }

    /**
     * A killer is in the relocation log now, durably, at {@code copyLsn}: it pins the main log no more;
     * if it is an entry still at {@code index} ({@link #ABSENT}: not an entry), the index names the copy.
     */
    public void killerCopied(final long killerLsn, final long index, final long copyLsn) {
        if (killers == null || !killers.removeLong(killerLsn)) {
            return;
        }
        if (killers.isEmpty()) {
            killers = null;
        }
        if (index != ABSENT) {
            relocate(index, killerLsn, copyLsn);
        }
    }

    /**
     * Points an index at a copy of its entry in the relocation log, if the index still holds {@code
     * source} (from the main log, or an older copy the relocation log compacts away): a move, not a kill.
     *
     * @return whether it did.
     */
    public boolean relocate(final long index, final long source, final long copyLsn) {
        if (lsn(index) != source) {
            return false;
        }
        lsns[(int) (index - base)] = copyLsn;
        if (!LogPlaces.inRelocationLog(source)) {
            relocatedEntries++;
        }
        return true;
    }

    public int pinRounds() {
        return pinRounds;
    }

    public void pinRounds(final int rounds) {
        pinRounds = rounds;
    }

    /** The heap this index holds beyond its object, for the stats. */
    public long arrayBytes() {
        return (long) lsns.length * Long.BYTES + (values == null ? 0 : values.heapBytes());
    }

    /** Whether dropping the record at {@code lsn} makes its dropper a killer; counts a relocated one out. */
    private boolean dropped(final long lsn) {
        if (LogPlaces.inRelocationLog(lsn)) {
            relocatedEntries--;
            return true;
        }
        return killers != null && killers.containsLong(lsn);
    }

    /** Whether bounds [newFirst, newLast] drop an entry in the relocation log or a killer. */
    private boolean dropsExposed(final long newFirst, final long newLast) {
        if ((relocatedEntries == 0 && killers == null) || isEmpty()) {
            return false;
        }
        boolean exposed = false;
        for (long index = first; index <= last; index++) {
            if (index >= newFirst && index <= newLast) {
                index = Math.max(index, newLast);
                continue;
            }
            final long lsn = lsns[(int) (index - base)];
            if (lsn != ABSENT && dropped(lsn)) {
                exposed = true;
            }
        }
        return exposed;
    }

    /** A main log record dropped something the relocation log holds: keep it until it is copied there. */
    private void noteKiller(final long lsn) {
        if (!LogPlaces.inMainLog(lsn)) {
            return;
        }
        if (killers == null) {
            killers = new LongArrayList(2, ABSENT);
        }
        if (!killers.containsLong(lsn)) {
            killers.addLong(lsn);
        }
    }

    private void extendDown(final long index) {
        if (index < base) {
            final long shift = base - index;
            final long used = last - base + 1;
            final long[] grown = new long[capacityFor(used + shift)];
            System.arraycopy(lsns, 0, grown, (int) shift, (int) used);
            lsns = grown;
            base = index;
        }
        Arrays.fill(lsns, (int) (index - base), (int) (first - base), ABSENT);
        first = index;
    }

    private void ensureCapacity(final long needed) {
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("group " + groupId + " would span more than 2^31 indexes");
        }
        if (needed <= lsns.length) {
            return;
        }
        lsns = Arrays.copyOf(lsns, capacityFor(needed));
    }

    private static int capacityFor(final long needed) {
        return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(CAPACITY_MIN, needed + (needed >> 1)));
    }

    /** Moves the entries down to index 0 after a prefix truncation, and shrinks a mostly empty array. */
    private void compact() {
        final long used = last - first + 1;
        final long offset = first - base;
        if (used <= 0) {
            dropAll();
            base = first;
            return;
        }
        if (used < lsns.length / 2 && lsns.length > CAPACITY_MIN) {
            final long[] smaller = new long[capacityFor(used)];
            System.arraycopy(lsns, (int) offset, smaller, 0, (int) used);
            lsns = smaller;
            base = first;
        } else if (offset > lsns.length / 2) {
            System.arraycopy(lsns, (int) offset, lsns, 0, (int) used);
            base = first;
        }
    }

    private void dropAll() {
        lsns = NO_LSNS;
    }
}
