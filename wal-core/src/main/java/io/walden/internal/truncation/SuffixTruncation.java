package io.walden.internal.truncation;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.BackendSelector;
import io.walden.internal.DirectoryLock;
import io.walden.internal.recovery.LogRecovery;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.recovery.SegmentScan;
import io.walden.internal.recovery.SegmentScanner;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.RecycledTail;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.SuffixTruncationRecord;
import io.walden.internal.state.AlignedBuffer;
import io.walden.internal.state.NoSpace;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Discards every record after a given one, durably and crash-safely ({@code Wal.truncateAfter}): in a
 * closed log ({@link #truncateAfter}), or in an open one between stopping its I/O agent and starting
 * the next ({@link #truncateStopped}, without the recoveries: the stopped agent knows the log's state).
 * For a closed log, under the log's lock:
 *
 * <ol>
 *   <li>recovery runs as at any open, and the log is closed cleanly at its end;
 *   <li>the cut position is found: the aligned end of the kept record's frame, a valid data frame below
 *       the end (or the oldest segment's first frame position, to keep none);
 *   <li>the suffix-truncation record ({@link SuffixTruncationDescriptor}: the cut, and the base of the
 *       segment after the one the log ends in) is written under a temporary name, synced, renamed into
 *       place and the directory synced;
 *   <li>recovery runs again, completes the truncation the record describes first ({@code
 *       SuffixTruncationCompletion}), and closes the log cleanly where it now continues.
 * </ol>
 *
 * <p>A crash before the record is durable leaves the old log; a crash after it, the new one, which the
 * next open completes. No position is given out again: the log continues after the segment it ended in.
 *
 * <p><b>Threading:</b> runs on the calling thread, which owns the session throughout.
 */
public final class SuffixTruncation {
    public static final long KEEP_NONE = -1;

    private SuffixTruncation() {}

    /** Refuses with LOCKED if the log is open, POSITION (nothing changed) if no record is at lsn. */
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
        final StorageBackend backend =
                config.backend() != null ? config.backend() : BackendSelector.select(config.storageOptions());
        final DirectoryLock lock = DirectoryLock.acquire(directory);
        try (StorageSession session = backend.open(directory, () -> {})) {
            final boolean directIo = session.capabilities().directIo();
            final RecoveredLog before = recoverAndRelease(config, session, directIo);
            final long cut = cutPosition(
                    config,
                    before.logId(),
                    before.segmentCapacityBytes(),
                    before.firstSegmentBase(),
                    before.endPosition(),
                    lsn);
            if (cut == before.endPosition()) {
                return cut;
            }
            final long continueAt = before.activeSegmentBase() + before.segmentCapacityBytes();
            writeRecord(session, directory, new SuffixTruncationRecord(before.logId(), cut, continueAt));
            return recoverAndRelease(config, session, directIo).endPosition();
        } catch (final IOException ex) {
            throw new WalException(
                    NoSpace.errorCode(ex),
                    "truncating the log in " + directory + " after position " + lsn + " failed: " + ex
                            + ". The next open recovers the log either as it was or truncated, never in between.",
                    ex);
        } finally {
            lock.close();
        }
    }

    /**
     * Completes the truncation at once ({@link LogRecovery#completeTruncationAndContinue}); refuses
     * with {@code POSITION}, nothing changed, if no record starts at {@code lsn}; null if it is the
     * last.
     */
    public static RecoveredLog truncateStopped(
            final WalConfig config,
            final StorageSession session,
            final StoppedLog stopped,
            final long lsn,
            final CutListener listener)
            throws IOException {
        final long capacityBytes = stopped.segmentCapacityBytes();
        final long end = stopped.endPosition();
        final long cut = cutPosition(config, stopped.logId(), capacityBytes, stopped.firstSegmentBase(), end, lsn);
        if (cut == end) {
            return null;
        }
        final long continueAt = (end & -capacityBytes) + capacityBytes;
        listener.beforeCut(cut, continueAt);
        writeRecord(session, config.directory(), new SuffixTruncationRecord(stopped.logId(), cut, continueAt));
        return new LogRecovery(config, session)
                .completeTruncationAndContinue(stopped.firstSegmentBase(), end, continueAt, stopped.skippedRanges());
    }

    /** An open log as its stopped I/O agent left it: every record written and durable up to the end. */
    public record StoppedLog(
            long logId, long segmentCapacityBytes, long firstSegmentBase, long endPosition, long[] skippedRanges) {}

    /** Told where a truncation cuts, before anything changes. */
    @FunctionalInterface
    public interface CutListener {
        void beforeCut(long cutPosition, long continuePosition);
    }

    /** Recovers the log, closes it cleanly at its end and releases the handles recovery opened. */
    private static RecoveredLog recoverAndRelease(
            final WalConfig config, final StorageSession session, final boolean directIo) throws IOException {
        final RecoveredLog recovered = new LogRecovery(config, session).recover();
        try (AlignedBuffer memory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH)) {
            final ByteBuffer header = memory.buffer();
            SegmentHeaders.write(
                    header, recovered.segmentCapacityBytes(), recovered.activeSegmentBase(), recovered.logId());
            SegmentHeaders.writeState(header, recovered.endPosition(), true);
            final BlockingIo io = new BlockingIo(session);
            final Path activePath = SegmentNames.segmentPath(config.directory(), recovered.activeSegmentBase());
            if (SegmentHeaders.recycledLimit(activePath) != 0) {
                // A recycled segment keeps its flag, and closes as the writer closes it.
                SegmentHeaders.writeRecycled(
                        header,
                        RecycledTail.closeAt(
                                io,
                                directIo,
                                recovered.activeSegmentHandle(),
                                recovered.endPosition() - recovered.activeSegmentBase(),
                                recovered.segmentCapacityBytes()));
            }
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
    private static long cutPosition(
            final WalConfig config,
            final long logId,
            final long capacityBytes,
            final long firstSegmentBase,
            final long endPosition,
            final long lsn)
            throws IOException {
        final long start = firstSegmentBase + SegmentHeaderDescriptor.HEADER_LENGTH;
        if (lsn == KEEP_NONE) {
            return start;
        }
        if (lsn < start || lsn >= endPosition) {
            throw new WalException(
                    WalException.ErrorCode.POSITION,
                    "cannot truncate the log in " + config.directory() + " after position " + lsn
                            + ": the log holds positions " + start + " to " + endPosition
                            + " (use -1 to keep no record); nothing was changed");
        }
        final long base = lsn - lsn % capacityBytes;
        final Path path = SegmentNames.segmentPath(config.directory(), base);
        try (SegmentScanner scanner = new SegmentScanner(logId, FrameDescriptor.frameLength(config.maxRecordBytes()))) {
            // The log ends at endPosition: its segment is scanned no further (the rest was never written).
            final long scanBytes = endPosition - base <= capacityBytes ? endPosition - base : capacityBytes;
            final SegmentScan result = scanner.scan(path, base, scanBytes, -1);
            for (final SegmentScan.Run run : result.runs()) {
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
