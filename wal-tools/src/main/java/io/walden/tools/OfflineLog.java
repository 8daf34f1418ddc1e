package io.walden.tools;

import io.walden.RecoveryPolicy;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Opens a log for the commands that change it ({@code truncate-after}, {@code repair}): only a log no
 * process has open. A process that holds the log's lock is looked up first ({@link LockProbe}, which
 * names it); then {@link Wal#open} takes the lock itself, which is what excludes every writer while
 * the command runs, and refuses if it is held after all. Either way the command stops with {@link
 * Walden#EXIT_IN_USE} before anything in the directory changed.
 *
 * <p>The log is opened with the recovery policy asked for and settings that fit any log: the segment
 * capacity its files record, and the largest record a buffer of at most the default size allows; the
 * backend is the best one on the class path (the tool's jar holds {@code wal-nio}).
 *
 * <p><b>Threading:</b> stateless.
 */
final class OfflineLog {
    private OfflineLog() {}

    /**
     * Checks that a directory holds a log that no process has open, and opens it.
     *
     * @param directory the log directory.
     * @param policy the recovery policy to open it with.
     * @param command the command's name, for messages.
     * @return the open log, holding its lock.
     * @throws ToolException ({@link Walden#EXIT_IN_USE}) if a process holds the log; ({@link
     *     Walden#EXIT_CORRUPTION}) if recovery refuses it; ({@link Walden#EXIT_UNREADABLE}) if the
     *     directory holds no log.
     */
    static Wal open(final Path directory, final RecoveryPolicy policy, final String command) {
        return open(
                directory,
                policy,
                command,
                command + " works on a log that opens; `walden repair " + directory + "` cuts the damage first,"
                        + " keeping it as evidence");
    }

    /**
     * Checks that a directory holds a log that no process has open, and opens it, saying what to do
     * if recovery refuses it.
     *
     * @param directory the log directory.
     * @param policy the recovery policy to open it with.
     * @param command the command's name, for messages.
     * @param whatToDo what to do if recovery refuses the log, after "Nothing was changed: ".
     * @return the open log, holding its lock.
     * @throws ToolException as {@link #open(Path, RecoveryPolicy, String)}.
     */
    static Wal open(final Path directory, final RecoveryPolicy policy, final String command, final String whatToDo) {
        final LogDirectory log = refuseIfOpen(directory, command);
        try {
            return Wal.open(config(log, policy));
        } catch (final WalCorruptionException ex) {
            throw new ToolException(Walden.EXIT_CORRUPTION, ex.getMessage() + ". Nothing was changed: " + whatToDo, ex);
        } catch (final WalException ex) {
            if (ex.errorCode() == WalException.ErrorCode.LOCKED) {
                throw inUse(directory, command, "a process (or another open log in this one)", ex);
            }
            throw ex;
        }
    }

    /**
     * Checks that a directory holds a log and that no process is known to hold its lock.
     *
     * @param directory the log directory.
     * @param command the command's name, for messages.
     * @return the directory as listed.
     * @throws ToolException ({@link Walden#EXIT_IN_USE}) if a process holds the log; ({@link
     *     Walden#EXIT_UNREADABLE}) if the directory holds no log.
     */
    static LogDirectory refuseIfOpen(final Path directory, final String command) {
        final LogDirectory log = LogDirectory.open(directory); // Wal.open would create a log in an empty one
        final LockProbe.Holder holder = LockProbe.holder(directory);
        if (holder.state() == LockProbe.State.HELD) {
            throw inUse(directory, command, holder.pid() > 0 ? "process " + holder.pid() : "a process", null);
        }
        return log;
    }

    /**
     * The configuration to open a log with: the segment capacity its first valid header records (a
     * log's own wins anyway, but the buffer and the largest record follow it down), the buffer at most
     * the default, and the largest record that buffer allows, so that any record the log holds can be
     * read.
     */
    private static WalConfig config(final LogDirectory log, final RecoveryPolicy policy) {
        final WalConfig.Builder builder = WalConfig.builder(log.path()).recoveryPolicy(policy);
        for (final LogDirectory.Segment segment : log.segments()) {
            final SegmentHeader header;
            try {
                header = SegmentHeader.read(segment.path(), segment.base());
            } catch (final IOException ex) {
                continue; // recovery reports what is wrong with it
            }
            if (header.problem() == null) {
                final int capacityBytes = (int) header.capacity();
                final int bufferBytes = Math.min(capacityBytes, WalConfig.BUFFER_CAPACITY_BYTES_DEFAULT);
                builder.segmentCapacityBytes(capacityBytes)
                        .bufferCapacityBytes(bufferBytes)
                        .maxRecordBytes((bufferBytes - SegmentHeaderDescriptor.HEADER_LENGTH) / 2
                                - FrameDescriptor.HEADER_LENGTH);
                break;
            }
        }
        return builder.build();
    }

    private static ToolException inUse(
            final Path directory, final String command, final String holder, final Throwable cause) {
        return new ToolException(
                Walden.EXIT_IN_USE,
                "the log in " + directory + " is open: " + holder + " holds " + SegmentNames.LOCK_FILE_NAME
                        + ". " + command + " changes only a log no process has open: close the log (stop the"
                        + " process that writes it) and run the command again. Nothing was changed",
                cause);
    }
}
