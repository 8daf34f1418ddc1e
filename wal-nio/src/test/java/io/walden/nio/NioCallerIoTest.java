package io.walden.nio;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.CallerIoContractTest;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An appender that runs its own record's I/O on the FileChannel backend: it does so when alone, and
 * (the contract suite) an interrupt that closes the channel under its write or sync neither fails the
 * log nor loses a record.
 */
class NioCallerIoTest extends CallerIoContractTest {
    @TempDir
    Path dir;

    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.BUFFERED);
    }

    private WalConfig config() {
        return WalConfig.builder(dir)
                .backend(newBackend())
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(4096)
                .build();
    }

    @Test
    void aLoneAppenderRunsItsOwnWritesAndSyncs() {
        try (Wal wal = Wal.open(config())) {
            for (int i = 0; i < 500; i++) {
                wal.append(new byte[64], i % 2 == 0 ? Durability.SYNCED : Durability.WRITTEN);
            }
            final WalStats stats = wal.stats();
            assertTrue(stats.appendsRunByCaller() > 0, "no append ran its own I/O: " + stats);
            assertTrue(stats.appendsRunByCaller() <= 500, stats.toString());
        }
    }
}
