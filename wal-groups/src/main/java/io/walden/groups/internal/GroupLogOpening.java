package io.walden.groups.internal;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalReader;
import io.walden.groups.GroupRecordDescriptor;

/**
 * Rebuilds every group's index when a group log opens: the relocation log's copies of records the main
 * log freed, in their original order ({@link RelocatedCopies}), then one read of the main log from its
 * start, applying each record as it was applied when written ({@link GroupRecords#apply}), known by its
 * relocated copy where it has one.
 *
 * <p><b>Threading:</b> runs on the opening thread, before the log is shared.
 */
public final class GroupLogOpening {
    /** The rebuilt indexes and what the read cost. */
    public record Result(GroupTable table, long scannedBytes, long scanNs) {}

    private GroupLogOpening() {}

    public static Result rebuild(final Wal wal, final RelocationLog relocation) {
        final GroupTable table = new GroupTable();
        final long startNs = System.nanoTime();
        final long from = wal.startPosition();
        final RelocatedCopies copies = RelocatedCopies.read(relocation);
        copies.applyBelow(from, relocation, table);
        try (WalReader reader = wal.reader(from, Durability.WRITTEN)) {
            reader.replay((buffer, offset, length, lsn) -> {
                GroupRecords.check(buffer, offset, length, lsn);
                final long copy = copies.copyOf(lsn);
                final boolean entry = GroupRecords.type(buffer, offset) == GroupRecordDescriptor.TYPE_ENTRY;
                GroupRecords.apply(table, buffer, offset, length, copy != GroupIndex.ABSENT && entry ? copy : lsn);
            });
            return new Result(table, reader.position() - from + copies.scannedBytes(), System.nanoTime() - startNs);
        }
    }
}
