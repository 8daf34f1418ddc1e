package io.walden.bench.harness;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.CloseHelper;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * One RocksDB for every group, opened with jraft's options ({@link JraftRocksDb}); an entry's key is
 * its 8-byte group id then its 8-byte index, big-endian, so each group's entries are adjacent and in
 * order. A batch is one {@link WriteBatch}, written {@code sync=true}: atomic over its groups.
 *
 * <p><b>Threading:</b> as {@link GroupStore}; RocksDB is thread-safe and groups concurrent writers.
 */
final class RocksDbSharedStore implements GroupStore {
    private final JraftRocksDb db;
    private final List<WriteBatch> batches = new ArrayList<>();

    RocksDbSharedStore(final Path directory) throws RocksDBException {
        this.db = new JraftRocksDb(directory, 0);
    }

    @Override
    public Writer writer(final int writerIndex) {
        final WriteBatch batch = new WriteBatch();
        synchronized (batches) {
            batches.add(batch);
        }
        final byte[] key = new byte[16];
        return plan -> {
            batch.clear();
            for (int k = 0, groups = plan.groups(); k < groups; k++) {
                JraftRocksDb.putLong(key, 0, plan.groupId(k));
                final long first = plan.firstIndex(k);
                for (int i = 0, entries = plan.entries(k); i < entries; i++) {
                    JraftRocksDb.putLong(key, 8, first + i);
                    batch.put(db.entries(), key, plan.entry(k, i));
                }
            }
            db.write(batch);
        };
    }

    @Override
    public long lastIndex(final long groupId) {
        final byte[] bound = new byte[16];
        JraftRocksDb.putLong(bound, 0, groupId);
        JraftRocksDb.putLong(bound, 8, Long.MAX_VALUE);
        final byte[] last = db.floorKey(bound);
        return last == null || JraftRocksDb.getLong(last, 0) != groupId ? 0 : JraftRocksDb.getLong(last, 8);
    }

    @Override
    public String runDetail() {
        return JraftRocksDb.describe(db);
    }

    @Override
    public void close() {
        synchronized (batches) {
            CloseHelper.closeAll(batches);
            batches.clear();
        }
        db.close();
    }
}
