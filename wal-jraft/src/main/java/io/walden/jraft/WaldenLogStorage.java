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
import org.agrona.collections.LongArrayList;

/**
 * SOFAJRaft's {@link LogStorage} on a Walden log. It keeps the contract jraft's own RocksDB store
 * keeps, a map from entry index to entry ({@link RaftLogIndex} says exactly how): entries may start at
 * any index, leave gaps and replace entries already held, and {@link #reset} leaves the entry at the
 * next index (or a no-op there) for jraft to overwrite.
 *
 * <p>{@link #appendEntries} stores all of a call's entries or none of them, after any crash, and
 * returns all or 0. A call whose records fit in one Walden batch ({@link WalConfig#maxRecordBytes()},
 * about 4 MiB with {@link #defaultConfig}) is one atomic batch with one sync. A larger call is several
 * batches, the last one synced, and its records carry the call's marks (below): opening the log keeps
 * the entries of a call only if the call's last record is in the log. An entry larger than a record
 * is stored as several records, its parts, of one call: entries of any size are stored.
 *
 * <p>Record layout (little-endian), written and read only here:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+---------------+---------------+
 *  |  Kind (int8)  | Type (int8)   | Call (int8)   |   Zero        |  0
 *  +---------------+---------------+---------------+               |
 *  |                          Zero (5 bytes)                       |
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
 *   <li>{@value #KIND_ENTRY}: an entry (type: its jraft {@code EntryType} number) stored at its index,
 *       or the last part of one, whose encoding is then the parts' bytes in order;
 *   <li>{@value #KIND_ENTRY_PART}: a part of an entry larger than one record, before its last part;
 *   <li>{@value #KIND_FIRST_INDEX}: the first index (index field), written by {@link #truncatePrefix}
 *       before any segment is deleted, and again after a suffix truncation;
 *   <li>{@value #KIND_LAST_INDEX}: every entry after the index is dropped, written by {@link
 *       #truncateSuffix} when entries after the index lie in the log before the last entry it keeps
 *       (an entry that replaced another).
 * </ul>
 *
 * Call marks, on the records of a call that takes several Walden batches (a call in one batch is
 * atomic by itself, and its records carry none): {@value #CALL_FIRST} on its first record, {@value
 * #CALL_MORE} on every record of it but the last, {@value #CALL_END} on its last. Replay holds such a
 * call's entries back until its {@value #CALL_END} record, and drops them if the log ends first or a record
 * that begins another call or another operation comes. A suffix truncation never cuts such a call
 * short: it keeps it to its last record and drops the entries it does not keep with a last-index
 * record. Records written before the marks existed carry zero there.
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
    /** Record kind: a part of an entry larger than one record, before its last part. */
    static final int KIND_ENTRY_PART = 4;
    /** Call mark: the first record of an {@code appendEntries} call. */
    static final int CALL_FIRST = 1;
    /** Call mark: more records of the same call follow. */
    static final int CALL_MORE = 2;
    /** Call mark: the last record of a call that carries the marks. */
    static final int CALL_END = 4;

    static final int KIND_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int CALL_OFFSET = 2;
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
    // Holder of readLock: the entry being read, and whether its last part was read.
    private byte[] readCopy = new byte[256];
    private int readLength;
    private boolean readDone;

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
                return decoder.decode(readEntry(lsn, entryIndex));
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
     * Appends the records of a call in as few atomic batches as the record limit allows, the last one
     * synced, and then, only if all went in, stores the entries in the index. An entry larger than a
     * record goes in parts. Holder of appendLock.
     */
    private int appendInBatches(final List<LogEntry> entries) {
        if (!gapsAllowed(entries)) {
            return 0;
        }
        final int partBytes = wal.config().maxRecordBytes() - ENTRY_OFFSET;
        final long batchLimitBytes = FrameDescriptor.alignedLength(
                FrameDescriptor.frameLength(wal.config().maxRecordBytes()));
        final byte[][] encoded = new byte[entries.size()][];
        for (int i = 0; i < entries.size(); i++) {
            encoded[i] = encoder.encode(entries.get(i));
        }
        final long unrecordedMark;
        synchronized (indexLock) {
            unrecordedMark = markUnrecorded ? index.first() : -1;
        }
        final long[] firstLsns = new long[entries.size()];
        final long[] lastLsns = new long[entries.size()];
        // A call in one batch is atomic by itself; a call in several carries the call marks.
        final boolean marked = callFramedBytes(encoded, unrecordedMark >= 0, partBytes) > batchLimitBytes;
        batch.clear();
        if (unrecordedMark >= 0) {
            // A first index pinned by a read goes into the log with this call, so that it holds across a
            // restart as it does in jraft's RocksDB store.
            batch.add(recordBuffer, 0, writeIndexRecord(KIND_FIRST_INDEX, unrecordedMark));
        }
        try {
            appendCall(entries, encoded, marked, partBytes, batchLimitBytes, firstLsns, lastLsns);
        } catch (final WalException ex) {
            // Records of the call that went in end no call: opening the log drops them.
            LOGGER.log(System.Logger.Level.ERROR, "appending to the Raft log in " + directory + " failed", ex);
            return 0;
        }
        indexCall(entries, firstLsns, lastLsns, marked, unrecordedMark >= 0);
        return entries.size();
    }

    /** Whether no entry of a call lies too far past the last index; logs the first that does. */
    private boolean gapsAllowed(final List<LogEntry> entries) {
        synchronized (indexLock) {
            for (final LogEntry entry : entries) {
                if (!index.gapAllowed(entry.getId().getIndex())) {
                    LOGGER.log(
                            System.Logger.Level.ERROR,
                            "entry " + entry.getId() + " lies more than " + RaftLogIndex.MAX_GAP
                                    + " indexes past the last index " + index.last() + " of the Raft log in "
                                    + directory + "; nothing appended");
                    return false;
                }
            }
        }
        return true;
    }

    /** The framed bytes of a call's records in one batch: the first index mark, if any, and every part. */
    private static long callFramedBytes(final byte[][] encoded, final boolean withMark, final int partBytes) {
        long callFramed = withMark ? FrameDescriptor.alignedLength(FrameDescriptor.frameLength(ENTRY_OFFSET)) : 0;
        for (final byte[] entry : encoded) {
            for (int from = 0; from < entry.length || from == 0; from += partBytes) {
                final int partLength = Math.min(partBytes, entry.length - from);
                callFramed += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(ENTRY_OFFSET + partLength));
                if (entry.length == 0) {
                    break;
                }
            }
        }
        return callFramed;
    }

    /**
     * Appends a call's entries, in parts of at most {@code partBytes} where larger than a record, to the
     * batch begun, in batches of at most {@code batchLimitBytes} framed, the last one synced; notes each
     * entry's first and last LSN. Holder of appendLock.
     */
    private void appendCall(
            final List<LogEntry> entries,
            final byte[][] encoded,
            final boolean marked,
            final int partBytes,
            final long batchLimitBytes,
            final long[] firstLsns,
            final long[] lastLsns) {
        // Which entry and part each record of the current batch holds, to learn their LSNs.
        final LongArrayList batchEntries = new LongArrayList();
        boolean firstRecord = true;
        for (int i = 0; i < entries.size(); i++) {
            final int length = encoded[i].length;
            final int parts = Math.max(1, (length + partBytes - 1) / partBytes);
            for (int part = 0; part < parts; part++) {
                final int from = part * partBytes;
                final int partLength = Math.min(partBytes, length - from);
                final boolean lastRecord = i == entries.size() - 1 && part == parts - 1;
                final long framed =
                        FrameDescriptor.alignedLength(FrameDescriptor.frameLength(ENTRY_OFFSET + partLength));
                if (!batch.isEmpty() && batch.framedBytes() + framed > batchLimitBytes) {
                    appendBatch(batchEntries, Durability.BUFFERED, firstLsns, lastLsns);
                }
                final int call = marked ? (firstRecord ? CALL_FIRST : 0) | (lastRecord ? CALL_END : CALL_MORE) : 0;
                firstRecord = false;
                batch.add(
                        recordBuffer,
                        0,
                        writeEntryRecord(entries.get(i), part == parts - 1, call, encoded[i], from, partLength));
                batchEntries.addLong((long) i << 1 | (part == 0 ? 1 : 0));
            }
        }
        appendBatch(batchEntries, Durability.SYNCED, firstLsns, lastLsns);
    }

    /** Stores the entries of a call that went in, in the index. Holder of appendLock. */
    private void indexCall(
            final List<LogEntry> entries,
            final long[] firstLsns,
            final long[] lastLsns,
            final boolean marked,
            final boolean markRecorded) {
        synchronized (indexLock) {
            if (markRecorded) {
                markUnrecorded = false;
            }
            final long callEnd = lastLsns[entries.size() - 1];
            for (int i = 0; i < entries.size(); i++) {
                final LogEntry entry = entries.get(i);
                // A cut that keeps an entry of a marked call keeps the call to its last record.
                index.put(
                        entry.getId().getIndex(),
                        firstLsns[i],
                        marked ? callEnd : lastLsns[i],
                        entry.getId().getTerm(),
                        entry.getType() == EntryType.ENTRY_TYPE_CONFIGURATION);
            }
            lastLsn = lastLsns[entries.size() - 1];
        }
    }

    /**
     * Appends the batch of records built so far and notes the LSNs of the entries' first and last
     * records; empties the batch. Holder of appendLock.
     *
     * @param batchEntries for each entry record in the batch: its entry's position in the call, shifted
     *     left by one, with bit 0 set for an entry's first record; emptied.
     */
    private void appendBatch(
            final LongArrayList batchEntries,
            final Durability durability,
            final long[] firstLsns,
            final long[] lastLsns) {
        wal.append(batch, durability);
        final int offset = batch.size() - batchEntries.size();
        for (int r = 0; r < batchEntries.size(); r++) {
            final long tag = batchEntries.getLong(r);
            final int entry = (int) (tag >>> 1);
            final long lsn = batch.lsn(offset + r);
            if ((tag & 1) != 0) {
                firstLsns[entry] = lsn;
            }
            lastLsns[entry] = lsn;
        }
        batchEntries.clear();
        batch.clear();
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
                        recordBuffer, 0, writeIndexRecord(KIND_FIRST_INDEX, firstIndexKept), Durability.SYNCED);
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
                laterEntriesBefore = index.minLsnAfter(lastIndexKept) <= keptLsn;
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
                    batch.add(recordBuffer, 0, writeIndexRecord(KIND_FIRST_INDEX, mark));
                }
                if (laterEntriesBefore) {
                    batch.add(recordBuffer, 0, writeIndexRecord(KIND_LAST_INDEX, lastIndexKept));
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

    // Guarded by indexLock: the LSN of the newest record appended or replayed, -1 if none.
    private long lastLsn = -1;
    // Guarded by indexLock: getFirstLogIndex pinned the first index and no record says so yet.
    private boolean markUnrecorded;

    /**
     * Writes a record of an index mark (the first or the last index kept) into the record buffer;
     * returns its length. Holder of appendLock.
     */
    private int writeIndexRecord(final int kind, final long entryIndex) {
        return writeHeader(kind, 0, 0, entryIndex, 0);
    }

    /**
     * Writes a record of an entry, or of a part of it ({@code partLength} bytes of the encoded entry
     * from {@code from}), into the record buffer; returns its length. Holder of appendLock.
     */
    private int writeEntryRecord(
            final LogEntry entry,
            final boolean lastPart,
            final int call,
            final byte[] encoded,
            final int from,
            final int partLength) {
        final int headerLength = writeHeader(
                lastPart ? KIND_ENTRY : KIND_ENTRY_PART,
                entry.getType().getNumber(),
                call,
                entry.getId().getIndex(),
                entry.getId().getTerm());
        recordBuffer.putBytes(headerLength, encoded, from, partLength);
        return headerLength + partLength;
    }

    /** Writes a record's header into the record buffer; returns its length. Holder of appendLock. */
    private int writeHeader(final int kind, final int type, final int call, final long entryIndex, final long term) {
        recordBuffer.putLong(KIND_OFFSET, 0);
        recordBuffer.putByte(KIND_OFFSET, (byte) kind);
        recordBuffer.putByte(TYPE_OFFSET, (byte) type);
        recordBuffer.putByte(CALL_OFFSET, (byte) call);
        recordBuffer.putLong(INDEX_OFFSET, entryIndex, ByteOrder.LITTLE_ENDIAN);
        recordBuffer.putLong(TERM_OFFSET, term, ByteOrder.LITTLE_ENDIAN);
        return ENTRY_OFFSET;
    }

    /**
     * Reads the encoded entry whose first record is at an LSN: the entry of that record, or, for an
     * entry in parts, the parts' bytes in order up to its last part. Holder of readLock.
     */
    private byte[] readEntry(final long lsn, final long entryIndex) {
        reader.seek(lsn);
        readLength = 0;
        readDone = false;
        while (!readDone) {
            final int before = readLength;
            final int count = reader.poll(
                    (buffer, offset, length, recordLsn) -> {
                        final int kind = buffer.getByte(offset + KIND_OFFSET);
                        if ((kind != KIND_ENTRY && kind != KIND_ENTRY_PART)
                                || length < ENTRY_OFFSET
                                || buffer.getLong(offset + INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN) != entryIndex) {
                            throw new IllegalStateException("the record at LSN " + recordLsn + " of the Raft log in "
                                    + directory + " is not (a part of) the entry at index " + entryIndex
                                    + ", whose first record is at LSN " + lsn);
                        }
                        final int partLength = length - ENTRY_OFFSET;
                        if (readCopy.length < readLength + partLength) {
                            readCopy = java.util.Arrays.copyOf(
                                    readCopy, BitUtil.findNextPositivePowerOfTwo(readLength + partLength));
                        }
                        buffer.getBytes(offset + ENTRY_OFFSET, readCopy, readLength, partLength);
                        readLength += partLength;
                        readDone = kind == KIND_ENTRY;
                    },
                    1);
            if (count == 0 && readLength == before) {
                throw new IllegalStateException("the entry at index " + entryIndex + " (from LSN " + lsn
                        + ") of the Raft log in " + directory + " ends before its last part");
            }
        }
        return java.util.Arrays.copyOf(readCopy, readLength);
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
                final CallReplay call = new CallReplay();
                replay.replay((buffer, offset, length, lsn) -> {
                    final int kind = buffer.getByte(offset + KIND_OFFSET);
                    final long entryIndex = buffer.getLong(offset + INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN);
                    if (kind == KIND_FIRST_INDEX) {
                        call.drop();
                        index.setFirst(entryIndex);
                    } else if (kind == KIND_LAST_INDEX) {
                        call.drop();
                        index.truncateSuffix(entryIndex);
                    } else if (kind == KIND_ENTRY || kind == KIND_ENTRY_PART) {
                        final int marks = buffer.getByte(offset + CALL_OFFSET);
                        if ((marks & CALL_FIRST) != 0 || (marks == 0 && call.marked())) {
                            // Another call begins: a marked call still open never ended (a crash, or
                            // an append that failed part way), and stores nothing.
                            call.drop();
                        }
                        call.record(
                                kind == KIND_ENTRY,
                                entryIndex,
                                lsn,
                                buffer.getLong(offset + TERM_OFFSET, ByteOrder.LITTLE_ENDIAN),
                                buffer.getByte(offset + TYPE_OFFSET) == EntryType.ENTRY_TYPE_CONFIGURATION_VALUE,
                                (marks & CALL_MORE) != 0);
                        if ((marks & CALL_MORE) == 0) {
                            call.commit(index, lsn);
                        }
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

    /**
     * The entries of the {@code appendEntries} call being replayed, held back until the call's last
     * record: a call whose last record is missing (a crash, or an append that failed part way) stores
     * nothing.
     */
    private static final class CallReplay {
        private final LongArrayList indexes = new LongArrayList();
        private final LongArrayList firstLsns = new LongArrayList();
        private final LongArrayList lastLsns = new LongArrayList();
        private final LongArrayList terms = new LongArrayList();
        private final LongArrayList configurations = new LongArrayList();
        // The LSN of the first part of the entry whose parts are being read, or -1.
        private long partsFrom = -1;
        // Whether the call being read carries the call marks (it took several batches).
        private boolean marked;

        void record(
                final boolean lastPart,
                final long entryIndex,
                final long lsn,
                final long term,
                final boolean configuration,
                final boolean more) {
            marked |= more;
            if (partsFrom < 0) {
                partsFrom = lsn;
            }
            if (lastPart) {
                indexes.addLong(entryIndex);
                firstLsns.addLong(partsFrom);
                lastLsns.addLong(lsn);
                terms.addLong(term);
                configurations.addLong(configuration ? 1 : 0);
                partsFrom = -1;
            }
        }

        /**
         * Stores the entries read since the call began, at a record that ends it (or, for a call in
         * one batch, at each record: the batch is atomic). An entry whose parts go on is kept for the
         * next record.
         */
        boolean marked() {
            return marked;
        }

        void commit(final RaftLogIndex index, final long callEndLsn) {
            for (int i = 0; i < indexes.size(); i++) {
                index.put(
                        indexes.getLong(i),
                        firstLsns.getLong(i),
                        marked ? callEndLsn : lastLsns.getLong(i),
                        terms.getLong(i),
                        configurations.getLong(i) != 0);
            }
            indexes.clear();
            firstLsns.clear();
            lastLsns.clear();
            terms.clear();
            configurations.clear();
            marked = false;
        }

        void drop() {
            indexes.clear();
            firstLsns.clear();
            lastLsns.clear();
            terms.clear();
            configurations.clear();
            partsFrom = -1;
            marked = false;
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
