package io.walden.nio;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The FileChannel storage backend. Writes run on Walden's I/O thread (a buffered write is a copy
 * into the page cache); fdatasync and file-system metadata operations run on one sync thread per
 * log, so that writes continue while a sync is in flight, except the fdatasync the I/O thread asks to
 * run itself when it has nothing else to do (a lone writer), which saves two thread hand-offs.
 *
 * <p>Modes: buffered (the default), O_DIRECT through {@code ExtendedOpenOption.DIRECT} (every write
 * block-aligned; the core rewrites the partial last block), and either with O_DSYNC, where a
 * completed write is durable.
 *
 * <p><b>Threading:</b> immutable and thread-safe; each session is owned by one log.
 */
public final class NioStorageBackend implements StorageBackend {
    private final StorageOptions options;

    /**
     * Creates a backend.
     *
     * @param options the I/O options.
     */
    public NioStorageBackend(final StorageOptions options) {
        this.options = options;
    }

    /** Creates a buffered backend. */
    public NioStorageBackend() {
        this(StorageOptions.BUFFERED);
    }

    @Override
    public String name() {
        return "nio" + (options.directIo() ? "-direct" : "") + (options.dsync() ? "-dsync" : "");
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        return new NioStorageSession(directory, options, completionSignal);
    }
}
