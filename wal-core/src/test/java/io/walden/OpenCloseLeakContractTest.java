package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.StorageBackend;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backend leaks nothing over many opens and closes of a log: no file descriptor, no thread, no
 * direct memory. Every backend runs this suite.
 */
public abstract class OpenCloseLeakContractTest {
    @TempDir
    Path directory;

    /**
     * The backend under test.
     *
     * @return a new backend.
     */
    protected abstract StorageBackend newBackend();

    @Test
    void shouldLeakNoFileDescriptorsThreadsOrDirectMemoryOverAThousandOpens() throws IOException {
        final WalConfig config = WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(1024)
                .build();
        cycle(config, 20);
        final long fdsBefore = openFileDescriptors();
        final long directBefore = directMemoryUsed();
        final int threadsBefore = Thread.activeCount();
        int records = 0;
        for (int i = 0; i < 50; i++) {
            records += cycle(config, 20);
        }
        assertEquals(1000, records);
        final long fdsAfter = openFileDescriptors();
        final long directAfter = directMemoryUsed();
        assertTrue(fdsAfter <= fdsBefore + 2, "open fds went from " + fdsBefore + " to " + fdsAfter);
        assertTrue(
                directAfter <= directBefore + (1 << 20),
                "direct memory went from " + directBefore + " to " + directAfter + " bytes");
        assertTrue(
                Thread.activeCount() <= threadsBefore + 2,
                "threads went from " + threadsBefore + " to " + Thread.activeCount());
    }

    /** Opens and closes the log {@code times} times with one SYNCED append each; returns the appends. */
    private static int cycle(final WalConfig config, final int times) {
        int appended = 0;
        for (int i = 0; i < times; i++) {
            try (Wal wal = Wal.open(config)) {
                wal.append(new byte[] {(byte) i}, Durability.SYNCED);
                appended++;
            }
        }
        return appended;
    }

    private static long openFileDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static long directMemoryUsed() {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }
}
