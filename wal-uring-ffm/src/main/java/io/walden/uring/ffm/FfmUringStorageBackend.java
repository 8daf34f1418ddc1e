package io.walden.uring.ffm;

import io.walden.spi.FileSystemTypes;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

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
    private final Function<Path, String> fileSystemTypes;

    /**
     * Creates a backend.
     *
     * <p>O_DSYNC on FUSE: through io_uring, the kernel's FUSE path completes O_DSYNC direct writes
     * without the flush O_DSYNC requires (the jasyncfio backend's {@code UringStorageBackend} says what
     * was seen). On a FUSE file system (type {@code fuse*}) a session of a backend created with O_DSYNC
     * therefore opens its files without it, so that the log makes writes durable with fdatasync; it says
     * so in {@link io.walden.spi.StorageCapabilities#durabilityNote()}, the log's statistics and its log.
     *
     * @param options the I/O options.
     */
    public FfmUringStorageBackend(final StorageOptions options) {
        this(options, FileSystemTypes::type);
    }

    /**
     * Creates a backend that reads file system types with a given function (tests stand in for the
     * mount table with it).
     */
    FfmUringStorageBackend(final StorageOptions options, final Function<Path, String> fileSystemTypes) {
        this.options = options;
        this.fileSystemTypes = fileSystemTypes;
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
        final String type = fileSystemTypes.apply(directory);
        if (options.dsync() && FileSystemTypes.isFuse(type)) {
            final String note = FileSystemTypes.ioUringDsyncOnFuseNote(type, name());
            return new FfmUringStorageSession(
                    directory, new StorageOptions(options.directIo(), false), completionSignal, note);
        }
        return new FfmUringStorageSession(directory, options, completionSignal, null);
    }
}
