package io.walden.bench.harness;

import java.nio.file.Path;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (its Java binding) with default options: each writer puts a 16-byte key (writer, sequence)
 * and a {@code recordBytes} value with {@code WriteOptions.setSync(true)} ({@code SYNCED}: the WAL
 * is fdatasynced before the put returns; RocksDB groups concurrent writers) or {@code false} ({@code
 * WRITTEN}: the WAL is written to the OS, which survives a process crash).
 *
 * <p><b>Threading:</b> as {@link Target}; RocksDB is thread-safe.
 */
final class RocksDbTarget implements Target {
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final int recordBytes;

    RocksDbTarget(final Path directory, final int recordBytes, final boolean sync) throws RocksDBException {
        RocksDB.loadLibrary();
        this.recordBytes = recordBytes;
        this.options = new Options().setCreateIfMissing(true);
        this.writeOptions = new WriteOptions().setSync(sync);
        this.db = RocksDB.open(options, directory.toString());
    }

    @Override
    public Appender appender(final int writerIndex) {
        final byte[] value = Payloads.array(recordBytes, writerIndex);
        final byte[] key = new byte[16];
        putLong(key, 0, writerIndex);
        return new Appender() {
            private long sequence;

            @Override
            public void append() throws RocksDBException {
                putLong(key, 8, sequence++);
                db.put(writeOptions, key, value);
            }
        };
    }

    private static void putLong(final byte[] bytes, final int offset, final long value) {
        for (int i = 0; i < 8; i++) {
            bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
        }
    }

    @Override
    public long syncs() {
        return -1;
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }
}
