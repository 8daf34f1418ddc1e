package io.walden.groups;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.groups.internal.BatchPlanner;
import io.walden.groups.internal.GroupIndex;
import io.walden.groups.internal.GroupLogOpening;
import io.walden.groups.internal.GroupRecords;
import io.walden.groups.internal.GroupTable;
import io.walden.groups.internal.GroupValues;
import io.walden.groups.internal.LogPlaces;
import io.walden.groups.internal.Purger;
import io.walden.groups.internal.ReaderPool;
import io.walden.groups.internal.RelocationLog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;

/**
 * Many logs in one: any number of groups (Raft groups, partitions), each a log of entries by index, all
 * kept in ONE Walden log, so that a node with thousands of groups has one write stream, one fsync per
 * group commit across all of them, and no thread, buffer or file per group.
 *
 * <p>Every record names its group (a 64-bit id) and index ({@link GroupRecordDescriptor}). An append of
 * a {@link GroupBatch}, which may cover entries and operations of many groups, is one Walden batch: after
 * any crash the log holds all of it or none, with one durability and one wait; appenders to different
 * groups share group commit as appenders to one Walden log do.
 *
 * <p>Per group ({@link #firstIndex}, {@link #lastIndex}, {@link #read}): the entries between a first and
 * a last index, gaps possible. {@link GroupBatch#truncatePrefix} is logical (it moves the first index and
 * rewrites nothing); {@link GroupBatch#truncateSuffix}, {@link GroupBatch#reset} and {@link
 * GroupBatch#removeGroup} are records that store the group's bounds after them, so that after any crash
 * a group shows the state before or after each, never a mix, and no other group is touched. Small
 * key-values per group ({@link #put}, {@link #get}: a Raft term and vote) live in the same log.
 *
 * <p>Memory: an index of 8 bytes per index between a group's bounds (12 at most, with the array's
 * headroom) and about 100 bytes per idle group. Opening rebuilds every index in one read of the log, from
 * its start: its cost follows the log's size, which {@link #purge()} keeps near the live data.
 *
 * <p>Space: {@link #purge()} frees every segment below the oldest record a group still needs, names the
 * groups that pin the oldest segment left, and copies the few live records of groups that pinned it for
 * {@link GroupLogConfig#relocateAfterRounds()} rounds to the head of the log, so that groups that never
 * compact cannot hold the disk.
 *
 * <p><b>Threading:</b> thread-safe. Appends take a short lock while their records are claimed in the log
 * and their groups' indexes updated (so each group's index changes in log order), and wait for
 * durability outside it; reads take the group's monitor and one of {@link GroupLogConfig#readers()}
 * readers.
 */
public final class GroupLog implements AutoCloseable {
    private final GroupLogConfig config;
    private final Wal wal;
    private final RelocationLog relocation;
    private final GroupTable table;
    private final ReaderPool readers;
    private final BatchPlanner planner;
    private final Purger purger;
    // Held while a batch is planned, claimed in the log and applied to the indexes: each group's index
    // changes in log order. Reentrant: the one-operation methods fill `single` under it.
    private final ReentrantLock appendLock = new ReentrantLock();
    // Guarded by appendLock.
    private final GroupBatch single = new GroupBatch();
    private final long openScannedBytes;
    private final long openScanNs;
    private volatile boolean closed;

    private GroupLog(
            final GroupLogConfig config,
            final Wal wal,
            final RelocationLog relocation,
            final GroupLogOpening.Result opened) {
        this.config = config;
        this.wal = wal;
        this.relocation = relocation;
        this.table = opened.table();
        this.openScannedBytes = opened.scannedBytes();
        this.openScanNs = opened.scanNs();
        this.readers = new ReaderPool(wal, config.readers());
        this.planner = new BatchPlanner(table, config.maxValueBytes());
        this.purger = new Purger(wal, relocation, table, readers, appendLock, config);
    }

    /**
     * Opens a group log, creating it if the directory holds none, and rebuilds every group's index from
     * the log.
     *
     * @param config the settings.
     * @return the open log.
     * @throws WalException if the Walden log cannot be opened ({@link Wal#open}), or holds records that
     *     are not a group log's ({@link WalException.ErrorCode#FORMAT}).
     */
    public static GroupLog open(final GroupLogConfig config) {
        final Wal wal = Wal.open(config.walConfig());
        final RelocationLog relocation = new RelocationLog(config.relocationWalConfig(), config.readers());
        try {
            return new GroupLog(config, wal, relocation, GroupLogOpening.rebuild(wal, relocation));
        } catch (final RuntimeException ex) {
            CloseHelper.quietCloseAll(relocation, wal);
            throw ex;
        }
    }

    /**
     * Opens a group log with the group layer's defaults; see {@link #open(GroupLogConfig)}.
     *
     * @param walConfig the Walden log that holds every group.
     * @return the open log.
     */
    public static GroupLog open(final WalConfig walConfig) {
        return open(GroupLogConfig.builder(walConfig).build());
    }

    /**
     * Appends a batch as one unit and waits until it reaches a durability level. Allocates nothing for
     * entries.
     *
     * @param batch the operations, at least one.
     * @param durability how far the whole batch must get before this returns.
     * @return the position of the batch's last record ({@link #await} takes it).
     * @throws WalException if the batch was refused (nothing of it appended) or the log failed; an
     *     error whose outcome is unknown says so, as {@link Wal#append(WalBatch, Durability)} does.
     */
    public long append(final GroupBatch batch, final Durability durability) {
        Objects.requireNonNull(durability, "durability");
        final long lastLsn;
        appendLock.lock();
        try {
            lastLsn = appendLocked(batch);
        } finally {
            appendLock.unlock();
        }
        if (durability != Durability.BUFFERED) {
            wal.await(lastLsn, durability);
        }
        return lastLsn;
    }

    /**
     * Appends one entry; see {@link GroupBatch#add(long, long, byte[])}.
     *
     * @return the entry's position.
     */
    public long append(final long groupId, final long index, final byte[] entry, final Durability durability) {
        Objects.requireNonNull(entry, "entry");
        appendLock.lock();
        try {
            single.clear().add(groupId, index, entry);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Moves a group's first index; see {@link GroupBatch#truncatePrefix}.
     *
     * @return the record's position.
     */
    public long truncatePrefix(final long groupId, final long firstIndexKept, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().truncatePrefix(groupId, firstIndexKept);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Drops a group's entries after an index; see {@link GroupBatch#truncateSuffix}.
     *
     * @return the record's position.
     */
    public long truncateSuffix(final long groupId, final long lastIndexKept, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().truncateSuffix(groupId, lastIndexKept);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Drops every entry of a group; see {@link GroupBatch#reset}.
     *
     * @return the record's position.
     */
    public long reset(final long groupId, final long nextIndex, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().reset(groupId, nextIndex);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Removes a group; see {@link GroupBatch#removeGroup}.
     *
     * @return the record's position.
     */
    public long removeGroup(final long groupId, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().removeGroup(groupId);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Sets a group's key-value; see {@link GroupBatch#put}.
     *
     * @return the record's position.
     */
    public long put(final long groupId, final String key, final byte[] value, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().put(groupId, key, value);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Removes a group's key-value; see {@link GroupBatch#delete}.
     *
     * @return the record's position.
     */
    public long delete(final long groupId, final String key, final Durability durability) {
        appendLock.lock();
        try {
            single.clear().delete(groupId, key);
            return appendSingle(durability);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * @param groupId the group.
     * @param key the key.
     * @return a copy of the value, or null if the group holds none under that key.
     */
    public byte[] get(final long groupId, final String key) {
        final GroupIndex group = table.get(groupId);
        if (group == null) {
            return null;
        }
        final byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        synchronized (group) {
            final GroupValues values = group.valuesOrNull();
            final byte[] value = values == null ? null : values.get(keyBytes);
            return value == null ? null : value.clone();
        }
    }

    /**
     * @param groupId the group.
     * @return its first index; 1 for a group the log holds nothing of.
     */
    public long firstIndex(final long groupId) {
        final GroupIndex group = table.get(groupId);
        if (group == null) {
            return 1;
        }
        synchronized (group) {
            return group.first();
        }
    }

    /**
     * @param groupId the group.
     * @return its last index; {@code firstIndex - 1} when it holds no entry (0 for a group the log holds
     *     nothing of).
     */
    public long lastIndex(final long groupId) {
        final GroupIndex group = table.get(groupId);
        if (group == null) {
            return 0;
        }
        synchronized (group) {
            return group.last();
        }
    }

    /**
     * Reads an entry, zero-copy, waiting first until it is written if it was appended {@code BUFFERED}.
     *
     * @param groupId the group.
     * @param index the entry's index.
     * @param handler receives the entry, on this thread, before this returns.
     * @return false if the group holds no entry at that index.
     * @throws WalException if the log failed, is closed, or the record is corrupt.
     */
    public boolean read(final long groupId, final long index, final EntryHandler handler) {
        checkOpen();
        while (true) {
            final long lsn = lsnOf(groupId, index);
            if (lsn == GroupIndex.ABSENT) {
                return false;
            }
            try {
                if (LogPlaces.inRelocationLog(lsn)) {
                    return relocation.readEntry(lsn, groupId, index, handler);
                }
                if (lsn >= wal.writtenPosition()) {
                    wal.await(lsn, Durability.WRITTEN);
                }
                return readers.readEntry(lsn, groupId, index, handler);
            } catch (final WalException ex) {
                // A purge freed the record's segment after it was relocated or truncated: look again.
                if (ex.errorCode() != WalException.ErrorCode.POSITION || lsnOf(groupId, index) == lsn) {
                    throw ex;
                }
            }
        }
    }

    /**
     * Reads an entry into a new array; see {@link #read}.
     *
     * @return the entry, or null if the group holds none at that index.
     */
    public byte[] entry(final long groupId, final long index) {
        final byte[][] copy = new byte[1][];
        final boolean found = read(groupId, index, (group, i, buffer, offset, length) -> {
            copy[0] = new byte[length];
            buffer.getBytes(offset, copy[0]);
        });
        return found ? copy[0] : null;
    }

    /** @return the ids of every group the log holds something of, ascending. */
    public long[] groupIds() {
        return table.groupIds();
    }

    /**
     * Waits until every record up to a position reaches a durability level.
     *
     * @param lsn a position an append returned.
     * @param durability the level.
     */
    public void await(final long lsn, final Durability durability) {
        wal.await(lsn, durability);
    }

    /** @return what recovery found when the Walden log under this group log was opened. */
    public RecoveryReport recoveryReport() {
        return wal.recoveryReport();
    }

    /** @return the position up to which every record is durable ({@code SYNCED}). */
    public long durablePosition() {
        return wal.durablePosition();
    }

    /** @return the position the next record will take: every record appended so far lies below it. */
    public long tailPosition() {
        return wal.tailPosition();
    }

    /**
     * Frees space: deletes every segment below the oldest record a group needs, then, for groups that
     * pinned the oldest segment left for {@link GroupLogConfig#relocateAfterRounds()} purges in a row,
     * copies their live records there to the head of the log (durably, crash-safe: after any crash each
     * entry is in its group once, at its index, with its bytes) and frees again. Call it periodically, as
     * retention; it runs on the caller's thread and holds the append lock only while relocated records are
     * appended.
     *
     * @return what it freed, the groups that pin the oldest segment left, and what it relocated.
     */
    public PurgeReport purge() {
        checkOpen();
        return purger.purge();
    }

    /** @return a snapshot of the counters (visits every group: not for a hot path). */
    public GroupLogStats stats() {
        long indexes = 0;
        long heap = 0;
        final List<GroupIndex> groups = table.snapshot();
        for (final GroupIndex group : groups) {
            synchronized (group) {
                indexes += group.size();
                heap += group.arrayBytes();
            }
        }
        return new GroupLogStats(
                groups.size(),
                indexes,
                heap,
                purger.purges(),
                purger.segmentsFreed(),
                purger.relocatedRecords(),
                purger.relocatedBytes(),
                openScannedBytes,
                openScanNs,
                relocation.spanBytes(),
                wal.stats());
    }

    /** @return the settings. */
    public GroupLogConfig config() {
        return config;
    }

    /** Closes the readers and the Walden log (which syncs what was written). Idempotent. */
    @Override
    public void close() {
        appendLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            appendLock.unlock();
        }
        CloseHelper.closeAll(readers, relocation, wal);
    }

    Purger purger() {
        return purger;
    }

    private long appendSingle(final Durability durability) {
        Objects.requireNonNull(durability, "durability");
        final long lsn = appendLocked(single);
        if (durability != Durability.BUFFERED) {
            // Waits under the lock only for the one-operation calls; a batch waits outside it.
            appendLock.unlock();
            try {
                wal.await(lsn, durability);
            } finally {
                appendLock.lock();
            }
        }
        return lsn;
    }

    private long appendLocked(final GroupBatch batch) {
        checkOpen();
        final WalBatch records = batch.records();
        if (records.isEmpty()) {
            throw new WalException(WalException.ErrorCode.CONFIG, "the batch holds no operation");
        }
        planner.plan(records);
        wal.append(records, Durability.BUFFERED);
        final DirectBuffer buffer = records.buffer();
        for (int i = 0, size = records.size(); i < size; i++) {
            GroupRecords.apply(table, buffer, records.offset(i), records.length(i), records.lsn(i));
        }
        return records.lsn(records.size() - 1);
    }

    private long lsnOf(final long groupId, final long index) {
        final GroupIndex group = table.get(groupId);
        if (group == null) {
            return GroupIndex.ABSENT;
        }
        synchronized (group) {
            return group.lsn(index);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new WalException(WalException.ErrorCode.CLOSED, "the group log is closed");
        }
    }
}
