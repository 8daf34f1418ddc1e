package io.walden.internal;

import io.walden.WalException;
import io.walden.format.SegmentNames;
import io.walden.internal.state.NoSpace;
import io.walden.spi.IoErrors;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.CloseHelper;

/**
 * An exclusive lock on a log directory, held on its own lock file through its own channel, so that
 * it is released when the process dies whatever else (an io_uring instance, say) still references
 * the segment files.
 *
 * <p><b>Threading:</b> acquired and released by the thread that opens and closes the log.
 */
public final class DirectoryLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(final FileChannel channel, final FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    public static DirectoryLock acquire(final Path directory) {
        final Path lockFile = directory.resolve(SegmentNames.LOCK_FILE_NAME);
        final FileChannel channel;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (final IOException ex) {
            // XFS needs room for a new inode chunk to create the lock file: a full file system is said as such.
            final boolean noSpace = NoSpace.isNoSpace(ex);
            throw new WalException(
                    noSpace ? WalException.ErrorCode.STORAGE_SPACE : WalException.ErrorCode.IO,
                    "cannot open the lock file " + lockFile + ": " + IoErrors.reason(ex)
                            + (noSpace ? "; the file system is full: free space in it, then open the log again" : ""),
                    ex);
        }
        try {
            final FileLock lock = channel.tryLock();
            if (lock == null) {
                throw locked(directory, "another process");
            }
            return new DirectoryLock(channel, lock);
        } catch (final OverlappingFileLockException ex) {
            CloseHelper.quietClose(channel);
            throw locked(directory, "another open Wal in this JVM");
        } catch (final IOException ex) {
            CloseHelper.quietClose(channel);
            throw new WalException(
                    WalException.ErrorCode.IO, "cannot lock " + lockFile + ": " + IoErrors.reason(ex), ex);
        } catch (final WalException ex) {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }

    private static WalException locked(final Path directory, final String holder) {
        return new WalException(
                WalException.ErrorCode.LOCKED,
                "the log directory " + directory + " is in use by " + holder
                        + "; close that log first, or open a different directory");
    }

    /** Releases the lock. The lock file stays, so that taking the lock never races a delete. */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (final IOException ignored) {
            // Closing the channel below releases the lock as well.
        }
        CloseHelper.quietClose(channel);
    }
}
