package io.walden.uring.ffm;

import io.walden.spi.PooledOperation;
import java.io.IOException;
import java.nio.file.Path;

/**
 * One operation of a ring-owning session in flight, kept in the session's {@link
 * io.walden.spi.OperationPool}: its {@linkplain #index() index} is the user data its ring entry
 * carries, so that a completion finds its operation without a lookup.
 *
 * <p><b>Threading:</b> the holder of the log's I/O duty, as the session's methods.
 */
final class RingOperation extends PooledOperation {
    int fd;
    Path path;
    Path target;
    long address;
    long fileOffset;
    int remainingBytes;
    int totalBytes;
    long allocateBytes;
    IOException failure;
    /** The thread that last handed it to the kernel (io_uring ties the request to it); see {@link SubmitterExit}. */
    Thread submitter;

    RingOperation(final int index) {
        super(index);
    }

    @Override
    protected void clear() {
        path = null;
        target = null;
        failure = null;
        submitter = null;
    }

    /**
     * The result the log is given on success: the bytes of a write, the bytes allocated (0 where the
     * file system declined), else 0.
     */
    long successResult() {
        return switch (kind()) {
            case WRITE -> totalBytes;
            case ALLOCATE -> allocateBytes;
            default -> 0;
        };
    }

    /**
     * What the operation is, for an error message, for example "io_uring write of 4096 bytes at offset
     * 8192 to /log/0.wal"; a directory sync names the log directory.
     */
    String describe(final Path directory) {
        return switch (kind()) {
            case WRITE -> "io_uring write of " + remainingBytes + " bytes at offset " + fileOffset + " to " + path;
            case ALLOCATE ->
                "io_uring fallocate of " + allocateBytes + " bytes at offset " + fileOffset + " in " + path;
            case SYNC -> "io_uring fdatasync of " + path;
            case SYNC_DIRECTORY -> "fsync of directory " + directory;
            case RENAME -> "rename of " + path + " to " + target;
            case DELETE -> "delete of " + path;
        };
    }
}
