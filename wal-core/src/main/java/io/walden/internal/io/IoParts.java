package io.walden.internal.io;

import io.walden.WalConfig;
import io.walden.format.FrameChecksum;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.segment.SegmentFill;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The parts of one log's I/O path, built for a recovered log and wired to one another: what {@link
 * IoAgent} runs in its rounds. Building them here keeps the agent to the rounds and the duty.
 *
 * <pre>
 *   FrameScanner ──► WriteStage ──► SyncStage ──► LogState (written, durable, waiters)
 *        │               │              │
 *        └── SegmentRoller (roll fence) ┴── DurabilityMarker (header mark, clean close)
 *   SegmentPreparer (next segment)   SegmentTruncation (deletes)   AsyncCompletions (futures)
 *   IoPositions: where the path stands, moved by the stages     IoDuty: who runs the next round
 * </pre>
 *
 * <p><b>Threading:</b> built by the thread that opens the log; the parts then belong to the holder
 * of the I/O duty (see {@link IoDuty}).
 */
final class IoParts {
    final StorageSession session;
    final LogBuffer logBuffer;
    final LogState state;
    final StatsCounters stats;
    final Path directory;
    final long segmentCapacityBytes;
    final IoDuty duty;
    final AsyncCompletions asyncCompletions;
    final SegmentPreparer preparer;
    final SegmentTruncation truncation;
    final FrameScanner scanner;
    final IoPositions positions;
    final WriteStage writes;
    final DurabilityMarker marker;
    final SyncStage syncs;
    final SegmentRoller roller;
    final FailStop failStop;

    /**
     * Builds the I/O path of a recovered log.
     *
     * @param config the configuration.
     * @param session the storage session, handed over from recovery.
     * @param logBuffer the log buffer.
     * @param state the shared state.
     * @param stats the counters.
     * @param recovered what recovery found.
     * @param duty who runs the next round.
     * @throws IOException if the log directory or a segment header cannot be read.
     */
    IoParts(
            final WalConfig config,
            final StorageSession session,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final RecoveredLog recovered,
            final IoDuty duty)
            throws IOException {
        Invariants.check(
                session.blockSizeBytes() <= SegmentHeaderDescriptor.HEADER_LENGTH,
                "block size %d larger than the segment header",
                session.blockSizeBytes());
        this.session = session;
        this.logBuffer = logBuffer;
        this.state = state;
        this.stats = stats;
        this.duty = duty;
        this.directory = config.directory();
        this.segmentCapacityBytes = recovered.segmentCapacityBytes();
        final long logId = recovered.logId();
        final int maxBatchBytes = config.maxBatchBytes();
        final boolean directIo = session.directIo();
        final long endPosition = recovered.endPosition();
        this.asyncCompletions = new AsyncCompletions();
        final FreeSegments free = FreeSegments.find(directory, segmentCapacityBytes, config.recycledSegmentsMax());
        this.preparer = new SegmentPreparer(
                session,
                directory,
                (int) segmentCapacityBytes,
                session.completionThreadMayRunIo()
                        ? SegmentFill.PREPARE_WRITE_BYTES
                        : SegmentPreparer.INLINE_WRITE_BYTES,
                logId,
                CompletionToken.of(CompletionToken.PREPARE),
                free,
                SegmentPreparer.SpaceProbe.of(directory));
        this.truncation = new SegmentTruncation(
                session,
                state,
                directory,
                segmentCapacityBytes,
                recovered.firstSegmentBase(),
                CompletionToken.of(CompletionToken.TRUNCATE),
                free);
        this.scanner = new FrameScanner(
                logBuffer,
                new FrameChecksum(logId),
                stats,
                segmentCapacityBytes,
                maxBatchBytes,
                directIo ? session.blockSizeBytes() : 0,
                endPosition);
        this.positions = new IoPositions(
                recovered.activeSegmentBase(),
                recovered.activeSegmentHandle(),
                endPosition,
                directIo ? endPosition & -(long) session.blockSizeBytes() : endPosition);
        if (recovered.nextSegmentHandle() >= 0) {
            preparer.adoptReady(positions.activeBase + segmentCapacityBytes, recovered.nextSegmentHandle());
        }
        this.writes = new WriteStage(
                session,
                logBuffer,
                state,
                stats,
                positions,
                directory,
                session.writesDurable()
                        ? Math.max(1, Math.min(config.durableWritesInFlightMax(), session.overlappingWritesMax()))
                        : 1,
                config.writeDepthMeasured());
        this.marker = new DurabilityMarker(
                session,
                stats,
                directory,
                (int) segmentCapacityBytes,
                logId,
                endPosition - recovered.activeSegmentBase(),
                recovered.activeWriteLimitOffset(),
                SegmentHeaders.recycledLimit(SegmentNames.segmentPath(directory, recovered.activeSegmentBase())) != 0);
        final GroupCommitPolicy commitPolicy = new GroupCommitPolicy(
                config.syncIntervalNs(),
                // Written data is synced in the background once a quarter segment is unsynced, so that
                // the roll fence (a sync of the whole segment's tail) never waits for much.
                segmentCapacityBytes / 4,
                config.groupWindowNs(),
                maxBatchBytes,
                config.groupReturnWait(),
                System.nanoTime());
        this.syncs = new SyncStage(
                session,
                state,
                stats,
                positions,
                marker,
                commitPolicy,
                directory,
                segmentCapacityBytes,
                this::nothingElseToWrite);
        this.roller = new SegmentRoller(
                session,
                preparer,
                scanner,
                positions,
                marker,
                syncs,
                logBuffer,
                state,
                stats,
                directory,
                segmentCapacityBytes);
        this.failStop = new FailStop(session, logBuffer, state, asyncCompletions, truncation, positions, directory);
    }

    /** Whether no write is in flight and every frame published is written. Duty holder. */
    private boolean nothingElseToWrite() {
        return !writes.inFlight()
                && scanner.position() == positions.writtenPosition
                && logBuffer.tailPosition() == positions.writtenPosition;
    }

    /** Whether a published frame waits that the next round would scan. Duty holder. */
    boolean hasFrameToScan() {
        return scanner.hasFrameToScan(positions.submittedPosition, positions.releasedPosition);
    }

    /** Shuts the path down once the I/O thread ran its last round; see {@link IoShutdown}. */
    IoShutdown shutdown() {
        return new IoShutdown(
                session,
                logBuffer,
                scanner,
                preparer,
                marker,
                writes,
                asyncCompletions,
                state,
                positions,
                directory,
                segmentCapacityBytes);
    }
}
