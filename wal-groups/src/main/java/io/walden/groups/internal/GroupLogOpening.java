package io.walden.groups.internal;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalReader;

/**
 * Rebuilds every group's index when a group log opens: one read of the Walden log from its start,
 * applying each record as it was applied when written ({@link GroupRecords#apply}).
 *
 * <p><b>Threading:</b> runs on the opening thread, before the log is shared.
 */
public final class GroupLogOpening {
    /** The rebuilt indexes and what the read cost. */
    public record Result(GroupTable table, long scannedBytes, long scanNs) {}

    private GroupLogOpening() {}

    public static Result rebuild(final Wal wal) {
        final GroupTable table = new GroupTable();
        final long startNs = System.nanoTime();
        final long from = wal.startPosition();
        try (WalReader reader = wal.reader(from, Durability.WRITTEN)) {
            reader.replay((buffer, offset, length, lsn) -> {
                GroupRecords.check(buffer, offset, length, lsn);
                GroupRecords.apply(table, buffer, offset, length, lsn);
            });
            return new Result(table, reader.position() - from, System.nanoTime() - startNs);
        }
    }
}
