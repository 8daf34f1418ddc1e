package io.walden.bench.harness;

import com.alipay.sofa.jraft.util.StorageOptionsFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A RocksDB opened as SOFAJRaft's {@code RocksDBLogStorage} opens its own: jraft's default options
 * ({@code StorageOptionsFactory}: DB options, column family options, block-based table), a fixed
 * 8-byte prefix extractor and a string-append merge operator, column families {@code Configuration}
 * and default (entries), and {@code WriteOptions.setSync(true)}; only the write buffer may differ.
 *
 * <p><b>Threading:</b> RocksDB is thread-safe; open and close on one thread.
 */
final class JraftRocksDb implements AutoCloseable {
    /** jraft's column family for configuration entries. */
    static final String CONFIGURATION_FAMILY = "Configuration";

    private final DBOptions dbOptions;
    private final ColumnFamilyOptions familyOptions;
    private final StringAppendOperator mergeOperator;
    private final WriteOptions writeOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;

    /**
     * Opens or creates the database.
     *
     * @param path its directory.
     * @param writeBufferBytes the write buffer of each column family, or 0 for jraft's.
     * @throws RocksDBException if it cannot be opened.
     */
    JraftRocksDb(final Path path, final long writeBufferBytes) throws RocksDBException {
        RocksDB.loadLibrary();
        this.dbOptions = StorageOptionsFactory.getDefaultRocksDBOptions();
        final BlockBasedTableConfig table = StorageOptionsFactory.getDefaultRocksDBTableConfig();
        this.mergeOperator = new StringAppendOperator();
        this.familyOptions = StorageOptionsFactory.getDefaultRocksDBColumnFamilyOptions()
                .useFixedLengthPrefixExtractor(8)
                .setTableFormatConfig(table)
                .setMergeOperator(mergeOperator);
        if (writeBufferBytes > 0) {
            familyOptions.setWriteBufferSize(writeBufferBytes);
        }
        this.writeOptions = new WriteOptions().setSync(true);
        final List<ColumnFamilyDescriptor> families = List.of(
                new ColumnFamilyDescriptor(CONFIGURATION_FAMILY.getBytes(StandardCharsets.UTF_8), familyOptions),
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions));
        try {
            this.db = RocksDB.open(dbOptions, path.toString(), families, handles);
        } catch (final RocksDBException | RuntimeException ex) {
            closeOptions();
            throw ex;
        }
    }

    /**
     * jraft's column family options as this opens them, in words.
     *
     * @param writeBufferBytes the write buffer, or 0 for jraft's.
     * @return e.g. {@code write buffer 4 MiB (jraft's 128 MiB), at most 6, flushed 2 at a time, LZ4}.
     */
    static String describeOptions(final long writeBufferBytes) {
        RocksDB.loadLibrary();
        try (ColumnFamilyOptions options = StorageOptionsFactory.getDefaultRocksDBColumnFamilyOptions()) {
            final long jraftBytes = options.writeBufferSize();
            return "write buffer " + GroupStoreSettings.size(writeBufferBytes > 0 ? writeBufferBytes : jraftBytes)
                    + (writeBufferBytes > 0 && writeBufferBytes != jraftBytes
                            ? " (jraft's: " + GroupStoreSettings.size(jraftBytes) + ")"
                            : " (jraft's)")
                    + ", at most " + options.maxWriteBufferNumber() + " per column family, flushed "
                    + options.minWriteBufferNumberToMerge() + " at a time, " + options.compressionType();
        }
    }

    /**
     * The instances' files and memory in words, from their properties.
     *
     * @param dbs the instances.
     * @return the text.
     */
    static String describe(final JraftRocksDb... dbs) {
        long sstBytes = 0;
        long memtableBytes = 0;
        long flushes = 0;
        for (final JraftRocksDb db : dbs) {
            sstBytes += db.property("rocksdb.total-sst-files-size");
            memtableBytes += db.property("rocksdb.cur-size-all-mem-tables");
            flushes += db.property("rocksdb.num-immutable-mem-table-flushed");
        }
        return String.format(
                Locale.ROOT,
                "RocksDB, %d instance(s): SST files %,d B, memtables %,d B (native memory), %,d memtables flushed (entries"
                        + " family)",
                dbs.length,
                sstBytes,
                memtableBytes,
                flushes);
    }

    /** A numeric property of the entries' column family, 0 if RocksDB does not say. */
    private long property(final String name) {
        try {
            return db.getLongProperty(entries(), name);
        } catch (final RocksDBException ex) {
            return 0;
        }
    }

    /** @return the column family of the entries (default). */
    ColumnFamilyHandle entries() {
        return handles.get(1);
    }

    /**
     * Writes a batch durably.
     *
     * @param batch the batch.
     * @throws RocksDBException if the write fails.
     */
    void write(final WriteBatch batch) throws RocksDBException {
        db.write(writeOptions, batch);
    }

    /**
     * The largest key of the entries at or below a key, or null.
     *
     * @param key the bound.
     * @return a copy of the key found, or null if none.
     */
    byte[] floorKey(final byte[] key) {
        // jraft's 8-byte prefix extractor would confine a seek to the bound's own prefix.
        try (ReadOptions options = new ReadOptions().setTotalOrderSeek(true);
                RocksIterator iterator = db.newIterator(entries(), options)) {
            iterator.seekForPrev(key);
            return iterator.isValid() ? iterator.key() : null;
        }
    }

    @Override
    public void close() {
        for (final ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        db.close();
        closeOptions();
    }

    private void closeOptions() {
        writeOptions.close();
        familyOptions.close();
        mergeOperator.close();
        dbOptions.close();
    }

    /**
     * Writes a long big-endian, as jraft's keys are.
     *
     * @param bytes the array.
     * @param offset where.
     * @param value the value.
     */
    static void putLong(final byte[] bytes, final int offset, final long value) {
        for (int i = 0; i < 8; i++) {
            bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
        }
    }

    /**
     * Reads a big-endian long.
     *
     * @param bytes the array.
     * @param offset where.
     * @return the value.
     */
    static long getLong(final byte[] bytes, final int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[offset + i] & 0xFF);
        }
        return value;
    }
}
