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
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.WalReader;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.agrona.BitUtil;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * SOFAJRaft's {@link LogStorage} on a Walden log: each Raft entry is one record, appended {@code
 * SYNCED} (a batch shares one sync: its last record is {@code SYNCED}, the rest {@code BUFFERED}).
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
 * Kind {@value #KIND_ENTRY} is an entry (type: its jraft {@code EntryType} number); kind {@value
 * #KIND_FIRST_INDEX} records the first log index (index field; no entry), written by {@link
 * #truncatePrefix} and {@link #reset} before anything is deleted, so that it is durable at once.
 *
 * <p>At {@link #init} the log is read once from its start: the entries' LSNs and terms go into an
 * in-memory index (16 bytes per entry), and configuration entries are replayed into the options'
 * {@link ConfigurationManager}. {@link #getEntry} reads one record through a shared reader. {@link
 * #truncatePrefix} deletes whole segments below the first kept entry ({@link Wal#truncateBefore});
 * {@link #truncateSuffix} and {@link #reset} discard the log's suffix with {@link
 * Wal#truncateAfter(long)} on the open log (crash-safe: the old log or the new one, never a mix) and
 * trim the index to match; the log is not read again.
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

    static final int KIND_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int INDEX_OFFSET = 8;
    static final int TERM_OFFSET = 16;
    static final int ENTRY_OFFSET = 24;

    private static final System.Logger LOGGER = System.getLogger(WaldenLogStorage.class.getName());

    private final Path directory;
    private final Function<Path, WalConfig> configs;
    // Write lock: init, shutdown, truncateSuffix, reset (they replace the log). Read lock: the rest.
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    // Guards the index below: firstIndex, indexBase, lsns, terms.
    private final Object indexLock = new Object();
    // Guards the shared reader and its copy buffer.
    private final Object readLock = new Object();
    // Serialises appends and prefix truncations, whose records go to the log in order.
    private final Object appendLock = new Object();

    private Wal wal;
    private WalReader reader;
    private LogEntryEncoder encoder;
    private LogEntryDecoder decoder;
    private long firstIndex = 1;
    // Entry index of lsns[0] and terms[0]; entries below firstIndex are dropped lazily.
    private long indexBase = 1;
    private final LongArrayList lsns = new LongArrayList();
    private final LongArrayList terms = new LongArrayList();
    // Indexes of the configuration entries found by the last open, for init to replay.
    private final LongArrayList configurationIndexes = new LongArrayList();
    private final ExpandableArrayBuffer recordBuffer = new ExpandableArrayBuffer(256);
    private byte[] readCopy = new byte[256];
    private int readLength;

    /**
     * Creates a storage in a directory, with Walden's default configuration.
     *
     * @param directory the log directory (one per Raft node and group).
     */
    public WaldenLogStorage(final Path directory) {
        this(directory, dir -> WalConfig.builder(dir).build());
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
            return firstIndex;
        }
    }

    @Override
    public long getLastLogIndex() {
        synchronized (indexLock) {
            return lastIndex();
        }
    }

    @Override
    public LogEntry getEntry(final long index) {
        lifecycle.readLock().lock();
        try {
            final long lsn;
            synchronized (indexLock) {
                if (wal == null || index < firstIndex || index > lastIndex()) {
                    return null;
                }
                lsn = lsns.getLong((int) (index - indexBase));
            }
            synchronized (readLock) {
                final byte[] record = readRecord(lsn);
                final UnsafeBuffer view = new UnsafeBuffer(record);
                if (view.getByte(KIND_OFFSET) != KIND_ENTRY
                        || view.getLong(INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN) != index) {
                    throw new IllegalStateException(
                            "the record at LSN " + lsn + " of " + directory + " is not the entry at index " + index);
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
    public long getTerm(final long index) {
        synchronized (indexLock) {
            if (index < firstIndex || index > lastIndex()) {
                return 0;
            }
            return terms.getLong((int) (index - indexBase));
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
                long expected = getLastLogIndex() + 1;
                final long[] appended = new long[entries.size()];
                int count = 0;
                for (final LogEntry entry : entries) {
                    if (entry.getId().getIndex() != expected) {
                        LOGGER.log(
                                System.Logger.Level.ERROR,
                                "entry " + entry.getId() + " does not follow the last index " + (expected - 1)
                                        + " of the Raft log in " + directory + "; " + count + " of " + entries.size()
                                        + " appended");
                        break;
                    }
                    final byte[] encoded = encoder.encode(entry);
                    final int length = writeRecord(
                            KIND_ENTRY,
                            entry.getType().getNumber(),
                            expected,
                            entry.getId().getTerm(),
                            encoded);
                    appended[count++] = wal.append(
                            recordBuffer, 0, length, count == entries.size() ? Durability.SYNCED : Durability.BUFFERED);
                    expected++;
                }
                if (count > 0 && count < entries.size()) {
                    // The batch stopped early: what was appended must still be durable on return.
                    wal.sync();
                }
                synchronized (indexLock) {
                    for (int i = 0; i < count; i++) {
                        lsns.addLong(appended[i]);
                        terms.addLong(entries.get(i).getId().getTerm());
                    }
                }
                return count;
            }
        } catch (final WalException ex) {
            LOGGER.log(System.Logger.Level.ERROR, "appending to the Raft log in " + directory + " failed", ex);
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
                if (wal == null) {
                    LOGGER.log(
                            System.Logger.Level.ERROR,
                            "truncatePrefix of the Raft log in " + directory + " after shutdown");
                    return false;
                }
                final long keptLsn;
                synchronized (indexLock) {
                    if (firstIndexKept <= firstIndex) {
                        return true;
                    }
                    keptLsn = firstIndexKept <= lastIndex() ? lsns.getLong((int) (firstIndexKept - indexBase)) : -1;
                }
                // Durable before anything is deleted: a restart then starts at the new first index.
                final long recordLsn = wal.append(
                        recordBuffer, 0, writeRecord(KIND_FIRST_INDEX, 0, firstIndexKept, 0, null), Durability.SYNCED);
                synchronized (indexLock) {
                    dropBelow(firstIndexKept);
                }
                wal.truncateBefore(keptLsn >= 0 ? keptLsn : recordLsn);
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
            final long keptLsn;
            final long first;
            synchronized (indexLock) {
                if (lastIndexKept >= lastIndex()) {
                    return true;
                }
                first = firstIndex;
                keptLsn = lastIndexKept >= firstIndex ? lsns.getLong((int) (lastIndexKept - indexBase)) : -1;
            }
            // The truncation may discard the record of the first index: it is recorded again.
            replaceLog(keptLsn, lastIndexKept, first);
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
            LogEntry entry = getEntry(nextLogIndex);
            replaceLog(-1, nextLogIndex - 1, nextLogIndex);
            if (entry == null) {
                // As jraft's own stores do: the log restarts with a no-op entry at the next index.
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

    /**
     * Discards every record after an LSN ({@link Wal#truncateAfter(long)}; -1: every record), records a
     * first index, durably, and trims the index to the entries kept: what reading the log again would
     * find. Holder of the write lock.
     *
     * @param keptLsn the LSN of the last record kept, or -1.
     * @param lastIndexKept the index of the last entry kept (ignored when {@code keptLsn} is -1).
     * @param first the first index from now on.
     */
    private void replaceLog(final long keptLsn, final long lastIndexKept, final long first) {
        wal.truncateAfter(keptLsn);
        synchronized (appendLock) {
            wal.append(recordBuffer, 0, writeRecord(KIND_FIRST_INDEX, 0, first, 0, null), Durability.SYNCED);
        }
        synchronized (indexLock) {
            final long keptEntries = keptLsn < 0 ? 0 : lastIndexKept - indexBase + 1;
            while (lsns.size() > keptEntries) {
                lsns.removeAt(lsns.size() - 1);
                terms.removeAt(terms.size() - 1);
            }
            while (!configurationIndexes.isEmpty()
                    && (keptLsn < 0 || configurationIndexes.getLong(configurationIndexes.size() - 1) > lastIndexKept)) {
                configurationIndexes.removeAt(configurationIndexes.size() - 1);
            }
            if (lsns.isEmpty()) {
                indexBase = first;
            }
            firstIndex = first;
            dropBelow(first);
        }
    }

    /** Holder of indexLock. */
    private long lastIndex() {
        return indexBase + lsns.size() - 1;
    }

    /** Holder of indexLock: forgets entries below an index; compacts the lists when half is dead. */
    private void dropBelow(final long index) {
        firstIndex = Math.max(firstIndex, index);
        final long dead = Math.min(firstIndex - indexBase, lsns.size());
        if (lsns.isEmpty() || dead == lsns.size()) {
            lsns.clear();
            terms.clear();
            indexBase = firstIndex;
        } else if (dead > 0 && dead >= lsns.size() / 2) {
            final LongArrayList keptLsns = new LongArrayList();
            final LongArrayList keptTerms = new LongArrayList();
            for (int i = (int) dead; i < lsns.size(); i++) {
                keptLsns.addLong(lsns.getLong(i));
                keptTerms.addLong(terms.getLong(i));
            }
            lsns.clear();
            terms.clear();
            for (int i = 0; i < keptLsns.size(); i++) {
                lsns.addLong(keptLsns.getLong(i));
                terms.addLong(keptTerms.getLong(i));
            }
            indexBase += dead;
        }
    }

    /** Writes a record into the record buffer; returns its length. Holder of appendLock. */
    private int writeRecord(final int kind, final int type, final long index, final long term, final byte[] entry) {
        recordBuffer.putLong(KIND_OFFSET, 0);
        recordBuffer.putByte(KIND_OFFSET, (byte) kind);
        recordBuffer.putByte(TYPE_OFFSET, (byte) type);
        recordBuffer.putLong(INDEX_OFFSET, index, ByteOrder.LITTLE_ENDIAN);
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
        synchronized (indexLock) {
            firstIndex = 1;
            indexBase = 1;
            lsns.clear();
            terms.clear();
            configurationIndexes.clear();
            reader.replay((buffer, offset, length, lsn) -> {
                final int kind = buffer.getByte(offset + KIND_OFFSET);
                final long index = buffer.getLong(offset + INDEX_OFFSET, ByteOrder.LITTLE_ENDIAN);
                if (kind == KIND_FIRST_INDEX) {
                    dropBelow(index);
                } else if (kind == KIND_ENTRY) {
                    if (lsns.isEmpty()) {
                        indexBase = index;
                        firstIndex = Math.max(firstIndex, index);
                    } else if (index != lastIndex() + 1) {
                        throw new WalException(
                                WalException.ErrorCode.CORRUPTION,
                                "the Raft log in " + directory + " holds entry " + index + " at LSN " + lsn
                                        + " after entry " + lastIndex() + "; entries must follow each other");
                    }
                    lsns.addLong(lsn);
                    terms.addLong(buffer.getLong(offset + TERM_OFFSET, ByteOrder.LITTLE_ENDIAN));
                    if (buffer.getByte(offset + TYPE_OFFSET) == EntryType.ENTRY_TYPE_CONFIGURATION_VALUE) {
                        configurationIndexes.addLong(index);
                    }
                }
            });
            dropBelow(firstIndex);
        }
    }

    /** Replays every configuration entry at or after the first index. Holder of the write lock. */
    private void loadConfigurations(final ConfigurationManager manager) {
        if (manager == null) {
            return;
        }
        for (int i = 0; i < configurationIndexes.size(); i++) {
            final long index = configurationIndexes.getLong(i);
            final LogEntry entry = getEntry(index);
            if (entry == null) {
                // Below the first index: truncated away.
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
