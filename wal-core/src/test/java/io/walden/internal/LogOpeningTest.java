package io.walden.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogOpeningTest {
    @TempDir
    Path tempDir;

    @Test
    void shouldHandTheOpenedPartsToTheLog() {
        final Path directory = tempDir.resolve("new").resolve("log");
        final EngineFixture.RecordingBackend backend = new EngineFixture.RecordingBackend();
        final WalConfig config = WalConfig.builder(directory).backend(backend).build();

        final Opened opened = LogOpening.open(config, path -> "ext4", Opened::new);

        try {
            assertTrue(Files.isDirectory(directory), "the directory is created");
            assertSame(config, opened.config);
            assertSame(backend, opened.backend);
            assertEquals("ext4", opened.fileSystemType);
            assertTrue(opened.engine.ioThreadAlive());
            assertTrue(opened.engine.recovered().report().newLog());
            assertThrows(WalException.class, () -> DirectoryLock.acquire(directory), "the lock is held");
        } finally {
            opened.close();
        }
    }

    @Test
    void shouldOpenWithAPendingInterruptAndLeaveItPending() {
        final WalConfig config = WalConfig.builder(tempDir.resolve("log"))
                .backend(new EngineFixture.RecordingBackend())
                .build();
        Thread.currentThread().interrupt();
        final Opened opened;
        try {
            opened = LogOpening.open(config, path -> "ext4", Opened::new);
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        opened.close();
    }

    @Test
    void shouldReleaseTheLockWhenTheBackendCannotOpen() {
        final Path directory = tempDir.resolve("log");
        final WalConfig config = WalConfig.builder(directory)
                .backend(new RefusingBackend(new IOException("the device is gone")))
                .build();

        final WalException refused =
                assertThrows(WalException.class, () -> LogOpening.open(config, path -> "ext4", Opened::new));

        assertEquals(WalException.ErrorCode.IO, refused.errorCode());
        assertEquals("cannot open the log in " + directory + ": the device is gone", refused.getMessage());
        DirectoryLock.acquire(directory).close();
    }

    @Test
    void shouldReleaseTheLockWhenTheLogCannotBeMade() {
        final Path directory = tempDir.resolve("log");
        final WalConfig config = WalConfig.builder(directory)
                .backend(new EngineFixture.RecordingBackend())
                .build();
        final AtomicReference<LogEngine> started = new AtomicReference<>();
        final IllegalStateException cause = new IllegalStateException("no log today");

        final IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> LogOpening.open(config, path -> "ext4", (c, lock, backend, type, stats, engine) -> {
                    started.set(engine);
                    throw cause;
                }));

        assertSame(cause, thrown);
        DirectoryLock.acquire(directory).close();
        started.get().stop(false);
    }

    @Test
    void shouldSayInWordsWhichFileTheLogCannotOpenAndWhy() {
        // java.nio.file's exceptions carry the file as their message and the reason as their class.
        final Path directory = tempDir.resolve("log");
        final Path segment = directory.resolve("00000000000000000000.wal");
        final WalConfig config = WalConfig.builder(directory)
                .backend(new RefusingBackend(new AccessDeniedException(segment.toString())))
                .build();

        final WalException refused =
                assertThrows(WalException.class, () -> LogOpening.open(config, path -> "ext4", Opened::new));

        assertEquals(
                "cannot open the log in " + directory + ": " + segment + ": permission denied", refused.getMessage());
    }

    @Test
    void shouldSayWhyTheDirectoryCannotBeCreated() throws IOException {
        final Path file = Files.createFile(tempDir.resolve("file"));
        final Path directory = file.resolve("log");
        final WalConfig config = WalConfig.builder(directory)
                .backend(new EngineFixture.RecordingBackend())
                .build();

        final WalException refused =
                assertThrows(WalException.class, () -> LogOpening.open(config, path -> "ext4", Opened::new));

        assertEquals(WalException.ErrorCode.IO, refused.errorCode());
        assertTrue(
                refused.getMessage().startsWith("cannot create the log directory " + directory + ": "),
                refused.getMessage());
        assertFalse(Files.exists(directory));
    }

    /** The parts as the log's constructor gets them. */
    private static final class Opened implements AutoCloseable {
        final WalConfig config;
        final DirectoryLock lock;
        final StorageBackend backend;
        final String fileSystemType;
        final LogEngine engine;

        Opened(
                final WalConfig config,
                final DirectoryLock lock,
                final StorageBackend backend,
                final String fileSystemType,
                final StatsCounters stats,
                final LogEngine engine) {
            this.config = config;
            this.lock = lock;
            this.backend = backend;
            this.fileSystemType = fileSystemType;
            this.engine = engine;
        }

        @Override
        public void close() {
            engine.stop(false);
            lock.close();
        }
    }

    private static final class RefusingBackend implements StorageBackend {
        private final IOException failure;

        RefusingBackend(final IOException failure) {
            this.failure = failure;
        }

        @Override
        public String name() {
            return "refusing";
        }

        @Override
        public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
            throw failure;
        }
    }
}
