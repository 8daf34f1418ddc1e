package io.walden.uring.ffm;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The io_uring storage backend that owns its ring, through the Foreign Function and Memory API (JDK
 * 22 and later): the thread that runs the log's I/O submits to the kernel and reads completions
 * itself, with no event loop in between, and one thread per log waits for completions. Modes:
 * buffered, O_DIRECT (block-aligned writes from page-aligned memory) and O_DSYNC (a completed write is
 * durable, and the log keeps several writes in flight).
 *
 * <p>Opening a session where it cannot run fails with the cause ({@link
 * FfmUringSupport#unavailableReason()}) and names the FileChannel backend as the alternative. It needs
 * native access: {@code --enable-native-access=io.walden.uring.ffm} on the module path, {@code
 * ALL-UNNAMED} on the class path (JDK 24 and later warn without it).
 *
 * <p><b>Threading:</b> immutable and thread-safe; each session is owned by one log.
 */
public final class FfmUringStorageBackend implements StorageBackend {
    private final StorageOptions options;

    /**
     * Creates a backend.
     *
     * @param options the I/O options.
     */
    public FfmUringStorageBackend(final StorageOptions options) {
        this.options = options;
    }

    /** Creates a buffered backend: fdatasync makes writes durable. */
    public FfmUringStorageBackend() {
        this(StorageOptions.BUFFERED);
    }

    @Override
    public String name() {
        return "uring-ffm" + (options.directIo() ? "-direct" : "") + (options.dsync() ? "-dsync" : "");
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        return new FfmUringStorageSession(directory, options, completionSignal);
    }
}
