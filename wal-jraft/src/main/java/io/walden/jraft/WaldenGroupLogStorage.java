package io.walden.jraft;

import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.conf.ConfigurationEntry;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.codec.LogEntryDecoder;
import com.alipay.sofa.jraft.entity.codec.LogEntryEncoder;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.Durability;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.groups.GroupBatch;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupRecordDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * SOFAJRaft's {@link LogStorage} as a view of one group of a shared {@link GroupLog}: many Raft groups of
 * a node keep their logs in one Walden log, one write stream and one fsync per group commit across all
 * of them. Made by {@link WaldenGroupsJRaftServiceFactory}, which names the group ({@link
 * RaftGroupRegistry}).
 *
 * <p>It keeps the contract {@link WaldenLogStorage} keeps, jraft's RocksDB store's, exactly: a map from
 * entry index to entry, {@link RaftLogIndex} in memory saying which indexes are held, their terms, the
 * configuration entries and the first-index mark. The group holds the same entries, each at its jraft
 * index, its bytes a {@link RaftEntryHeader} and the encoded entry; the mark is the group's key-value
 * {@value #FIRST_INDEX_KEY}. Each call is one {@link GroupBatch}, atomic after any crash, appended
 * {@link Durability#SYNCED}:
 *
 * <ul>
 *   <li>{@link #appendEntries}: the entries (those below the mark, or at a negative index, are not held,
 *       as in {@link RaftLogIndex#put}), with the mark if a read pinned it since the last write. An
 *       entry below the group's first index (the group log refuses it) makes the batch a rewrite: the
 *       group is reset to its new lowest index and every entry it holds is added again with the new
 *       ones. A call whose records do not fit one batch ({@link io.walden.WalConfig#maxRecordBytes()}) is
 *       appended in several batches, in order, if it only adds entries past the last index: after a
 *       crash the group then holds a prefix of the call (unacknowledged entries that no later entry
 *       contradicts); a larger call that replaces entries, or one entry larger than a record, is refused
 *       (0 returned, logged).
 *   <li>{@link #truncatePrefix}: the mark and a logical prefix truncation of the group (nothing is
 *       rewritten; {@link GroupLog#purge()} frees the space).
 *   <li>{@link #truncateSuffix}: a suffix truncation to the last entry kept.
 *   <li>{@link #reset}: the group reset to the next index, the mark deleted, and the entry at the next
 *       index (or a no-op of term 0) added again, in one batch: after a crash the old log or the new.
 * </ul>
 *
 * <p>{@link #init} claims the group (a second view of it open at once is refused) and rebuilds the index
 * by reading the header of each entry of the group; {@link #shutdown} lets the group go and leaves the
 * shared log open.
 *
 * <p><b>Threading:</b> thread-safe. Appends and truncations are serialised by this view's append lock
 * (different views append concurrently and share the log's group commit); reads take the index lock
 * briefly and read the log outside it; {@link #init} and {@link #shutdown} exclude everything else.
 */
public final class WaldenGroupLogStorage implements LogStorage {
    /** The group's key-value that holds the first-index mark (8 bytes, little-endian). */
    static final String FIRST_INDEX_KEY = "jraft.first-index";
    /** What {@link RaftLogIndex} holds as the LSN of an entry: reads go by index, not by LSN. */
    private static final long HELD = 0;

    private static final System.Logger LOGGER = System.getLogger(WaldenGroupLogStorage.class.getName());

    private final GroupLog log;
    private final RaftGroupRegistry registry;
    private final String uri;
    // Write lock: init, shutdown. Read lock: the rest.
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    // Guards the index and markUnrecorded.
    private final Object indexLock = new Object();
    // Serialises the calls that append this view's batches.
    private final Object appendLock = new Object();
    private final RaftLogIndex index = new RaftLogIndex();
    // Guarded by indexLock: getFirstLogIndex pinned the first index and no record says so yet.
    private boolean markUnrecorded;
    // Set under the write lock, read under the read lock.
    private long groupId = -1;
    private boolean open;
    private LogEntryEncoder encoder;
    private LogEntryDecoder decoder;
    // Holder of appendLock.
    private final GroupBatch batch = new GroupBatch(64 * 1024);
    private final ExpandableArrayBuffer entryBuffer = new ExpandableArrayBuffer(256);

    WaldenGroupLogStorage(final GroupLog log, final RaftGroupRegistry registry, final String uri) {
        this.log = log;
        this.registry = registry;
        this.uri = uri;
    }

    /** @return the jraft log uri this view was made for: its group's name. */
    public String uri() {
        return uri;
    }

    /** @return the group this view writes, or -1 before {@link #init}. */
    public long groupId() {
        lifecycle.readLock().lock();
        try {
            return groupId;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public boolean init(final LogStorageOptions options) {
        lifecycle.writeLock().lock();
        try {
            if (open) {
                LOGGER.log(System.Logger.Level.ERROR, "the Raft log " + uri + " is initialised already");
                return false;
            }
            encoder = options.getLogEntryCodecFactory().encoder();
            decoder = options.getLogEntryCodecFactory().decoder();
            groupId = registry.claim(uri);
            try {
                rebuildIndex();
                open = true;
                loadConfigurations(options.getConfigurationManager());
                return true;
            } catch (final RuntimeException ex) {
                open = false;
                registry.release(groupId);
                throw ex;
            }
        } catch (final RuntimeException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "cannot open the Raft log " + uri + " in the shared group log", ex);
            return false;
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** Lets the group go; the shared log stays open. */
    @Override
    public void shutdown() {
        lifecycle.writeLock().lock();
        try {
            if (open) {
                open = false;
                registry.release(groupId);
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public long getFirstLogIndex() {
        synchronized (indexLock) {
            // As jraft's RocksDB store: reading the first index pins it. The next write records it.
            if (index.pinFirst()) {
                markUnrecorded = true;
            }
            return index.first();
        }
    }

    @Override
    public long getLastLogIndex() {
        synchronized (indexLock) {
            return index.last();
        }
    }

    @Override
    public LogEntry getEntry(final long entryIndex) {
        lifecycle.readLock().lock();
        try {
            if (!open) {
                return null;
            }
            synchronized (indexLock) {
                if (index.lsn(entryIndex) == RaftLogIndex.ABSENT) {
                    return null;
                }
            }
            final byte[] encoded = readEncoded(entryIndex);
            // Null: a truncation or reset that raced with this read dropped the entry.
            return encoded == null ? null : decoder.decode(encoded);
        } catch (final WalException ex) {
            LOGGER.log(
                    System.Logger.Level.ERROR,
                    "reading entry " + entryIndex + " of the Raft log " + uri + " failed",
                    ex);
            return null;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    @Deprecated
    public long getTerm(final long entryIndex) {
        synchronized (indexLock) {
            return index.term(entryIndex);
        }
    }

    @Override
    public boolean appendEntry(final LogEntry entry) {
        return appendEntries(List.of(entry)) == 1;
    }

    @Override
    public int appendEntries(final List<LogEntry> entries) {
        if (entries == null || entries.isEmpty()) {
            return 0;
        }
        lifecycle.readLock().lock();
        try {
            synchronized (appendLock) {
                if (!open) {
                    LOGGER.log(System.Logger.Level.ERROR, "append to the Raft log " + uri + " after shutdown");
                    return 0;
                }
                return new CallPlan(entries).append();
            }
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "appending to the Raft log " + uri + " failed", ex);
            return 0;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public boolean truncatePrefix(final long firstIndexKept) {
        lifecycle.readLock().lock();
        try {
            synchronized (appendLock) {
                if (!open) {
                    LOGGER.log(System.Logger.Level.ERROR, "truncatePrefix of the Raft log " + uri + " after shutdown");
                    return false;
                }
                batch.clear()
                        .put(groupId, FIRST_INDEX_KEY, RaftGroupRegistry.encode(firstIndexKept))
                        .truncatePrefix(groupId, firstIndexKept);
                log.append(batch, Durability.SYNCED);
                synchronized (indexLock) {
                    index.setFirst(firstIndexKept);
                    markUnrecorded = false;
                }
                return true;
            }
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "truncating the prefix of the Raft log " + uri + " failed", ex);
            return false;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public boolean truncateSuffix(final long lastIndexKept) {
        lifecycle.readLock().lock();
        try {
            synchronized (appendLock) {
                if (!open) {
                    LOGGER.log(System.Logger.Level.ERROR, "truncateSuffix of the Raft log " + uri + " after shutdown");
                    return false;
                }
                final long lastHeld;
                synchronized (indexLock) {
                    if (lastIndexKept >= index.last()) {
                        return true;
                    }
                    lastHeld = lastHeldAtOrBelow(lastIndexKept);
                }
                batch.clear();
                addUnrecordedMark();
                // To the last entry kept, so that the group's last index is an entry, as the view's is; none
                // kept: below the group's first index, which empties it.
                batch.truncateSuffix(groupId, lastHeld == RaftLogIndex.ABSENT ? log.firstIndex(groupId) - 1 : lastHeld);
                log.append(batch, Durability.SYNCED);
                synchronized (indexLock) {
                    index.truncateSuffix(lastIndexKept);
                    markUnrecorded = false;
                }
                return true;
            }
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "truncating the suffix of the Raft log " + uri + " failed", ex);
            return false;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public boolean reset(final long nextLogIndex) {
        if (nextLogIndex <= 0) {
            throw new IllegalArgumentException("the next log index must be positive, not " + nextLogIndex);
        }
        lifecycle.readLock().lock();
        try {
            synchronized (appendLock) {
                if (!open) {
                    LOGGER.log(System.Logger.Level.ERROR, "reset of the Raft log " + uri + " after shutdown");
                    return false;
                }
                final boolean held;
                synchronized (indexLock) {
                    held = index.lsn(nextLogIndex) != RaftLogIndex.ABSENT;
                }
                // As jraft's RocksDB store: everything goes, then the log holds the entry at the next index
                // (a no-op if there was none), which jraft overwrites as it appends from there.
                final byte[] kept = held ? log.entry(groupId, nextLogIndex) : null;
                batch.clear().reset(groupId, nextLogIndex).delete(groupId, FIRST_INDEX_KEY);
                final long term;
                final boolean configuration;
                if (kept != null) {
                    final DirectBuffer keptBuffer = new UnsafeBuffer(kept);
                    term = RaftEntryHeader.term(keptBuffer, 0);
                    configuration = RaftEntryHeader.isConfiguration(keptBuffer, 0);
                    batch.add(groupId, nextLogIndex, kept);
                } else {
                    final LogEntry noOp = new LogEntry(EntryType.ENTRY_TYPE_NO_OP);
                    noOp.setId(new LogId(nextLogIndex, 0));
                    term = 0;
                    configuration = false;
                    batch.add(groupId, nextLogIndex, entryBuffer, 0, writeEntry(noOp, encoder.encode(noOp)));
                }
                log.append(batch, Durability.SYNCED);
                synchronized (indexLock) {
                    index.clear();
                    index.put(nextLogIndex, HELD, term, configuration);
                    markUnrecorded = false;
                }
                return true;
            }
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "resetting the Raft log " + uri + " failed", ex);
            return false;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "WaldenGroupLogStorage{" + uri + ", group " + groupId + ", first " + getFirstLogIndex() + ", last "
                + getLastLogIndex() + "}";
    }

    /** The highest index held at or below an index, or {@link RaftLogIndex#ABSENT}. Holder of indexLock. */
    private long lastHeldAtOrBelow(final long entryIndex) {
        final long from = Math.max(index.first(), 0);
        for (long i = Math.min(entryIndex, index.last()); i >= from; i--) {
            if (index.lsn(i) != RaftLogIndex.ABSENT) {
                return i;
            }
        }
        return RaftLogIndex.ABSENT;
    }

    /** Adds the mark to the batch if a read pinned it since the last write. Holder of appendLock. */
    private void addUnrecordedMark() {
        synchronized (indexLock) {
            if (markUnrecorded) {
                batch.put(groupId, FIRST_INDEX_KEY, RaftGroupRegistry.encode(index.first()));
            }
        }
    }

    /** Writes an entry's bytes, header and encoding, into the entry buffer; returns their length. */
    private int writeEntry(final LogEntry entry, final byte[] encoded) {
        RaftEntryHeader.put(entryBuffer, 0, entry.getType(), entry.getId().getTerm());
        entryBuffer.putBytes(RaftEntryHeader.LENGTH, encoded);
        return RaftEntryHeader.LENGTH + encoded.length;
    }

    /** The encoded entry at an index, or null if the group holds none there. */
    private byte[] readEncoded(final long entryIndex) {
        final byte[][] copy = new byte[1][];
        log.read(groupId, entryIndex, (group, i, buffer, offset, length) -> {
            checkVersion(buffer, offset, length, i);
            copy[0] = new byte[length - RaftEntryHeader.LENGTH];
            buffer.getBytes(offset + RaftEntryHeader.LENGTH, copy[0]);
        });
        return copy[0];
    }

    private void checkVersion(final DirectBuffer buffer, final int offset, final int length, final long entryIndex) {
        if (length < RaftEntryHeader.LENGTH || RaftEntryHeader.version(buffer, offset) != RaftEntryHeader.VERSION) {
            throw new WalException(
                    WalException.ErrorCode.FORMAT,
                    "entry " + entryIndex + " of group " + groupId + " (the Raft log " + uri + ") is not a Raft entry"
                            + " of this adapter's layout version " + RaftEntryHeader.VERSION + " (" + length
                            + " bytes, version " + (length > 0 ? RaftEntryHeader.version(buffer, offset) : -1) + ")");
        }
    }

    /** Rebuilds the index from the group: the mark, then each entry's header. Holder of the write lock. */
    private void rebuildIndex() {
        synchronized (indexLock) {
            index.clear();
            markUnrecorded = false;
            final byte[] mark = log.get(groupId, FIRST_INDEX_KEY);
            if (mark != null) {
                index.setFirst(RaftGroupRegistry.decode(mark));
            }
            final long last = log.lastIndex(groupId);
            for (long i = log.firstIndex(groupId); i <= last; i++) {
                log.read(groupId, i, (group, entryIndex, buffer, offset, length) -> {
                    checkVersion(buffer, offset, length, entryIndex);
                    index.put(
                            entryIndex,
                            HELD,
                            RaftEntryHeader.term(buffer, offset),
                            RaftEntryHeader.isConfiguration(buffer, offset));
                });
            }
        }
    }

    /** Replays every configuration entry at or after the first index. Holder of the write lock. */
    private void loadConfigurations(final ConfigurationManager manager) {
        if (manager == null) {
            return;
        }
        final long[] indexes;
        synchronized (indexLock) {
            indexes = index.configurationIndexes();
        }
        for (final long configurationIndex : indexes) {
            final byte[] encoded = readEncoded(configurationIndex);
            if (encoded == null) {
                continue;
            }
            final LogEntry entry = decoder.decode(encoded);
            final ConfigurationEntry configuration = new ConfigurationEntry();
            configuration.setId(
                    new LogId(entry.getId().getIndex(), entry.getId().getTerm()));
            configuration.setConf(new Configuration(entry.getPeers(), entry.getLearners()));
            if (entry.getOldPeers() != null) {
                configuration.setOldConf(new Configuration(entry.getOldPeers(), entry.getOldLearners()));
            }
            manager.add(configuration);
        }
    }

    /**
     * One {@code appendEntries} call: which entries the group will hold, whether the group log would
     * refuse them in order (an entry below the group's first index), and the batches that store them.
     * Holder of appendLock.
     */
    private final class CallPlan {
        private final List<LogEntry> entries;
        private final byte[][] encoded;
        // Whether the view holds each entry (not below the mark, not negative).
        private final boolean[] kept;
        private final long batchLimitBytes;
        // Whether the batch records the first-index mark a read pinned, and the mark.
        private final boolean recordMark;
        private final long markToRecord;

        CallPlan(final List<LogEntry> entries) {
            this.entries = entries;
            this.encoded = new byte[entries.size()][];
            this.kept = new boolean[entries.size()];
            this.batchLimitBytes = FrameDescriptor.alignedLength(
                    FrameDescriptor.frameLength(log.config().walConfig().maxRecordBytes()));
            synchronized (indexLock) {
                this.recordMark = markUnrecorded;
                this.markToRecord = index.first();
                final long mark = index.hasMark() ? index.first() : Long.MIN_VALUE;
                for (int i = 0; i < entries.size(); i++) {
                    final long entryIndex = entries.get(i).getId().getIndex();
                    kept[i] = entryIndex >= 0 && entryIndex >= mark;
                }
            }
            for (int i = 0; i < entries.size(); i++) {
                encoded[i] = kept[i] ? encoder.encode(entries.get(i)) : null;
            }
        }

        int append() {
            if (!gapsAllowed()) {
                return 0;
            }
            final boolean rewrite = refusedInOrder();
            final long callBytes = framed(recordMark ? recordBytesOfMark() : 0) + entriesFramedBytes(rewrite);
            if (callBytes <= batchLimitBytes) {
                fillOneBatch(rewrite);
                if (!batch.isEmpty()) {
                    // Empty: every entry lies below the mark, and none is held, as in RaftLogIndex#put.
                    log.append(batch, Durability.SYNCED);
                }
            } else if (!appendInSeveralBatches(rewrite)) {
                return 0;
            }
            indexEntries(entries.size());
            return entries.size();
        }

        /** Stores the call's first {@code count} entries that went in, in the index. */
        private void indexEntries(final int count) {
            synchronized (indexLock) {
                if (recordMark) {
                    markUnrecorded = false;
                }
                for (int i = 0; i < count; i++) {
                    if (kept[i]) {
                        final LogEntry entry = entries.get(i);
                        index.put(
                                entry.getId().getIndex(),
                                HELD,
                                entry.getId().getTerm(),
                                entry.getType() == EntryType.ENTRY_TYPE_CONFIGURATION);
                    }
                }
            }
        }

        /** Whether no entry lies too far past the last index; logs the first that does. */
        private boolean gapsAllowed() {
            synchronized (indexLock) {
                for (final LogEntry entry : entries) {
                    if (!index.gapAllowed(entry.getId().getIndex())) {
                        LOGGER.log(
                                System.Logger.Level.ERROR,
                                "entry " + entry.getId() + " lies more than " + RaftLogIndex.MAX_GAP
                                        + " indexes past the last index " + index.last() + " of the Raft log " + uri
                                        + "; nothing appended");
                        return false;
                    }
                }
            }
            return true;
        }

        /** Whether the group log would refuse an entry of the call, added in order, below its first index. */
        private boolean refusedInOrder() {
            long first = log.firstIndex(groupId);
            long last = log.lastIndex(groupId);
            for (int i = 0; i < entries.size(); i++) {
                if (!kept[i]) {
                    continue;
                }
                final long entryIndex = entries.get(i).getId().getIndex();
                if (last >= first && entryIndex < first) {
                    return true;
                }
                final long newFirst = last < first ? entryIndex : Math.min(first, entryIndex);
                last = last < first ? entryIndex : Math.max(last, entryIndex);
                first = newFirst;
            }
            return false;
        }

        private int recordBytesOfMark() {
            return GroupRecordDescriptor.HEADER_LENGTH + FIRST_INDEX_KEY.length() + Long.BYTES;
        }

        /** The framed bytes of the call's entry records (with the entries held now, for a rewrite). */
        private long entriesFramedBytes(final boolean rewrite) {
            long bytes = 0;
            for (final byte[] entry : encoded) {
                if (entry != null) {
                    bytes += framed(GroupRecordDescriptor.HEADER_LENGTH + RaftEntryHeader.LENGTH + entry.length);
                }
            }
            if (rewrite) {
                bytes += framed(GroupRecordDescriptor.BOUNDS_LENGTH);
                final long last = log.lastIndex(groupId);
                for (long i = log.firstIndex(groupId); i <= last; i++) {
                    final byte[] held = log.entry(groupId, i);
                    if (held != null) {
                        bytes += framed(GroupRecordDescriptor.HEADER_LENGTH + held.length);
                    }
                }
            }
            return bytes;
        }

        private long framed(final int recordBytes) {
            return recordBytes == 0 ? 0 : FrameDescriptor.alignedLength(FrameDescriptor.frameLength(recordBytes));
        }

        /** Fills the batch with the whole call: the mark, then the entries (a rewrite: see the class comment). */
        private void fillOneBatch(final boolean rewrite) {
            batch.clear();
            if (recordMark) {
                batch.put(groupId, FIRST_INDEX_KEY, RaftGroupRegistry.encode(markToRecord));
            }
            if (!rewrite) {
                for (int i = 0; i < entries.size(); i++) {
                    if (kept[i]) {
                        batch.add(
                                groupId,
                                entries.get(i).getId().getIndex(),
                                entryBuffer,
                                0,
                                writeEntry(entries.get(i), encoded[i]));
                    }
                }
                return;
            }
            // Every entry the group will hold, ascending, from the lowest: the group log takes them in order.
            final TreeMap<Long, byte[]> after = new TreeMap<>();
            final long last = log.lastIndex(groupId);
            for (long i = log.firstIndex(groupId); i <= last; i++) {
                final byte[] held = log.entry(groupId, i);
                if (held != null) {
                    after.put(i, held);
                }
            }
            for (int i = 0; i < entries.size(); i++) {
                if (kept[i]) {
                    final int length = writeEntry(entries.get(i), encoded[i]);
                    after.put(entries.get(i).getId().getIndex(), Arrays.copyOf(entryBuffer.byteArray(), length));
                }
            }
            batch.reset(groupId, after.firstKey());
            after.forEach((entryIndex, bytes) -> batch.add(groupId, entryIndex, bytes));
        }

        /**
         * Appends a call too large for one batch in several, in order, if it only adds entries past the
         * last index and each entry fits a batch; logs and returns false otherwise.
         */
        private boolean appendInSeveralBatches(final boolean rewrite) {
            long previous;
            synchronized (indexLock) {
                previous = index.last();
            }
            final boolean empty = previous == 0 && log.lastIndex(groupId) < log.firstIndex(groupId);
            for (int i = 0; i < entries.size(); i++) {
                final long entryIndex = entries.get(i).getId().getIndex();
                final boolean ascending = (empty && i == 0) || entryIndex > previous;
                if (rewrite
                        || !kept[i]
                        || !ascending
                        || recordFramed(i) + framed(recordBytesOfMark()) > batchLimitBytes) {
                    LOGGER.log(
                            System.Logger.Level.ERROR,
                            "an append of " + entries.size() + " entries from "
                                    + entries.get(0).getId() + " to the Raft log " + uri
                                    + " takes more than one batch of "
                                    + batchLimitBytes
                                    + " bytes (WalConfig.maxRecordBytes) and replaces entries, or holds an"
                                    + " entry larger than a batch: nothing appended");
                    return false;
                }
                previous = entryIndex;
            }
            batch.clear();
            if (recordMark) {
                batch.put(groupId, FIRST_INDEX_KEY, RaftGroupRegistry.encode(markToRecord));
            }
            long batchBytes = framed(recordMark ? recordBytesOfMark() : 0);
            // The entries before this one went in (their batches were appended).
            int appended = 0;
            try {
                for (int i = 0; i < entries.size(); i++) {
                    if (!batch.isEmpty() && batchBytes + recordFramed(i) > batchLimitBytes) {
                        log.append(batch, Durability.BUFFERED);
                        appended = i;
                        batch.clear();
                        batchBytes = 0;
                    }
                    batch.add(
                            groupId,
                            entries.get(i).getId().getIndex(),
                            entryBuffer,
                            0,
                            writeEntry(entries.get(i), encoded[i]));
                    batchBytes += recordFramed(i);
                }
                // The last batch synced: every earlier one is durable with it.
                log.append(batch, Durability.SYNCED);
                return true;
            } catch (final WalException ex) {
                // The group holds the batches that went in: so does the index.
                indexEntries(appended);
                throw ex;
            }
        }

        private long recordFramed(final int i) {
            return framed(GroupRecordDescriptor.HEADER_LENGTH + RaftEntryHeader.LENGTH + encoded[i].length);
        }
    }
}
