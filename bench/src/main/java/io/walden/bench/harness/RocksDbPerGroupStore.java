package io.walden.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.CloseHelper;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * A RocksDB per group ({@code g<id>}), each opened as SOFAJRaft's {@code RocksDBLogStorage} opens its
 * own ({@link JraftRocksDb}), with a write buffer chosen for the number of groups: entries in the
 * default column family under an 8-byte big-endian index. A batch is one {@link WriteBatch} per group
 * of it, written {@code sync=true} one after the other; nothing makes it atomic across groups.
 *
 * <p><b>Threading:</b> as {@link GroupStore}; RocksDB is thread-safe.
 */
final class RocksDbPerGroupStore implements GroupStore {
    private final JraftRocksDb[] dbs;
    private final List<WriteBatch> batches = new ArrayList<>();

    RocksDbPerGroupStore(final Path directory, final GroupsWorkload workload, final long writeBufferBytes) {
        this.dbs = new JraftRocksDb[workload.groups()];
        int opened = 0;
        try {
            // RocksDB creates the last directory of a path, not its parents.
            Files.createDirectories(directory);
            for (; opened < dbs.length; opened++) {
                dbs[opened] = new JraftRocksDb(directory.resolve("g" + (opened + 1)), writeBufferBytes);
            }
        } catch (final IOException | RocksDBException | RuntimeException | Error ex) {
            CloseHelper.quietCloseAll(dbs);
            throw new IllegalStateException(
                    "opened " + opened + " of " + dbs.length + " RocksDB instances, then: " + ex, ex);
        }
    }

    @Override
    public Writer writer(final int writerIndex) {
        final WriteBatch batch = new WriteBatch();
        synchronized (batches) {
            batches.add(batch);
        }
        final byte[] key = new byte[8];
        return plan -> {
            for (int k = 0, groups = plan.groups(); k < groups; k++) {
                final JraftRocksDb db = dbs[(int) plan.groupId(k) - 1];
                final long first = plan.firstIndex(k);
                batch.clear();
                for (int i = 0, entries = plan.entries(k); i < entries; i++) {
                    JraftRocksDb.putLong(key, 0, first + i);
                    batch.put(db.entries(), key, plan.entry(k, i));
                }
                db.write(batch);
            }
        };
    }

    @Override
    public long lastIndex(final long groupId) {
        final byte[] last = dbs[(int) groupId - 1].floorKey(new byte[] {127, -1, -1, -1, -1, -1, -1, -1});
        return last == null ? 0 : JraftRocksDb.getLong(last, 0);
    }

    @Override
    public String runDetail() {
        return JraftRocksDb.describe(dbs);
    }

    @Override
    public void close() {
        synchronized (batches) {
            CloseHelper.closeAll(batches);
            batches.clear();
        }
        CloseHelper.closeAll(dbs);
    }
}
