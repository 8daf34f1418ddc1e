package io.walden.uring;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The io_uring storage backend, on jasyncfio. Writes and fdatasync go through one io_uring
 * instance per log; the next batch's writes are submitted while a sync is in flight. Modes:
 * buffered, O_DIRECT (block-aligned writes from page-aligned memory) and O_DSYNC (a completed write
 * is durable).
 *
 * <p>Opening a session where io_uring is unavailable fails with the cause ({@link
 * UringSupport#unavailableReason()}) and names the FileChannel backend as the alternative.
 *
 * <p><b>Threading:</b> immutable and thread-safe; each session is owned by one log.
 */
public final class UringStorageBackend implements StorageBackend {
    private final StorageOptions options;

    /**
     * Creates a backend.
     *
     * @param options the I/O options.
     */
    public UringStorageBackend(final StorageOptions options) {
        this.options = options;
    }

    /**
     * Creates a buffered backend (fdatasync makes writes durable): the default, chosen by
     * measurement. O_DIRECT + O_DSYNC ({@code new StorageOptions(true, true)}) is faster for a log
     * whose appends are all {@code SYNCED}, but it makes every write wait for the device, so
     * {@code WRITTEN} appends cost as much as {@code SYNCED} ones; the README's Backends section has
     * the figures.
     */
    public UringStorageBackend() {
        this(StorageOptions.BUFFERED);
    }

    @Override
    public String name() {
        return "uring" + (options.directIo() ? "-direct" : "") + (options.dsync() ? "-dsync" : "");
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        return new UringStorageSession(directory, options, completionSignal);
    }
}
