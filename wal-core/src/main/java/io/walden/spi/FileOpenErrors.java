package io.walden.spi;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The errors a storage backend throws from {@link StorageSession#openFile}, in words: the operating
 * system's reason (permission denied, a file in the way, ...) rather than an exception's class
 * name, and, for a file system without direct I/O, which file system it is and what to set instead.
 * One wording for every backend.
 *
 * <p><b>Threading:</b> any thread; stateless.
 */
public final class FileOpenErrors {
    private FileOpenErrors() {}

    /**
     * A file could not be opened.
     *
     * @param path the file.
     * @param failure why.
     * @return {@code "cannot open <path>: <the reason in words>"}, with the failure as its cause.
     */
    public static IOException openFailed(final Path path, final IOException failure) {
        return new IOException("cannot open " + path + ": " + IoErrors.reason(failure), failure);
    }

    /**
     * A file could not be opened with O_DIRECT because its file system has no direct I/O (the
     * kernel answers EINVAL, "Invalid argument"): ramfs, tmpfs before Linux 6.6, some FUSE and
     * network file systems.
     *
     * @param path the file.
     * @param failure the refused open.
     * @return the error, naming the file system and what to set instead, with the failure as its
     *     cause.
     */
    public static IOException directIoUnsupported(final Path path, final IOException failure) {
        final Path directory = path.toAbsolutePath().getParent();
        return new IOException(
                "cannot open " + path + " with O_DIRECT: the file system of " + directory + " ("
                        + FileSystemTypes.type(directory) + ") does not support O_DIRECT (direct I/O); open the log"
                        + " with StorageOptions.BUFFERED (WalConfig.Builder.storageOptions(StorageOptions.BUFFERED),"
                        + " or a backend created with it) or choose a directory on another file system",
                failure);
    }
}
