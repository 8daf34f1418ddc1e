package io.walden.spi;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A way of moving log bytes to storage: the FileChannel backend ({@code wal-nio}), the io_uring
 * backend ({@code wal-uring}), or a test double. A backend is a stateless factory; each open log
 * gets its own {@link StorageSession}.
 *
 * <p>The SPI covers every operation that changes storage (create, write, sync, rename, delete,
 * directory sync). Reading is done by the core through read-only file channels, because reading
 * never affects durability and every backend's files are ordinary files.
 *
 * <p><b>Threading:</b> implementations are immutable and thread-safe.
 */
public interface StorageBackend {
    /**
     * Short name used in statistics and messages, for example {@code nio} or {@code nio-direct}.
     *
     * @return the name.
     */
    String name();

    /**
     * Opens a session for one log directory.
     *
     * @param directory the log directory, which exists.
     * @param completionSignal run by the backend, from any thread, whenever a completion becomes
     *     available to {@link StorageSession#poll}; it must be cheap and must not block.
     * @return the session.
     * @throws IOException if the backend cannot start.
     */
    StorageSession open(Path directory, Runnable completionSignal) throws IOException;
}
