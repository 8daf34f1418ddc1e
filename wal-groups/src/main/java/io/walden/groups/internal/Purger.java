package io.walden.groups.internal;

import static io.walden.groups.GroupRecordDescriptor.FLAGS_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.FLAG_RELOCATED;
import static io.walden.groups.GroupRecordDescriptor.HEADER_LENGTH;
import static io.walden.groups.GroupRecordDescriptor.TYPE_BOUNDS;
import static io.walden.groups.GroupRecordDescriptor.TYPE_ENTRY;
import static io.walden.groups.GroupRecordDescriptor.TYPE_PUT;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.format.FrameDescriptor;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupRecordDescriptor;
import io.walden.groups.PurgeReport;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayList;

/**
 * Reclaims space in a group log: frees every segment below the oldest record any group needs ({@link
 * GroupIndex#pinLsn}), and names the groups that pin the oldest segment left. A group that pinned it for
 * {@link GroupLogConfig#relocateAfterRounds()} purges in a row is relocatable: its live records below the
 * target (the oldest record of a group that is not relocatable, or the segment being written) are copied
 * to the head of the log, so that one purge frees everything up to the target.
 *
 * <p>Relocation copies each record as it is, flagged {@link GroupRecordDescriptor#FLAG_RELOCATED}, to
 * the head of the log and points the group's index at the copy. The copies are read outside the append
 * lock; under it, a group's copies are appended only if every source is still the group's current record
 * (an append, truncation or reset in between skips the group this round). A copy of an entry is applied
 * as any entry at its index, so after a crash anywhere the group holds the entry once, the original's
 * bytes, at its index; the segment is freed only once the copies are durable.
 *
 * <p><b>Threading:</b> one purge at a time (its own lock); it takes the group log's append lock only to
 * append relocated records.
 */
public final class Purger {
    private final Wal wal;
    private final GroupTable table;
    private final ReaderPool readers;
    private final ReentrantLock appendLock;
    private final GroupLogConfig config;
    private final long segmentBytes;
    private final int batchFramedBytesMax;
    private final Object purgeLock = new Object();
    // Guarded by purgeLock: the copies being relocated and the LSN each was copied from.
    private final WalBatch copies = new WalBatch();
    private final LongArrayList sources = new LongArrayList();
    // Guarded by purgeLock: what the relocation of this purge appended so far.
    private long movedRecords;
    private long movedBytes;
    private long lastMovedLsn = -1;
    // Tests force an interleaving here: run after a group's copies are read, before they are appended.
    private volatile Runnable beforeAppendHook = () -> {};
    private volatile long purges;
    private volatile long segmentsFreed;
    private volatile long relocatedRecords;
    private volatile long relocatedBytes;

    public Purger(
            final Wal wal,
            final GroupTable table,
            final ReaderPool readers,
            final ReentrantLock appendLock,
            final GroupLogConfig config) {
        this.wal = wal;
        this.table = table;
        this.readers = readers;
        this.appendLock = appendLock;
        this.config = config;
        this.segmentBytes = config.walConfig().segmentCapacityBytes();
        this.batchFramedBytesMax = FrameDescriptor.alignedLength(
                FrameDescriptor.frameLength(config.walConfig().maxRecordBytes()));
    }

    public PurgeReport purge() {
        synchronized (purgeLock) {
            purges++;
            final List<GroupIndex> groups = table.snapshot();
            long freed = wal.truncateBefore(cut(groups));
            final long oldestEnd = segmentBase(wal.startPosition()) + segmentBytes;
            final long tailBase = segmentBase(wal.tailPosition());
            final long[] pins = new long[groups.size()];
            int pinners = 0;
            // How far relocation may free: up to the segment being written and the oldest record of a
            // group that is not (yet) to be relocated.
            long target = tailBase;
            for (int i = 0; i < groups.size(); i++) {
                final GroupIndex group = groups.get(i);
                synchronized (group) {
                    pins[i] = group.pinLsn();
                }
                if (tailBase < oldestEnd || pins[i] >= oldestEnd) {
                    group.pinRounds(0);
                } else {
                    pinners++;
                    group.pinRounds(group.pinRounds() + 1);
                }
                if (!relocatable(group)) {
                    target = Math.min(target, pins[i]);
                }
            }
            movedRecords = 0;
            movedBytes = 0;
            if (target >= oldestEnd) {
                relocateBelow(groups, pins, target);
            }
            if (movedRecords > 0) {
                wal.await(lastMovedLsn, Durability.SYNCED);
                freed += wal.truncateBefore(cut(table.snapshot()));
                relocatedRecords += movedRecords;
                relocatedBytes += movedBytes;
            }
            segmentsFreed += freed;
            return new PurgeReport(
                    freed,
                    wal.startPosition(),
                    pinningGroups(groups, pins, pinners, oldestEnd),
                    movedRecords,
                    movedBytes);
        }
    }

    private boolean relocatable(final GroupIndex group) {
        return config.relocateAfterRounds() > 0 && group.pinRounds() >= config.relocateAfterRounds();
    }

    /** Moves every live record below {@code target} of the groups that pinned long enough. */
    private void relocateBelow(final List<GroupIndex> groups, final long[] pins, final long target) {
        for (int i = 0; i < groups.size(); i++) {
            final GroupIndex group = groups.get(i);
            if (relocatable(group) && pins[i] < target) {
                relocate(group, target);
                group.pinRounds(0);
            }
        }
    }

    /** For tests: runs {@code hook} after a group's copies are read and before they are appended. */
    public void beforeAppendHook(final Runnable hook) {
        this.beforeAppendHook = hook;
    }

    public long purges() {
        return purges;
    }

    public long segmentsFreed() {
        return segmentsFreed;
    }

    public long relocatedRecords() {
        return relocatedRecords;
    }

    public long relocatedBytes() {
        return relocatedBytes;
    }

    /** The lowest position a group needs, or the log's tail if none needs any. */
    private long cut(final List<GroupIndex> groups) {
        // Sampled first: a record appended after it lies at or after it, whichever group it is for.
        long cut = wal.tailPosition();
        for (final GroupIndex group : groups) {
            synchronized (group) {
                cut = Math.min(cut, group.pinLsn());
            }
        }
        return cut;
    }

    private long[] pinningGroups(
            final List<GroupIndex> groups, final long[] pins, final int pinners, final long oldestEnd) {
        final int reported = Math.min(pinners, config.pinningGroupsReported());
        final long[][] byPin = new long[pinners][];
        int n = 0;
        for (int i = 0; i < pins.length && n < pinners; i++) {
            if (pins[i] < oldestEnd) {
                byPin[n++] = new long[] {pins[i], groups.get(i).groupId()};
            }
        }
        Arrays.sort(byPin, 0, n, (a, b) -> Long.compare(a[0], b[0]));
        final long[] ids = new long[Math.min(reported, n)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = byPin[i][1];
        }
        return ids;
    }

    /** Copies the group's live records below {@code end} to the head of the log. */
    private void relocate(final GroupIndex group, final long end) {
        final LongArrayList lsns = new LongArrayList();
        final boolean boundsToo;
        synchronized (group) {
            for (long index = group.first(); index <= group.last(); index++) {
                final long lsn = group.lsn(index);
                if (lsn != GroupIndex.ABSENT && lsn < end) {
                    lsns.addLong(lsn);
                }
            }
            final GroupValues values = group.valuesOrNull();
            for (int i = 0; values != null && i < values.size(); i++) {
                if (values.lsn(i) < end) {
                    lsns.addLong(values.lsn(i));
                }
            }
            boundsToo = group.boundsNeeded() && group.boundsLsn() < end;
        }
        copies.clear();
        sources.clear();
        if (boundsToo) {
            claimBounds();
        }
        for (int i = 0; i < lsns.size(); i++) {
            final long source = lsns.getLong(i);
            readers.read(source, (buffer, offset, length, lsn) -> {
                if (FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length)) + copies.framedBytes()
                                > batchFramedBytesMax
                        && !copies.isEmpty()) {
                    flush(group);
                }
                final int at = copies.claim(length);
                final MutableDirectBuffer into = copies.buffer();
                into.putBytes(at, buffer, offset, length);
                into.putByte(at + FLAGS_OFFSET, (byte) (into.getByte(at + FLAGS_OFFSET) | FLAG_RELOCATED));
                sources.addLong(source);
            });
        }
        if (!copies.isEmpty()) {
            flush(group);
        }
    }

    private void claimBounds() {
        final int at = copies.claim(GroupRecordDescriptor.BOUNDS_LENGTH);
        copies.buffer().setMemory(at, GroupRecordDescriptor.BOUNDS_LENGTH, (byte) 0);
        sources.addLong(GroupIndex.ABSENT);
    }

    /**
     * Appends the copies if every source is still the group's current record, and points the group's
     * index at them.
     */
    private void flush(final GroupIndex group) {
        beforeAppendHook.run();
        appendLock.lock();
        try {
            if (stillCurrent(group)) {
                wal.append(copies, Durability.BUFFERED);
                for (int i = 0; i < copies.size(); i++) {
                    GroupRecords.apply(table, copies.buffer(), copies.offset(i), copies.length(i), copies.lsn(i));
                }
                movedRecords += copies.size();
                movedBytes += copies.payloadBytes();
                lastMovedLsn = copies.lsn(copies.size() - 1);
            }
        } finally {
            appendLock.unlock();
        }
        copies.clear();
        sources.clear();
    }

    /** Under the append lock: whether each copy's source is still current; fills in the bounds copy. */
    private boolean stillCurrent(final GroupIndex group) {
        final MutableDirectBuffer buffer = copies.buffer();
        synchronized (group) {
            for (int i = 0; i < copies.size(); i++) {
                final int offset = copies.offset(i);
                final long source = sources.getLong(i);
                if (source == GroupIndex.ABSENT) {
                    GroupRecords.putHeader(
                            buffer, offset, TYPE_BOUNDS, FLAG_RELOCATED, 0, group.groupId(), group.first());
                    GroupRecords.putBounds(buffer, offset, group.first(), group.last());
                    continue;
                }
                final byte type = GroupRecords.type(buffer, offset);
                final long current;
                if (type == TYPE_ENTRY) {
                    current = group.lsn(GroupRecords.index(buffer, offset));
                } else if (type == TYPE_PUT) {
                    final byte[] key = new byte[GroupRecords.keyLength(buffer, offset)];
                    buffer.getBytes(offset + HEADER_LENGTH, key);
                    current = group.valuesOrNull() == null
                            ? GroupIndex.ABSENT
                            : group.valuesOrNull().lsn(key);
                } else {
                    current = GroupIndex.ABSENT;
                }
                if (current != source) {
                    return false;
                }
            }
        }
        return true;
    }

    private long segmentBase(final long position) {
        return position - Math.floorMod(position, segmentBytes);
    }
}
