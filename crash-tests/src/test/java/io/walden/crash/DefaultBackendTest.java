package io.walden.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which backend a user gets with both on the class path (this module has both): FileChannel, the
 * faster by measurement (README, "Which backend is the default"), even where the kernel offers
 * io_uring.
 */
class DefaultBackendTest {
    @TempDir
    Path directory;

    @Test
    void fileChannelIsTheDefaultWhenBothBackendsAreOnTheClassPath() {
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(1024)
                .build())) {
            wal.append(new byte[16], Durability.SYNCED);
            assertEquals("nio", wal.stats().backend());
        }
    }
}
