package io.walden.internal;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Discards every record after a given one in a closed log, durably and crash-safely ({@code
 * Wal.truncateAfter}). Under the log's lock:
 *
 * <ol>
 *   <li>recovery runs as at any open, so the log is consistent and its end known, and the log is
 *       closed cleanly there again;
 *   <li>the cut position is found: the aligned end of the kept record's frame, which must be a valid
 *       data frame below the end (or the first frame position of the oldest segment, to keep none);
 *   <li>the suffix-truncation record ({@link SuffixTruncationDescriptor}: the cut, and the base after
 *       the highest segment, where the log will continue) is written under a temporary name, synced,
 *       renamed into place and the directory synced;
 *   <li>recovery runs again, and completes the truncation the record describes before anything else
 *       (see {@code LogRecovery}): later segments become segments that hold one discard frame, the
 *       cut segment is zeroed from the cut and closed with a discard frame, the record is deleted;
 *       and the log is closed cleanly where it now continues.
 * </ol>
 *
 * <p>A crash before the record is durable leaves the old log; a crash after it, the new one, which
 * the next open completes. No position is given out again: the log continues after the highest
 * segment it had.
 *
 * <p><b>Threading:</b> runs on the calling thread, which owns the session throughout.
 */
public final class OfflineSuffixTruncation {
    /** The position that asks to keep no record at all. */
    public static final long KEEP_NONE = -1;

    private OfflineSuffixTruncation() {}

    /**
     * Runs a truncation.
     *
     * @param config the log's configuration (directory, backend, policy for the recovery that runs
     *     first).
     * @param lsn the LSN of the last record to keep, or {@link #KEEP_NONE}.
     * @return the position the log continues at: the LSN the next record appended will get.
     * @throws WalException ({@link WalException.ErrorCode#LOCKED}) if the log is open; ({@link
     *     WalException.ErrorCode#POSITION}) if no record starts at {@code lsn}, with nothing changed;
     *     ({@link WalException.ErrorCode#IO}) if an I/O operation fails, after which the next open
     *     recovers either the old log or the truncated one.
     */
    public static long truncateAfter(final WalConfig config, final long lsn) {
        final Path directory = config.directory();
        if (!Files.isDirectory(directory)) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, directory + " is not a directory: no Walden log to truncate there");
        }
        if (!holdsSegment(directory)) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "no Walden log in " + directory + " to truncate: it holds no segment file (<20 digits>.wal)");
        }
        final DirectoryLock lock = DirectoryLock.acquire(directory);
        try {
            final StorageBackend backend =
                    config.backend() != null ? config.backend() : BackendSelector.select(config.storageOptions());
            return truncateUnderLock(config, backend, lsn, (cut, continueAt) -> {});
        } finally {
            lock.close();
        }
    }

    /**
     * Runs a truncation in a log whose lock the caller holds and whose files no agent has open: an
     * open {@code Wal} between stopping its I/O agent and starting the next.
     *
     * @param config the log's configuration.
     * @param backend the storage backend to open a session of.
     * @param lsn the LSN of the last record to keep, or {@link #KEEP_NONE}.
     * @param listener told the cut and the continue position once they are known and before any file
     *     changes; not told when nothing is to be discarded.
     * @return the position the log continues at.
     * @throws WalException as {@link #truncateAfter(WalConfig, long)}, but never {@code LOCKED}.
     */
    public static long truncateUnderLock(
            final WalConfig config, final StorageBackend backend, final long lsn, final CutListener listener) {
        final Path directory = config.directory();
        try (StorageSession session = backend.open(directory, () -> {})) {
            final RecoveredLog before = recoverAndRelease(config, session);
            final long cut = cutPosition(config, before, lsn);
            if (cut == before.endPosition()) {
                return cut;
            }
            final long continueAt = highestBase(directory, before.activeSegmentBase()) + before.segmentCapacityBytes();
            listener.beforeCut(cut, continueAt);
            writeRecord(session, directory, new SuffixTruncationRecord(before.logId(), cut, continueAt));
            return recoverAndRelease(config, session).endPosition();
        } catch (final IOException ex) {
            throw new WalException(
                    NoSpace.isNoSpace(ex) ? WalException.ErrorCode.STORAGE_SPACE : WalException.ErrorCode.IO,
                    "truncating the log in " + directory + " after position " + lsn + " failed: " + ex
                            + ". The next open recovers the log either as it was or truncated, never in between.",
                    ex);
        }
    }

    /** Told where a truncation cuts, before anything changes. */
    @FunctionalInterface
    public interface CutListener {
        /**
         * The cut is known and nothing has changed yet.
         *
         * @param cutPosition where the discarded positions begin.
         * @param continuePosition where the log continues.
         */
        void beforeCut(long cutPosition, long continuePosition);
    }

    /**
     * Recovers the log, then closes it cleanly at its end (as {@code close()} would: the active
     * segment's header records the clean close, synced), so that the next open continues exactly
     * there, and releases the handles recovery opened.
     */
    private static RecoveredLog recoverAndRelease(final WalConfig config, final StorageSession session)
            throws IOException {
        final RecoveredLog recovered = new LogRecovery(config, session).recover();
        try (AlignedBuffer memory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH)) {
            final ByteBuffer header = memory.buffer();
            SegmentHeaders.write(
                    header, recovered.segmentCapacityBytes(), recovered.activeSegmentBase(), recovered.logId());
            SegmentHeaders.writeState(header, recovered.endPosition(), true);
            final BlockingIo io = new BlockingIo(session);
            io.write(recovered.activeSegmentHandle(), 0, header, SegmentHeaderDescriptor.HEADER_LENGTH);
            io.sync(recovered.activeSegmentHandle());
        }
        session.closeFile(recovered.activeSegmentHandle());
        if (recovered.nextSegmentHandle() >= 0) {
            session.closeFile(recovered.nextSegmentHandle());
        }
        return recovered;
    }

    /** The aligned end of the kept record's frame. */
    private static long cutPosition(final WalConfig config, final RecoveredLog log, final long lsn) throws IOException {
        final long capacityBytes = log.segmentCapacityBytes();
        final long start = log.firstSegmentBase() + SegmentHeaderDescriptor.HEADER_LENGTH;
        if (lsn == KEEP_NONE) {
            return start;
        }
        if (lsn < start || lsn >= log.endPosition()) {
            throw new WalException(
                    WalException.ErrorCode.POSITION,
                    "cannot truncate the log in " + config.directory() + " after position " + lsn
                            + ": the log holds positions " + start + " to " + log.endPosition()
                            + " (use -1 to keep no record); nothing was changed");
        }
        final long base = lsn - lsn % capacityBytes;
        final Path path = SegmentNames.segmentPath(config.directory(), base);
        try (SegmentScanner scanner =
                new SegmentScanner(log.logId(), FrameDescriptor.frameLength(config.maxRecordBytes()))) {
            final SegmentScanner.Result result = scanner.scan(path, base, capacityBytes);
            for (final SegmentScanner.Run run : result.runs()) {
                final long end = scanner.dataFrameEnd(path, run, lsn - base);
                if (end > 0) {
                    return base + end;
                }
            }
        }
        throw new WalException(
                WalException.ErrorCode.POSITION,
                "cannot truncate the log in " + config.directory() + " after position " + lsn
                        + ": no record starts there (an LSN returned by append names one); nothing was changed");
    }

    private static boolean holdsSegment(final Path directory) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.anyMatch(
                    path -> SegmentNames.parseSegmentName(path.getFileName().toString()) >= 0);
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO, "cannot list the log directory " + directory + ": " + ex, ex);
        }
    }

    /** The base of the highest segment in the directory, the active one at least. */
    private static long highestBase(final Path directory, final long activeBase) throws IOException {
        long highest = activeBase;
        try (Stream<Path> entries = Files.list(directory)) {
            for (final Path path : (Iterable<Path>) entries::iterator) {
                highest = Math.max(
                        highest,
                        SegmentNames.parseSegmentName(path.getFileName().toString()));
            }
        }
        return highest;
    }

    private static void writeRecord(
            final StorageSession session, final Path directory, final SuffixTruncationRecord record)
            throws IOException {
        final BlockingIo io = new BlockingIo(session);
        final Path temporary = directory.resolve(SuffixTruncationDescriptor.TEMPORARY_NAME);
        try (AlignedBuffer memory = new AlignedBuffer(SuffixTruncationDescriptor.LENGTH)) {
            final ByteBuffer block = memory.buffer();
            record.write(block);
            final int handle = session.openFile(temporary, true);
            try {
                io.write(handle, 0, block, SuffixTruncationDescriptor.LENGTH);
                io.sync(handle);
            } finally {
                session.closeFile(handle);
            }
        }
        io.rename(temporary, directory.resolve(SuffixTruncationDescriptor.FILE_NAME));
        io.syncDirectory();
    }
}
