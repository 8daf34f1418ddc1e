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
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.agrona.BitUtil;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * SOFAJRaft's {@link LogStorage} on a Walden log. It keeps the contract jraft's own RocksDB store
 * keeps, a map from entry index to entry ({@link RaftLogIndex} says exactly how): entries may start at
 * any index, leave gaps and replace entries already held, and {@link #reset} leaves the entry at the
 * next index (or a no-op there) for jraft to overwrite.
 *
 * <p>{@link #appendEntries} appends the entries of a call as one atomic Walden batch ({@link
 * io.walden.WalBatch}) and one sync: after any crash the log holds all of them or none, and the call
 * returns the number of entries stored, all of them or 0. A call whose entries together take more than
 * one batch may hold ({@link WalConfig#maxRecordBytes()}, about 4 MiB with {@link #defaultConfig}) is
 * appended as several batches, in order, each all or nothing: after a crash in the middle a prefix of
 * the call's batches survives (as after a crash of a Raft follower between two appends, which Raft
 * tolerates). An entry larger than one batch may hold is refused (0, with an error naming the limit).
 *
 * <p>Record layout (little-endian), written and read only here:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  Kind (int8)  | Type (int8)   |     Zero (6 bytes)            |  0
 *  +---------------+---------------+                               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Index (int64)                                 |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Term (int64)                                  |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Entry, as the options' codec encodes it ...   |  24
 * </pre>
 *
 * Kinds, each an operation on the index that opening the log replays in log order:
 *
 * <ul>
 *   <li>{@value #KIND_ENTRY}: an entry (type: its jraft {@code EntryType} number) stored at its index;
 *   <li>{@value #KIND_FIRST_INDEX}: the first index (index field), written by {@link #truncatePrefix}
 *       before any segment is deleted, and again after a suffix truncation;
 *   <li>{@value #KIND_LAST_INDEX}: every entry after the index is dropped, written by {@link
 *       #truncateSuffix} when entries after the index lie in the log before the last entry it keeps
 *       (an entry that replaced another).
 * </ul>
 *
 * <p>{@link #getEntry} reads one record through a shared reader. {@link #truncatePrefix} deletes
 * whole segments below every record still needed ({@link Wal#truncateBefore}); {@link
 * #truncateSuffix} and {@link #reset} discard the log's suffix with {@link Wal#truncateAfter(long)} on
 * the open log (crash-safe: the old log or the new one, never a mix).
 *
 * <p><b>Threading:</b> thread-safe. Appends, reads and prefix truncations run concurrently (the
 * index takes a short monitor, the shared reader its own); suffix truncation, reset, init and
 * shutdown exclude them.
 */
public final class WaldenLogStorage implements LogStorage {
    /** Record kind: a Raft entry. */
    static final int KIND_ENTRY = 1;
    /** Record kind: the first log index. */
    static final int KIND_FIRST_INDEX = 2;
    /** Record kind: the last log index kept by a suffix truncation. */
    static final int KIND_LAST_INDEX = 3;

    static final int KIND_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int INDEX_OFFSET = 8;
    static final int TERM_OFFSET = 16;
    static final int ENTRY_OFFSET = 24;

    /**
     * The largest record {@link #defaultConfig} allows: what one claim of Walden's default 8 MiB log
     * buffer holds (half of it, less the segment header and a frame header). jraft sets no limit per
     * entry and appends many entries in one call, so the adapter takes the largest batch the default
     * buffer allows, with no more memory.
     */
    public static final int DEFAULT_MAX_RECORD_BYTES =
            (WalConfig.BUFFER_CAPACITY_BYTES_DEFAULT - SegmentHeaderDescriptor.HEADER_LENGTH) / 2
                    - FrameDescriptor.HEADER_LENGTH;

    private static final System.Logger LOGGER = System.getLogger(WaldenLogStorage.class.getName());

    private final Path directory;
    private final Function<Path, WalConfig> configs;
    // Write lock: init, shutdown, truncateSuffix, reset (they replace the log). Read lock: the rest.
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    // Guards the index.
    private final Object indexLock = new Object();
    // Guards the shared reader and its copy buffer.
    private final Object readLock = new Object();
    // Serialises appends and prefix truncations, whose records go to the log in order.
    private final Object appendLock = new Object();

    private Wal wal;
    private WalReader reader;
    private LogEntryEncoder encoder;
    private LogEntryDecoder decoder;
    private final RaftLogIndex index = new RaftLogIndex();
    // Holder of appendLock: the records of one append call, and the encoded entries.
    private final WalBatch batch = new WalBatch(64 * 1024);
    private final ExpandableArrayBuffer recordBuffer = new ExpandableArrayBuffer(256);
    private byte[] readCopy = new byte[256];
    private int readLength;

    /**
     * Creates a storage in a directory, with {@link #defaultConfig}.
     *
     * @param directory the log directory (one per Raft node and group).
     */
    public WaldenLogStorage(final Path directory) {
        this(directory, WaldenLogStorage::defaultConfig);
    }

    /**
     * Creates a storage in a directory with a configuration of the caller's.
     *
     * @param directory the log directory (one per Raft node and group).
     * @param configs makes the log's configuration for the directory.
     */
    public WaldenLogStorage(final Path directory, final Function<Path, WalConfig> configs) {
        this.directory = directory;
        this.configs = configs;
    }

    /**
     * Walden's default configuration with records (and so batches of entries) up to {@link
     * #DEFAULT_MAX_RECORD_BYTES}.
     *
     * @param directory the log directory.
     * @return the configuration.
     */
    public static WalConfig defaultConfig(final Path directory) {
        return WalConfig.builder(directory)
                .maxRecordBytes(DEFAULT_MAX_RECORD_BYTES)
                .build();
    }

    @Override
    public boolean init(final LogStorageOptions options) {
        lifecycle.writeLock().lock();
        try {
            encoder = options.getLogEntryCodecFactory().encoder();
            decoder = options.getLogEntryCodecFactory().decoder();
            open();
            loadConfigurations(options.getConfigurationManager());
            return true;
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "cannot open the Raft log in " + directory, ex);
            closeLog();
            return false;
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public void shutdown() {
        lifecycle.writeLock().lock();
        try {
            closeLog();
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
            final long lsn;
            synchronized (indexLock) {
                if (wal == null) {
                    return null;
                }
                lsn = index.lsn(entryIndex);
            }
            if (lsn == RaftLogIndex.ABSENT) {
                return null;
            }
            synchronized (readLock) {
                final byte[] record = readRecord(lsn);
                final UnsafeBuffer view = new UnsafeBuffer(record);
                if (view.getByte(KIND_OFFSET) != KIND_ENTRY
                        || view.getLong(INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN) != entryIndex) {
                    throw new IllegalStateException("the record at LSN " + lsn + " of " + directory
                            + " is not the entry at index " + entryIndex);
                }
                final byte[] encoded = new byte[readLength - ENTRY_OFFSET];
                System.arraycopy(record, ENTRY_OFFSET, encoded, 0, encoded.length);
                return decoder.decode(encoded);
            }
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
                if (wal == null) {
                    LOGGER.log(System.Logger.Level.ERROR, "append to the Raft log in " + directory + " after shutdown");
                    return 0;
                }
                return appendInBatches(entries);
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Appends entries in as few atomic batches as the record limit allows: all of them or, on an
     * error, none (what earlier batches of the call appended is discarded again). Holder of appendLock.
     */
    private int appendInBatches(final List<LogEntry> entries) {
        final long limit = FrameDescriptor.alignedLength(
                FrameDescriptor.frameLength(wal.config().maxRecordBytes()));
        final byte[][] encoded = new byte[entries.size()][];
        synchronized (indexLock) {
            for (int i = 0; i < entries.size(); i++) {
                final LogEntry entry = entries.get(i);
                if (!index.gapAllowed(entry.getId().getIndex())) {
                    LOGGER.log(
                            System.Logger.Level.ERROR,
                            "entry " + entry.getId() + " lies more than " + RaftLogIndex.MAX_GAP
                                    + " indexes past the last index " + index.last() + " of the Raft log in "
                                    + directory + "; nothing appended");
                    return 0;
                }
            }
        }
        for (int i = 0; i < entries.size(); i++) {
            encoded[i] = encoder.encode(entries.get(i));
            if (framedLength(encoded[i]) > limit) {
                LOGGER.log(
                        System.Logger.Level.ERROR,
                        "entry " + entries.get(i).getId() + " of " + encoded[i].length + " bytes is larger than the"
                                + " Raft log in " + directory + " takes (maxRecordBytes="
                                + wal.config().maxRecordBytes() + ", less a " + ENTRY_OFFSET + "-byte header);"
                                + " nothing appended. Raise WalConfig maxRecordBytes and bufferCapacityBytes");
                return 0;
            }
        }
        final long lastLsnBefore = lastRecordLsn();
        final long unrecordedMark;
        synchronized (indexLock) {
            unrecordedMark = markUnrecorded ? index.first() : -1;
        }
        boolean markPending = unrecordedMark >= 0;
        int from = 0;
        try {
            while (from < entries.size()) {
                batch.clear();
                // A first index pinned by a read goes into the log with the first batch, so that it
                // holds across a restart as it does in jraft's RocksDB store.
                final int skip = markPending ? 1 : 0;
                if (skip == 1) {
                    batch.add(recordBuffer, 0, writeRecord(KIND_FIRST_INDEX, 0, unrecordedMark, 0, null));
                }
                int to = from;
                while (to < entries.size()
                        && ((to == from && skip == 0) || batch.framedBytes() + framedLength(encoded[to]) <= limit)) {
                    final LogEntry entry = entries.get(to);
                    final int length = writeRecord(
                            KIND_ENTRY,
                            entry.getType().getNumber(),
                            entry.getId().getIndex(),
                            entry.getId().getTerm(),
                            encoded[to]);
                    batch.add(recordBuffer, 0, length);
                    to++;
                }
                wal.append(batch, Durability.SYNCED);
                synchronized (indexLock) {
                    if (skip == 1) {
                        markUnrecorded = false;
                        markPending = false;
                    }
                    for (int i = from; i < to; i++) {
                        final LogEntry entry = entries.get(i);
                        index.put(
                                entry.getId().getIndex(),
                                batch.lsn(skip + i - from),
                                entry.getId().getTerm(),
                                entry.getType() == EntryType.ENTRY_TYPE_CONFIGURATION);
                    }
                    lastLsn = batch.lsn(batch.size() - 1);
                }
                from = to;
            }
            return entries.size();
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "appending to the Raft log in " + directory + " failed", ex);
            if (from > 0) {
                undoAppend(lastLsnBefore);
            }
            return 0;
        }
    }

    private static long framedLength(final byte[] encodedEntry) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(ENTRY_OFFSET + encodedEntry.length));
    }

    /**
     * Discards the batches an append call appended before one of its batches failed, so that the
     * call stores none of its entries, and rebuilds the index from what the log then holds. Holder of
     * appendLock.
     */
    private void undoAppend(final long lastLsnBefore) {
        try {
            wal.truncateAfter(lastLsnBefore);
            rebuildIndex();
        } catch (final WalException ex) {
            LOGGER.log(
                    System.Logger.Level.ERROR,
                    "the Raft log in " + directory + " holds part of a failed append (the records after LSN "
                            + lastLsnBefore + ") and could not discard them; reopen it",
                    ex);
        }
    }

    @Override
    public boolean truncatePrefix(final long firstIndexKept) {
        lifecycle.readLock().lock();
        try {
            synchronized (appendLock) {
                if (wal == null) {
                    LOGGER.log(
                            System.Logger.Level.ERROR,
                            "truncatePrefix of the Raft log in " + directory + " after shutdown");
                    return false;
                }
                // Durable before anything is deleted: a restart then starts at the new first index.
                final long recordLsn = wal.append(
                        recordBuffer, 0, writeRecord(KIND_FIRST_INDEX, 0, firstIndexKept, 0, null), Durability.SYNCED);
                final long keepFrom;
                synchronized (indexLock) {
                    index.setFirst(firstIndexKept);
                    markUnrecorded = false;
                    lastLsn = recordLsn;
                    keepFrom = Math.min(recordLsn, index.minLsn());
                }
                wal.truncateBefore(keepFrom);
                return true;
            }
        } catch (final WalException ex) {
            LOGGER.log(
                    System.Logger.Level.ERROR, "truncating the prefix of the Raft log in " + directory + " failed", ex);
            return false;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public boolean truncateSuffix(final long lastIndexKept) {
        lifecycle.writeLock().lock();
        try {
            if (wal == null) {
                LOGGER.log(
                        System.Logger.Level.ERROR,
                        "truncateSuffix of the Raft log in " + directory + " after shutdown");
                return false;
            }
            final long keptLsn;
            final boolean laterEntriesBefore;
            synchronized (indexLock) {
                if (lastIndexKept >= index.last()) {
                    return true;
                }
                keptLsn = index.maxLsnAtOrBelow(lastIndexKept);
                // Entries after the index that lie before the last record kept survive the cut.
                laterEntriesBefore = index.minLsnAfter(lastIndexKept) < keptLsn;
            }
            final long mark;
            synchronized (indexLock) {
                mark = index.hasMark() ? index.first() : -1;
            }
            wal.truncateAfter(keptLsn);
            synchronized (indexLock) {
                index.truncateSuffix(lastIndexKept);
                markUnrecorded = false;
                lastLsn = keptLsn;
            }
            synchronized (appendLock) {
                // The cut may have discarded the first-index record: it is recorded again. Entries after
                // the index that the cut kept are dropped by a record of the last index.
                batch.clear();
                if (mark >= 0) {
                    batch.add(recordBuffer, 0, writeRecord(KIND_FIRST_INDEX, 0, mark, 0, null));
                }
                if (laterEntriesBefore) {
                    batch.add(recordBuffer, 0, writeRecord(KIND_LAST_INDEX, 0, lastIndexKept, 0, null));
                }
                if (!batch.isEmpty()) {
                    wal.append(batch, Durability.SYNCED);
                    synchronized (indexLock) {
                        lastLsn = batch.lsn(batch.size() - 1);
                    }
                }
            }
            return true;
        } catch (final WalException ex) {
            LOGGER.log(
                    System.Logger.Level.ERROR, "truncating the suffix of the Raft log in " + directory + " failed", ex);
            return false;
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public boolean reset(final long nextLogIndex) {
        if (nextLogIndex <= 0) {
            throw new IllegalArgumentException("the next log index must be positive, not " + nextLogIndex);
        }
        lifecycle.writeLock().lock();
        try {
            if (wal == null) {
                LOGGER.log(System.Logger.Level.ERROR, "reset of the Raft log in " + directory + " after shutdown");
                return false;
            }
            LogEntry entry = getEntry(nextLogIndex);
            // As jraft's RocksDB store: everything goes, then the log holds the entry at the next index
            // (a no-op if there was none), which jraft overwrites as it appends from there.
            wal.truncateAfter(-1);
            synchronized (indexLock) {
                index.clear();
                markUnrecorded = false;
                lastLsn = -1;
            }
            if (entry == null) {
                entry = new LogEntry(EntryType.ENTRY_TYPE_NO_OP);
                entry.setId(new LogId(nextLogIndex, 0));
            }
            return appendEntry(entry);
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "resetting the Raft log in " + directory + " failed", ex);
            return false;
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "WaldenLogStorage{" + directory + ", first " + getFirstLogIndex() + ", last " + getLastLogIndex() + "}";
    }

    /** The LSN of the newest record in the log, or -1 if it holds none. Holder of appendLock. */
    private long lastRecordLsn() {
        synchronized (indexLock) {
            return lastLsn;
        }
    }

    // Guarded by indexLock: the LSN of the newest record appended or replayed, -1 if none.
    private long lastLsn = -1;
    // Guarded by indexLock: getFirstLogIndex pinned the first index and no record says so yet.
    private boolean markUnrecorded;

    /** Writes a record into the record buffer; returns its length. Holder of appendLock. */
    private int writeRecord(
            final int kind, final int type, final long entryIndex, final long term, final byte[] entry) {
        recordBuffer.putLong(KIND_OFFSET, 0);
        recordBuffer.putByte(KIND_OFFSET, (byte) kind);
        recordBuffer.putByte(TYPE_OFFSET, (byte) type);
        recordBuffer.putLong(INDEX_OFFSET, entryIndex, ByteOrder.LITTLE_ENDIAN);
        recordBuffer.putLong(TERM_OFFSET, term, ByteOrder.LITTLE_ENDIAN);
        if (entry == null) {
            return ENTRY_OFFSET;
        }
        recordBuffer.putBytes(ENTRY_OFFSET, entry);
        return ENTRY_OFFSET + entry.length;
    }

    /** Reads one record into the copy buffer. Holder of readLock. */
    private byte[] readRecord(final long lsn) {
        reader.seek(lsn);
        readLength = -1;
        reader.poll(
                (buffer, offset, length, recordLsn) -> {
                    if (readCopy.length < length) {
                        readCopy = new byte[BitUtil.findNextPositivePowerOfTwo(length)];
                    }
                    buffer.getBytes(offset, readCopy, 0, length);
                    readLength = length;
                },
                1);
        if (readLength < ENTRY_OFFSET) {
            throw new IllegalStateException("no entry record at LSN " + lsn + " of the Raft log in " + directory);
        }
        return readCopy;
    }

    /** Opens the log and rebuilds the index from its records. Holder of the write lock. */
    private void open() {
        wal = Wal.open(configs.apply(directory));
        reader = wal.reader(wal.startPosition());
        rebuildIndex();
    }

    /** Replays every record of the log into a cleared index. */
    private void rebuildIndex() {
        try (WalReader replay = wal.reader(wal.startPosition())) {
            synchronized (indexLock) {
                index.clear();
                markUnrecorded = false;
                lastLsn = -1;
                replay.replay((buffer, offset, length, lsn) -> {
                    final int kind = buffer.getByte(offset + KIND_OFFSET);
                    final long entryIndex = buffer.getLong(offset + INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN);
                    if (kind == KIND_FIRST_INDEX) {
                        index.setFirst(entryIndex);
                    } else if (kind == KIND_LAST_INDEX) {
                        index.truncateSuffix(entryIndex);
                    } else if (kind == KIND_ENTRY) {
                        index.put(
                                entryIndex,
                                lsn,
                                buffer.getLong(offset + TERM_OFFSET, ByteOrder.LITTLE_ENDIAN),
                                buffer.getByte(offset + TYPE_OFFSET) == EntryType.ENTRY_TYPE_CONFIGURATION_VALUE);
                    } else {
                        throw new WalException(
                                WalException.ErrorCode.CORRUPTION,
                                "the Raft log in " + directory + " holds a record of unknown kind " + kind + " at LSN "
                                        + lsn + "; it was written by a later version of the adapter");
                    }
                    lastLsn = lsn;
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
            final LogEntry entry = getEntry(configurationIndex);
            if (entry == null) {
                continue;
            }
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

    private void closeLog() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
        if (wal != null) {
            wal.close();
            wal = null;
        }
    }
}
