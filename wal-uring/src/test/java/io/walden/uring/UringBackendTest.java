package io.walden.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is particular to the io_uring backend: selection, ring errors, and leaks over many opens. */
@EnabledIfIoUring
class UringBackendTest {
    @TempDir
    Path directory;

    @Test
    void shouldBeChosenWhenItIsTheOnlyBackendOnTheClassPathAndTheKernelOffersIoUring() {
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(1024)
                .build())) {
            wal.append(new byte[16], Durability.SYNCED);
            assertEquals("uring", wal.stats().backend());
        }
    }

    @Test
    void shouldNameTheErrnoWhenTheRingRejectsAWrite() throws Exception {
        final List<long[]> results = new ArrayList<>();
        final List<IOException> failures = new ArrayList<>();
        try (StorageSession session = new UringStorageBackend(StorageOptions.DIRECT).open(directory, () -> {})) {
            final int handle = session.openFile(directory.resolve("misaligned"), true);
            final ByteBuffer block = ByteBuffer.allocateDirect(8192);
            // O_DIRECT needs block-aligned offsets: offset 1 is refused by the kernel with EINVAL.
            session.submitWrite(handle, 1, block, 0, 4096, 7);
            while (results.isEmpty()) {
                session.poll(
                        (token, result, failure) -> {
                            results.add(new long[] {token, result});
                            failures.add(failure);
                        },
                        1);
            }
        }
        assertEquals(7, results.get(0)[0]);
        assertTrue(results.get(0)[1] < 0, "a failed write completes with a negative result");
        final IOException failure = failures.get(0);
        assertNotNull(failure);
        assertTrue(failure.getMessage().contains("misaligned"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Error code: 22"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Invalid argument"), failure.getMessage());
    }

    @Test
    void shouldAllocateSegmentsWithFallocateOnThisFileSystem() throws Exception {
        // The temp directory is on ext4 (or tmpfs), which both support fallocate: the backend
        // must allocate, not decline. The contract suite checks content is unchanged either way.
        for (final StorageOptions options : List.of(StorageOptions.BUFFERED, StorageOptions.DIRECT)) {
            final Path file = directory.resolve("allocated-" + options.directIo());
            final long[] result = {Long.MIN_VALUE};
            try (StorageSession session = new UringStorageBackend(options).open(directory, () -> {})) {
                final int handle = session.openFile(file, true);
                session.submitAllocate(handle, 0, 1 << 20, 3);
                while (result[0] == Long.MIN_VALUE) {
                    session.poll(
                            (token, value, failure) -> {
                                assertNull(failure);
                                result[0] = value;
                            },
                            1);
                }
                session.closeFile(handle);
            }
            assertEquals(1 << 20, result[0], "fallocate result with " + options);
            assertEquals(1 << 20, Files.size(file));
        }
    }

    @Test
    void shouldTreatOnlyEopnotsuppAsDeclinedAllocation() {
        assertTrue(
                UringStorageSession.unsupported(new IOException("Error code: 95; message: Operation not supported")));
        assertFalse(
                UringStorageSession.unsupported(new IOException("Error code: 28; message: No space left on device")));
        assertFalse(UringStorageSession.unsupported(null));
    }

    @Test
    void shouldReportNoReasonWhereIoUringRuns() {
        assertNull(new UringStorageBackendProvider().unavailableReason());
    }
}
