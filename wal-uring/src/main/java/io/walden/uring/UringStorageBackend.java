package io.walden.uring;

import io.walden.spi.FileSystemTypes;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

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
    private final Function<Path, String> fileSystemTypes;

    /**
     * Creates a backend.
     *
     * <p>O_DSYNC on FUSE: through io_uring, the kernel's FUSE path completes O_DSYNC direct writes
     * without the flush O_DSYNC requires (seen with a pass-through FUSE mount that keeps unsynced data
     * until fsync: 1,630 writes, no fsync, every SYNCED record lost at a power loss). On a FUSE file
     * system (type {@code fuse*}) a session of a backend created with O_DSYNC therefore opens its files
     * without it, so that the log makes writes durable with fdatasync, which FUSE does pass on; it says
     * so in {@link io.walden.spi.StorageCapabilities#durabilityNote()}, the log's statistics and its log.
     *
     * @param options the I/O options.
     */
    public UringStorageBackend(final StorageOptions options) {
        this(options, FileSystemTypes::type);
    }

    /**
     * Creates a backend that reads file system types with a given function (tests stand in for the
     * mount table with it).
     */
    UringStorageBackend(final StorageOptions options, final Function<Path, String> fileSystemTypes) {
        this.options = options;
        this.fileSystemTypes = fileSystemTypes;
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
        final String type = fileSystemTypes.apply(directory);
        if (options.dsync() && FileSystemTypes.isFuse(type)) {
            final String note = FileSystemTypes.ioUringDsyncOnFuseNote(type, name());
            return new UringStorageSession(
                    directory, new StorageOptions(options.directIo(), false), completionSignal, note);
        }
        return new UringStorageSession(directory, options, completionSignal, null);
    }
}
