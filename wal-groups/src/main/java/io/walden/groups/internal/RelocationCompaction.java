package io.walden.groups.internal;

import io.walden.WalBatch;
import io.walden.format.FrameDescriptor;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayList;

/**
 * Keeps the relocation log near its live data: when more than half of it is dead (copies of entries that
 * their groups truncated since), the live copies in its oldest segment are copied again to its head,
 * whole, with their virtual positions, so that the segment can be freed (a log cleaner's rule: a byte
 * moved pays for at least one dead byte freed). A copy moved stays where its original
 * stood in the replay; a record that drops it later is a killer as before, and follows it.
 *
 * <p><b>Threading:</b> called by the purger under its lock; takes the append lock to append and point
 * the indexes.
 */
final class RelocationCompaction {
    // Compacted when at most this share of the log is estimated live.
    private static final int LIVE_SHARE_DIVISOR = 2;
    // Nor before the log spans this many segments: a young log has little to gain.
    private static final int SEGMENTS_MIN = 2;

    private final RelocationLog relocation;
    private final GroupTable table;
    private final ReentrantLock appendLock;
    private final long batchFramedBytesMax;
    private final WalBatch moved = new WalBatch();
    private final LongArrayList sources = new LongArrayList();
    private final LongArrayList indexes = new LongArrayList();
    private long movedRecords;
    private long movedBytes;
    private long lastMovedLsn = -1;

    RelocationCompaction(
            final RelocationLog relocation,
            final GroupTable table,
            final ReentrantLock appendLock,
            final int relocationMaxRecordBytes) {
        this.relocation = relocation;
        this.table = table;
        this.appendLock = appendLock;
        this.batchFramedBytesMax = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(relocationMaxRecordBytes));
    }

    /**
     * Moves the live copies of the oldest segment, durably, if most of the log is dead.
     *
     * @param averageCopyBytes the mean length of a copy, to estimate the live bytes.
     * @return the copies moved; their bytes in {@link #movedBytes()}.
     */
    long compact(final List<GroupIndex> groups, final long averageCopyBytes) {
        movedRecords = 0;
        movedBytes = 0;
        lastMovedLsn = -1;
        if (!relocation.isOpen()) {
            return 0;
        }
        final long segmentBytes = relocation.wal().config().segmentCapacityBytes();
        final long start = relocation.startPosition();
        final long span = relocation.tailPosition() - start;
        if (span < SEGMENTS_MIN * segmentBytes) {
            return 0;
        }
        long live = 0;
        for (final GroupIndex group : groups) {
            synchronized (group) {
                live += group.relocatedEntries();
            }
        }
        if (live * averageCopyBytes * LIVE_SHARE_DIVISOR > span) {
            return 0;
        }
        final long end = start - Math.floorMod(start, segmentBytes) + segmentBytes;
        for (final GroupIndex group : groups) {
            move(group, start, end);
        }
        if (lastMovedLsn >= 0) {
            relocation.awaitSynced(lastMovedLsn);
        }
        return movedRecords;
    }

    long movedBytes() {
        return movedBytes;
    }

    private void move(final GroupIndex group, final long start, final long end) {
        final LongArrayList lsns = new LongArrayList();
        final LongArrayList at = new LongArrayList();
        synchronized (group) {
            for (long index = group.first(); index <= group.last(); index++) {
                final long lsn = group.lsn(index);
                if (LogPlaces.inRelocationLog(lsn)
                        && LogPlaces.positionOf(lsn) >= start
                        && LogPlaces.positionOf(lsn) < end) {
                    lsns.addLong(lsn);
                    at.addLong(index);
                }
            }
        }
        for (int i = 0; i < lsns.size(); i++) {
            final long source = lsns.getLong(i);
            final long index = at.getLong(i);
            relocation.read(LogPlaces.positionOf(source), (buffer, offset, length, lsn) -> {
                if (moved.framedBytes() + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length))
                                > batchFramedBytesMax
                        && !moved.isEmpty()) {
                    flush(group);
                }
                final int copy = moved.claim(length);
                final MutableDirectBuffer into = moved.buffer();
                into.putBytes(copy, buffer, offset, length);
                sources.addLong(source);
                indexes.addLong(index);
            });
        }
        if (!moved.isEmpty()) {
            flush(group);
        }
    }

    /** Appends the batch if every source is still current, and points the indexes at the new copies. */
    private void flush(final GroupIndex group) {
        appendLock.lock();
        try {
            boolean current = true;
            synchronized (group) {
                for (int i = 0; i < sources.size() && current; i++) {
                    current = group.lsn(indexes.getLong(i)) == sources.getLong(i);
                }
            }
            if (current) {
                relocation.append(moved);
                synchronized (group) {
                    for (int i = 0; i < moved.size(); i++) {
                        group.relocate(indexes.getLong(i), sources.getLong(i), LogPlaces.relocated(moved.lsn(i)));
                    }
                }
                movedRecords += moved.size();
                movedBytes += moved.payloadBytes();
                lastMovedLsn = moved.lsn(moved.size() - 1);
            }
        } finally {
            appendLock.unlock();
        }
        moved.clear();
        sources.clear();
        indexes.clear();
    }
}
