package io.walden.uring.ffm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;

/**
 * The pool of a session's operations in flight: a fixed array, each operation's index being the user
 * data its ring entry carries, so that a completion finds its operation without a lookup.
 *
 * <p><b>Threading:</b> the holder of the log's I/O duty, as the session's methods.
 */
final class RingOperations {
    /** What an operation does. */
    enum Kind {
        WRITE,
        ALLOCATE,
        SYNC,
        SYNC_DIRECTORY,
        RENAME,
        DELETE
    }

    /** One operation in flight; pooled. */
    static final class Operation {
        /** Its place in the pool: the ring entry's user data. */
        final int index;

        Kind kind;
        long token;
        int fd;
        Path path;
        Path target;
        long address;
        long fileOffset;
        int remainingBytes;
        int totalBytes;
        long allocateBytes;
        IOException failure;

        Operation(final int index) {
            this.index = index;
        }

        /**
         * The result the log is given on success: the bytes of a write, the bytes allocated (0 where
         * the file system declined), else 0.
         */
        long successResult() {
            return switch (kind) {
                case WRITE -> totalBytes;
                case ALLOCATE -> allocateBytes;
                default -> 0;
            };
        }

        /**
         * What the operation is, for an error message.
         *
         * @param directory the log directory (a directory sync names it).
         * @return for example "io_uring write of 4096 bytes at offset 8192 to /log/0.wal".
         */
        String describe(final Path directory) {
            return switch (kind) {
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

    private final Operation[] operations;
    private final ArrayDeque<Operation> free;
    private int inFlight;

    /**
     * Creates the pool.
     *
     * @param count the most operations in flight at once.
     */
    RingOperations(final int count) {
        operations = new Operation[count];
        free = new ArrayDeque<>(count);
        for (int i = 0; i < count; i++) {
            operations[i] = new Operation(i);
            free.add(operations[i]);
        }
    }

    /**
     * Takes a free operation.
     *
     * @param kind what it does.
     * @param token the log's token.
     * @return the operation.
     * @throws IllegalStateException if every operation is in flight (the log keeps within {@link
     *     io.walden.spi.StorageCapabilities#maxInFlight()}).
     */
    Operation take(final Kind kind, final long token) {
        final Operation operation = free.poll();
        if (operation == null) {
            throw new IllegalStateException("more than " + operations.length + " io_uring operations in flight");
        }
        operation.kind = kind;
        operation.token = token;
        operation.failure = null;
        inFlight++;
        return operation;
    }

    /**
     * The operation whose ring entry carried this user data.
     *
     * @param userData the completion's user data.
     * @return the operation.
     */
    Operation get(final long userData) {
        return operations[(int) userData];
    }

    /** Gives an operation back once its completion was delivered. */
    void release(final Operation operation) {
        operation.path = null;
        operation.target = null;
        operation.failure = null;
        inFlight--;
        free.add(operation);
    }

    /** @return operations taken and not released. */
    int inFlight() {
        return inFlight;
    }
}
