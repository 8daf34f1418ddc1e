package io.walden.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a FUSE file system, the io_uring backend never acknowledges {@code SYNCED} through O_DSYNC
 * alone: through io_uring the kernel's FUSE path completes O_DSYNC writes without a flush. The file
 * system type is stood in for (no FUSE mount is needed); the writes go to a real directory.
 */
@EnabledIfIoUring
class UringFuseGuardTest {
    private static final int APPENDS = 20;

    @TempDir
    Path directory;

    @Test
    void onFuseEverySyncedAppendIsSyncedWithFdatasyncAndTheFallbackIsReported() {
        final WalStats stats = appendSynced(directory.resolve("fuse"), "fuse.passthrough");
        assertTrue(
                stats.syncs() >= APPENDS,
                "each of the " + APPENDS + " sequential SYNCED appends needs an fdatasync; syncs: " + stats.syncs());
        final String note = stats.durabilityNote();
        assertTrue(note != null && note.contains("fuse.passthrough") && note.contains("fdatasync"), note);
    }

    @Test
    void elsewhereO_DSYNCWritesAreTheSyncAndNothingIsReported() {
        final WalStats stats = appendSynced(directory.resolve("ext4"), "ext4");
        assertEquals(0, stats.syncs(), "O_DSYNC writes are durable on completion: no fdatasync");
        assertNull(stats.durabilityNote());
    }

    private static WalStats appendSynced(final Path logDirectory, final String fileSystemType) {
        try (Wal wal = Wal.open(WalConfig.builder(logDirectory)
                .backend(new UringStorageBackend(new StorageOptions(true, true), directory -> fileSystemType))
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(1024)
                .syncIntervalNs(0)
                .build())) {
            for (int i = 0; i < APPENDS; i++) {
                final long lsn = wal.append(new byte[100], Durability.SYNCED);
                assertTrue(wal.durablePosition() > lsn);
            }
            return wal.stats();
        }
    }
}
