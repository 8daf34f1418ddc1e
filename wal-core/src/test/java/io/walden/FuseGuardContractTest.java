package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a FUSE file system, an io_uring backend never acknowledges {@code SYNCED} through O_DSYNC alone:
 * through io_uring the kernel's FUSE path completes O_DSYNC writes without a flush. Every io_uring
 * backend runs this suite. The file system type is stood in for (no FUSE mount is needed); the writes
 * go to a real directory.
 */
public abstract class FuseGuardContractTest {
    private static final int APPENDS = 20;

    @TempDir
    Path directory;

    /**
     * The backend under test, with O_DIRECT + O_DSYNC, reading file system types with a given function.
     *
     * @param options the I/O options.
     * @param fileSystemTypes stands in for the mount table.
     * @return the backend.
     */
    protected abstract StorageBackend newBackend(StorageOptions options, Function<Path, String> fileSystemTypes);

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

    private WalStats appendSynced(final Path logDirectory, final String fileSystemType) {
        try (Wal wal = Wal.open(WalConfig.builder(logDirectory)
                .backend(newBackend(new StorageOptions(true, true), directory -> fileSystemType))
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
