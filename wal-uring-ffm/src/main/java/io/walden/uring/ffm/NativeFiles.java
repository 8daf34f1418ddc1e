package io.walden.uring.ffm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Opens and closes file descriptors with the C library, for the ring's operations: the one cold path
 * that must have a descriptor rather than a {@code FileChannel}. The errors are those a {@code
 * FileChannel} would throw (no such file, a file in the way, access denied), so that the core treats
 * both backends' refusals alike; any other errno is an {@link IOException} with its text.
 *
 * <p><b>Threading:</b> any thread; each call uses its own confined arena.
 */
final class NativeFiles {
    private static final int ENOENT = 2;
    private static final int EPERM = 1;
    private static final int EACCES = 13;
    private static final int EEXIST = 17;
    private static final int FILE_MODE = 0644;

    private NativeFiles() {}

    /**
     * Opens a file for reading and writing.
     *
     * @param path the file.
     * @param create true to create it, failing if it exists.
     * @param directIo O_DIRECT.
     * @param dsync O_DSYNC.
     * @return the descriptor.
     * @throws IOException naming the file and the cause; {@link DirectIoRefusedException} where the
     *     file system refused O_DIRECT.
     */
    static int open(final Path path, final boolean create, final boolean directIo, final boolean dsync)
            throws IOException {
        int flags = LinuxCalls.O_RDWR | LinuxCalls.O_CLOEXEC;
        if (create) {
            flags |= LinuxCalls.O_CREAT | LinuxCalls.O_EXCL;
        }
        if (directIo) {
            flags |= LinuxCalls.O_DIRECT;
        }
        if (dsync) {
            flags |= LinuxCalls.O_DSYNC;
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = LinuxCalls.newErrnoSegment(arena);
            final int fd = LinuxCalls.open(errno, arena.allocateFrom(path.toString()), flags, FILE_MODE);
            if (fd >= 0) {
                return fd;
            }
            final int error = LinuxCalls.errno(errno);
            final String file = path.toString();
            switch (error) {
                case ENOENT -> throw new NoSuchFileException(file);
                case EEXIST -> throw new FileAlreadyExistsException(file);
                case EACCES, EPERM -> throw new AccessDeniedException(file, null, LinuxCalls.describe(error));
                case LinuxCalls.EINVAL -> {
                    if (directIo) {
                        throw new DirectIoRefusedException(path, LinuxCalls.describe(error));
                    }
                    throw new IOException("cannot open " + file + ": " + LinuxCalls.describe(error));
                }
                default -> throw new IOException("cannot open " + file + ": " + LinuxCalls.describe(error));
            }
        }
    }

    /**
     * Closes a descriptor.
     *
     * @param fd the descriptor.
     * @param path its file, for the message.
     * @throws IOException if close reports an error (a write-back error, for example).
     */
    static void close(final int fd, final Path path) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = LinuxCalls.newErrnoSegment(arena);
            if (LinuxCalls.close(errno, fd) < 0) {
                throw new IOException("close of " + path + " failed: " + LinuxCalls.describe(LinuxCalls.errno(errno)));
            }
        }
    }

    /** The file system refused O_DIRECT (EINVAL from open). */
    static final class DirectIoRefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        DirectIoRefusedException(final Path path, final String reason) {
            super("cannot open " + path + " with O_DIRECT: " + reason);
        }
    }
}
