package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.testing.NoDirectIoDirectory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * O_DIRECT on a file system without direct I/O: opening says so in words, naming the file system and
 * the setting to change, rather than the kernel's "Invalid argument". Every backend runs it.
 */
public abstract class DirectIoRefusalContractTest {
    @TempDir
    Path tempDir;

    /**
     * The backend under test; a new instance per call.
     *
     * @param options its storage options.
     * @return the backend.
     */
    protected abstract StorageBackend newBackend(StorageOptions options);

    @Test
    void shouldNameTheFileSystemAndTheSettingWhenItRefusesDirectIo() throws Exception {
        try (NoDirectIoDirectory place = NoDirectIoDirectory.create(tempDir)) {
            final Path directory = place.path().resolve("log");
            final WalException refused = assertThrows(
                    WalException.class,
                    () -> Wal.open(WalConfig.builder(directory)
                            .backend(newBackend(StorageOptions.DIRECT))
                            .build()));

            final String message = refused.getMessage();
            assertEquals(WalException.ErrorCode.IO, refused.errorCode(), message);
            assertTrue(
                    message.contains("the file system of " + directory + " (" + place.fileSystemType()
                            + ") does not support O_DIRECT (direct I/O); open the log with StorageOptions.BUFFERED"),
                    message);
            // The advice holds: buffered I/O opens the same directory, the refused attempt in no way.
            try (Wal wal = Wal.open(WalConfig.builder(directory)
                    .backend(newBackend(StorageOptions.BUFFERED))
                    .build())) {
                wal.append(new byte[100], Durability.SYNCED);
            }
        }
    }
}
