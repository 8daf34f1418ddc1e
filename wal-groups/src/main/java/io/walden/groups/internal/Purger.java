package io.walden.groups.internal;

import static io.walden.groups.GroupRecordDescriptor.FLAGS_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.FLAG_RELOCATED;
import static io.walden.groups.GroupRecordDescriptor.HEADER_LENGTH;
import static io.walden.groups.GroupRecordDescriptor.TYPE_BOUNDS;
import static io.walden.groups.GroupRecordDescriptor.TYPE_PUT;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.format.FrameDescriptor;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupRecordDescriptor;
import io.walden.groups.PurgeReport;
import io.walden.groups.RelocatedRecordDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayList;

/**
 * Reclaims space in a group log: frees every segment below the oldest record any group needs ({@link
 * GroupIndex#pinLsn}), and names the groups that pin the oldest segment left. A group that pinned it for
 * {@link GroupLogConfig#relocateAfterRounds()} purges in a row is relocatable: its live records below the
 * target (the oldest record of a group that is not relocatable, or the segment being written) are copied
 * out, so that one purge frees everything up to the target.
 *
 * <p>Where each copy goes: a live entry to the relocation log ({@link RelocationLog}), once, with its
 * original position, so that entries of groups that never truncate are not copied again at every turn of
 * the main log; a key-value, or the bounds a group needs, to the head of the main log (flagged {@link
 * GroupRecordDescriptor#FLAG_RELOCATED}; the bounds as they are now). Copies are made only of durable
 * records (a copy must never outlive its original's position), read outside the append lock, and
 * appended under it only if every source is still the group's current record (an append, truncation or
 * reset in between skips the group this round); the main log frees the originals only once the copies
 * are durable. Each purge first copies the killers ({@link KillerCopies}), so that a dropped copy cannot
 * come back; the relocation log frees its own prefix below every group's relocated live entries, and
 * compacts itself ({@link RelocationCompaction}).
 *
 * <p><b>Threading:</b> one purge at a time (its own lock); it takes the group log's append lock only to
 * append relocated records.
 */
public final class Purger {
    private final Wal wal;
    private final RelocationLog relocation;
    private final GroupTable table;
    private final ReaderPool readers;
    private final ReentrantLock appendLock;
    private final GroupLogConfig config;
    private final long segmentBytes;
    private final int batchFramedBytesMax;
    private final int relocationBatchFramedBytesMax;
    private final Object purgeLock = new Object();
    private final RelocationCompaction compaction;
    private final KillerCopies killers;
    // Guarded by purgeLock: the copies for the main log (key-values, bounds) and each one's source.
    private final WalBatch copies = new WalBatch();
    private final LongArrayList sources = new LongArrayList();
    // Guarded by purgeLock: the entry copies for the relocation log and each one's source.
    private final WalBatch entryCopies = new WalBatch();
    private final LongArrayList entrySources = new LongArrayList();
    // Guarded by purgeLock: what the relocation of this purge appended so far.
    private long movedRecords;
    private long movedBytes;
    private long lastMovedLsn = -1;
    private long lastCopyLsn = -1;
    // Tests force an interleaving here: run after a group's copies are read, before they are appended.
    private volatile Runnable beforeAppendHook = () -> {};
    private volatile long purges;
    private volatile long segmentsFreed;
    private volatile long relocatedRecords;
    private volatile long relocatedBytes;

    public Purger(
            final Wal wal,
            final RelocationLog relocation,
            final GroupTable table,
            final ReaderPool readers,
            final ReentrantLock appendLock,
            final GroupLogConfig config) {
        this.wal = wal;
        this.relocation = relocation;
        this.table = table;
        this.readers = readers;
        this.appendLock = appendLock;
        this.config = config;
        this.segmentBytes = config.walConfig().segmentCapacityBytes();
        this.batchFramedBytesMax = FrameDescriptor.alignedLength(
                FrameDescriptor.frameLength(config.walConfig().maxRecordBytes()));
        this.relocationBatchFramedBytesMax = FrameDescriptor.alignedLength(
                FrameDescriptor.frameLength(config.relocationWalConfig().maxRecordBytes()));
        this.killers = new KillerCopies(wal, relocation, table, readers, relocationBatchFramedBytesMax);
        this.compaction = new RelocationCompaction(
                relocation, table, appendLock, config.relocationWalConfig().maxRecordBytes());
    }

    public PurgeReport purge() {
        synchronized (purgeLock) {
            purges++;
            movedRecords = 0;
            movedBytes = 0;
            final long killerCopies = killers.copy();
            movedRecords += killerCopies;
            movedBytes += killers.copiedBytes();
            final List<GroupIndex> groups = table.snapshot();
            long freed = truncateMain(groups);
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
            lastMovedLsn = -1;
            lastCopyLsn = -1;
            final long killerRecords = movedRecords;
            if (target >= oldestEnd) {
                relocateBelow(groups, pins, target);
            }
            if (movedRecords > killerRecords) {
                if (lastCopyLsn >= 0) {
                    relocation.awaitSynced(lastCopyLsn);
                }
                if (lastMovedLsn >= 0) {
                    wal.await(lastMovedLsn, Durability.SYNCED);
                }
                freed += truncateMain(table.snapshot());
            }
            purgeRelocationLog();
            relocatedRecords += movedRecords;
            relocatedBytes += movedBytes;
            segmentsFreed += freed;
            return new PurgeReport(
                    freed,
                    wal.startPosition(),
                    pinningGroups(groups, pins, pinners, oldestEnd),
                    movedRecords,
                    movedBytes);
        }
    }

    /** Frees the relocation log's prefix below its live copies, and compacts its oldest segment. */
    private void purgeRelocationLog() {
        if (!relocation.isOpen()) {
            return;
        }
        truncateRelocation();
        final long records = relocatedRecords + movedRecords;
        if (records == 0) {
            return;
        }
        final long averageCopyBytes = (relocatedBytes + movedBytes) / records
                + RelocatedRecordDescriptor.HEADER_LENGTH
                + FrameDescriptor.HEADER_LENGTH;
        final long compacted = compaction.compact(table.snapshot(), averageCopyBytes);
        if (compacted > 0) {
            movedRecords += compacted;
            movedBytes += compaction.movedBytes();
            truncateRelocation();
        }
    }

    private void truncateRelocation() {
        final long cut = relocationCut(table.snapshot());
        if (relocation.wouldFree(cut)) {
            // The records that dropped the copies below the cut must survive what frees them.
            wal.sync();
            relocation.truncateBefore(cut);
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

    /**
     * Frees the main log below the lowest position a group needs. The pins are sampled first and the log
     * synced before anything is freed: a record that superseded or dropped a freed one must survive as
     * surely as the freed one would have.
     */
    private long truncateMain(final List<GroupIndex> groups) {
        final long cut = cut(groups);
        if (segmentBase(cut) <= wal.startPosition()) {
            return 0;
        }
        wal.sync();
        return wal.truncateBefore(cut);
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

    /** The lowest relocation log position a group needs, or that log's tail. */
    private long relocationCut(final List<GroupIndex> groups) {
        // Only the purger appends there, and it holds the purge lock: the tail cannot move meanwhile.
        long cut = relocation.tailPosition();
        for (final GroupIndex group : groups) {
            synchronized (group) {
                cut = Math.min(cut, group.relocationPinLsn());
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

    static long relocationFramedBytes(final WalBatch batch, final int length) {
        return batch.framedBytes() + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
    }

    /** Copies a group record into a relocation batch after its virtual position, flagged relocated. */
    static void addCopy(
            final WalBatch batch,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final long virtualPosition) {
        final int at = batch.claim(RelocatedRecordDescriptor.HEADER_LENGTH + length);
        final MutableDirectBuffer into = batch.buffer();
        into.putLong(at + RelocatedRecordDescriptor.VIRTUAL_POSITION_OFFSET, virtualPosition, LITTLE_ENDIAN);
        final int record = at + RelocatedRecordDescriptor.HEADER_LENGTH;
        into.putBytes(record, buffer, offset, length);
        into.putByte(record + FLAGS_OFFSET, (byte) (into.getByte(record + FLAGS_OFFSET) | FLAG_RELOCATED));
    }

    /** Copies the group's live records below {@code end} out of the main log. */
    private void relocate(final GroupIndex group, final long end) {
        final LongArrayList entries = new LongArrayList();
        final LongArrayList others = new LongArrayList();
        final boolean boundsToo;
        synchronized (group) {
            for (long index = group.first(); index <= group.last(); index++) {
                final long lsn = group.lsn(index);
                if (LogPlaces.inMainLog(lsn) && lsn < end) {
                    entries.addLong(lsn);
                }
            }
            final GroupValues values = group.valuesOrNull();
            for (int i = 0; values != null && i < values.size(); i++) {
                if (values.lsn(i) < end) {
                    others.addLong(values.lsn(i));
                }
            }
            boundsToo = group.boundsNeeded() && LogPlaces.inMainLog(group.boundsLsn()) && group.boundsLsn() < end;
        }
        clearCopies();
        if (boundsToo) {
            claimBounds();
        }
        for (int i = 0; i < others.size(); i++) {
            final long source = others.getLong(i);
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
        for (int i = 0; i < entries.size(); i++) {
            final long source = entries.getLong(i);
            readers.read(source, (buffer, offset, length, lsn) -> {
                if (relocationFramedBytes(entryCopies, RelocatedRecordDescriptor.HEADER_LENGTH + length)
                                > relocationBatchFramedBytesMax
                        && !entryCopies.isEmpty()) {
                    flush(group);
                }
                addCopy(entryCopies, buffer, offset, length, source);
                entrySources.addLong(source);
            });
        }
        if (!copies.isEmpty() || !entryCopies.isEmpty()) {
            flush(group);
        }
    }

    private void claimBounds() {
        final int at = copies.claim(GroupRecordDescriptor.BOUNDS_LENGTH);
        copies.buffer().setMemory(at, GroupRecordDescriptor.BOUNDS_LENGTH, (byte) 0);
        sources.addLong(GroupIndex.ABSENT);
    }

    private void clearCopies() {
        copies.clear();
        sources.clear();
        entryCopies.clear();
        entrySources.clear();
    }

    /**
     * Appends the copies if every source is still the group's current record, and points the group's
     * index at them.
     */
    private void flush(final GroupIndex group) {
        long newestSource = -1;
        for (int i = 0; i < entrySources.size(); i++) {
            newestSource = Math.max(newestSource, entrySources.getLong(i));
        }
        if (newestSource >= 0) {
            // A copy may only stand for a durable record: after a crash, a lost one's position is reused.
            wal.await(newestSource, Durability.SYNCED);
        }
        beforeAppendHook.run();
        appendLock.lock();
        try {
            if (stillCurrent(group)) {
                appendCopies(group);
            }
        } finally {
            appendLock.unlock();
        }
        clearCopies();
    }

    /** Under the append lock, the sources still current: appends both batches and points the index. */
    private void appendCopies(final GroupIndex group) {
        if (!copies.isEmpty()) {
            wal.append(copies, Durability.BUFFERED);
            for (int i = 0; i < copies.size(); i++) {
                GroupRecords.apply(table, copies.buffer(), copies.offset(i), copies.length(i), copies.lsn(i));
            }
            movedRecords += copies.size();
            movedBytes += copies.payloadBytes();
            lastMovedLsn = copies.lsn(copies.size() - 1);
        }
        if (!entryCopies.isEmpty()) {
            relocation.append(entryCopies);
            synchronized (group) {
                for (int i = 0; i < entryCopies.size(); i++) {
                    final long index = GroupRecords.index(
                            entryCopies.buffer(), entryCopies.offset(i) + RelocatedRecordDescriptor.HEADER_LENGTH);
                    group.relocate(index, entrySources.getLong(i), LogPlaces.relocated(entryCopies.lsn(i)));
                }
            }
            movedRecords += entryCopies.size();
            movedBytes += entryCopies.payloadBytes();
            lastCopyLsn = entryCopies.lsn(entryCopies.size() - 1);
        }
    }

    /** Under the append lock: whether each copy's source is still current; fills in the bounds copy. */
    private boolean stillCurrent(final GroupIndex group) {
        final MutableDirectBuffer buffer = copies.buffer();
        synchronized (group) {
            for (int i = 0; i < entryCopies.size(); i++) {
                final long index = GroupRecords.index(
                        entryCopies.buffer(), entryCopies.offset(i) + RelocatedRecordDescriptor.HEADER_LENGTH);
                if (group.lsn(index) != entrySources.getLong(i)) {
                    return false;
                }
            }
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
                if (type == TYPE_PUT) {
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
