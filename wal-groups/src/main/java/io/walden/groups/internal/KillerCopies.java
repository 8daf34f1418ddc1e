package io.walden.groups.internal;

import static io.walden.groups.GroupRecordDescriptor.TYPE_ENTRY;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.groups.RelocatedRecordDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.LongArrayList;

/**
 * Copies the killers ({@link GroupIndex}: main log records that dropped a relocated entry) to the
 * relocation log at the start of each purge: each only once it is durable in the main log (a copy must
 * never outlive its original's position), all of them durably before their groups stop pinning them.
 * A killer's copy lands after every copy it dropped, which were written before it existed.
 *
 * <p><b>Threading:</b> called by the purger under its lock; takes each group's monitor briefly.
 */
final class KillerCopies {
    private final Wal wal;
    private final RelocationLog relocation;
    private final GroupTable table;
    private final ReaderPool readers;
    private final long batchFramedBytesMax;
    // Guarded by the purger's lock: the copies of one batch, and for each its killer, group and index.
    private final WalBatch copies = new WalBatch();
    private final LongArrayList sources = new LongArrayList();
    private final List<GroupIndex> owners = new ArrayList<>();
    private final LongArrayList indexes = new LongArrayList();
    private long copiedRecords;
    private long copiedBytes;

    KillerCopies(
            final Wal wal,
            final RelocationLog relocation,
            final GroupTable table,
            final ReaderPool readers,
            final long batchFramedBytesMax) {
        this.wal = wal;
        this.relocation = relocation;
        this.table = table;
        this.readers = readers;
        this.batchFramedBytesMax = batchFramedBytesMax;
    }

    /**
     * Copies every killer, durably, and tells its group, which then no longer pins it.
     *
     * @return how many; their bytes in {@link #copiedBytes()}.
     */
    long copy() {
        copiedRecords = 0;
        copiedBytes = 0;
        final List<GroupIndex> groups = new ArrayList<>();
        final LongArrayList killers = new LongArrayList();
        long last = -1;
        for (final GroupIndex group : table.snapshot()) {
            final long[] own;
            synchronized (group) {
                own = group.killers();
            }
            for (final long killer : own) {
                groups.add(group);
                killers.addLong(killer);
                last = Math.max(last, killer);
            }
        }
        if (killers.isEmpty()) {
            return 0;
        }
        wal.await(last, Durability.SYNCED);
        for (int i = 0; i < killers.size(); i++) {
            final long killer = killers.getLong(i);
            final GroupIndex owner = groups.get(i);
            final boolean found = readers.read(killer, (buffer, offset, length, lsn) -> {
                if (Purger.relocationFramedBytes(copies, RelocatedRecordDescriptor.HEADER_LENGTH + length)
                                > batchFramedBytesMax
                        && !copies.isEmpty()) {
                    flush();
                }
                Purger.addCopy(copies, buffer, offset, length, killer);
                sources.addLong(killer);
                owners.add(owner);
                indexes.addLong(
                        GroupRecords.type(buffer, offset) == TYPE_ENTRY
                                ? GroupRecords.index(buffer, offset)
                                : GroupIndex.ABSENT);
            });
            if (!found) {
                throw new IllegalStateException("the main log holds no record at killer position " + killer);
            }
        }
        flush();
        return copiedRecords;
    }

    long copiedBytes() {
        return copiedBytes;
    }

    /** Appends the batch, waits until it is durable, and tells the groups. */
    private void flush() {
        if (copies.isEmpty()) {
            return;
        }
        relocation.append(copies);
        relocation.awaitSynced(copies.lsn(copies.size() - 1));
        for (int j = 0; j < copies.size(); j++) {
            final GroupIndex owner = owners.get(j);
            synchronized (owner) {
                owner.killerCopied(sources.getLong(j), indexes.getLong(j), LogPlaces.relocated(copies.lsn(j)));
            }
            table.removeIfBlank(owner);
        }
        copiedRecords += copies.size();
        copiedBytes += copies.payloadBytes();
        copies.clear();
        sources.clear();
        owners.clear();
        indexes.clear();
    }
}
