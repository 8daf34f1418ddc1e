package io.walden.groups.internal;

import io.walden.Durability;
import io.walden.WalReader;
import io.walden.groups.GroupRecordDescriptor;
import io.walden.groups.RelocatedRecordDescriptor;
import java.nio.ByteOrder;

/**
 * What opening needs of the relocation log: every record's virtual position and relocation log
 * position, sorted by virtual position (16 bytes per record, held only while the group log opens).
 * {@link #applyBelow} replays the copies whose originals the main log freed, in virtual position order;
 * {@link #copyOf} then names the copy of each main log record that has one, as the main log's replay
 * reaches it in position order.
 *
 * <p><b>Threading:</b> used by the opening thread only.
 */
final class RelocatedCopies {
    private long[] virtualPositions = new long[64];
    private long[] positions = new long[64];
    private int size;
    private int cursor;
    private long scannedBytes;

    /** Reads every record's positions from the relocation log and sorts them. */
    static RelocatedCopies read(final RelocationLog log) {
        final RelocatedCopies copies = new RelocatedCopies();
        if (log != null && log.openIfPresent()) {
            final long from = log.startPosition();
            try (WalReader reader = log.wal().reader(from, Durability.WRITTEN)) {
                reader.replay((buffer, offset, length, lsn) -> copies.add(
                        buffer.getLong(
                                offset + RelocatedRecordDescriptor.VIRTUAL_POSITION_OFFSET, ByteOrder.LITTLE_ENDIAN),
                        lsn));
                copies.scannedBytes = reader.position() - from;
            }
            copies.sort();
        }
        return copies;
    }

    long scannedBytes() {
        return scannedBytes;
    }

    /**
     * Applies, in virtual position order, the copies whose virtual positions lie below the main log's
     * start (of several copies of one record, the last written), and leaves the cursor at the first
     * copy the main log still holds the original of.
     */
    void applyBelow(final long mainStart, final RelocationLog log, final GroupTable table) {
        final ReaderPool.RecordVisitor apply = (buffer, offset, length, lsn) -> {
            final int record = offset + RelocatedRecordDescriptor.HEADER_LENGTH;
            final int recordLength = length - RelocatedRecordDescriptor.HEADER_LENGTH;
            GroupRecords.check(buffer, record, recordLength, lsn);
            final byte type = GroupRecords.type(buffer, record);
            if (type == GroupRecordDescriptor.TYPE_ENTRY) {
                GroupRecords.apply(table, buffer, record, recordLength, LogPlaces.relocated(lsn));
            } else if (type == GroupRecordDescriptor.TYPE_BOUNDS || type == GroupRecordDescriptor.TYPE_REMOVE) {
                final GroupIndex group = table.getOrCreate(GroupRecords.groupId(buffer, record));
                synchronized (group) {
                    if (type == GroupRecordDescriptor.TYPE_BOUNDS) {
                        group.dropOutside(GroupRecords.index(buffer, record), GroupRecords.lastIndex(buffer, record));
                    } else {
                        group.dropOutside(1, 0);
                    }
                }
                table.removeIfBlank(group);
            } else {
                throw new IllegalStateException("a relocation log record of type " + type + " at " + lsn);
            }
        };
        while (cursor < size && virtualPositions[cursor] < mainStart) {
            if (cursor + 1 < size && virtualPositions[cursor + 1] == virtualPositions[cursor]) {
                cursor++;
                continue;
            }
            if (!log.read(positions[cursor], apply)) {
                throw new IllegalStateException("the relocation log holds no record at " + positions[cursor]);
            }
            cursor++;
        }
    }

    /**
     * The relocated form ({@link LogPlaces}) of the last copy of the main log record at {@code lsn}, or
     * {@link GroupIndex#ABSENT}; called with increasing positions. Only an entry is known by its copy: a
     * bounds record the group needs stays pinned where it is.
     */
    long copyOf(final long lsn) {
        while (cursor < size && virtualPositions[cursor] < lsn) {
            cursor++;
        }
        long copy = GroupIndex.ABSENT;
        while (cursor < size && virtualPositions[cursor] == lsn) {
            copy = LogPlaces.relocated(positions[cursor]);
            cursor++;
        }
        return copy;
    }

    private void add(final long virtualPosition, final long position) {
        if (size == positions.length) {
            virtualPositions = java.util.Arrays.copyOf(virtualPositions, size * 2);
            positions = java.util.Arrays.copyOf(positions, size * 2);
        }
        virtualPositions[size] = virtualPosition;
        positions[size] = position;
        size++;
    }

    /** Sorts by virtual position, then position: a merge sort, stable, on the two arrays at once. */
    private void sort() {
        if (isSorted()) {
            return;
        }
        final long[] otherVirtual = new long[size];
        final long[] other = new long[size];
        long[] fromVirtual = virtualPositions;
        long[] from = positions;
        long[] toVirtual = otherVirtual;
        long[] to = other;
        for (int width = 1; width < size; width *= 2) {
            for (int low = 0; low < size; low += 2 * width) {
                final int mid = Math.min(low + width, size);
                final int high = Math.min(low + 2 * width, size);
                int left = low;
                int right = mid;
                for (int out = low; out < high; out++) {
                    if (left < mid && (right >= high || fromVirtual[left] <= fromVirtual[right])) {
                        toVirtual[out] = fromVirtual[left];
                        to[out] = from[left++];
                    } else {
                        toVirtual[out] = fromVirtual[right];
                        to[out] = from[right++];
                    }
                }
            }
            final long[] swapVirtual = fromVirtual;
            fromVirtual = toVirtual;
            toVirtual = swapVirtual;
            final long[] swap = from;
            from = to;
            to = swap;
        }
        virtualPositions = fromVirtual;
        positions = from;
    }

    private boolean isSorted() {
        for (int i = 1; i < size; i++) {
            if (virtualPositions[i] < virtualPositions[i - 1]) {
                return false;
            }
        }
        return true;
    }
}
