package io.walden.internal.io;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Shuts the I/O path down once the I/O thread has run its last round: after a clean close, records
 * the clean close in the active segment's header and abandons an unfinished preparation; after a
 * failure, waits for the producers that claimed space to publish; then closes the session, frees the
 * buffers no operation can still read, completes the futures left, and closes the log state (unless
 * another agent takes it over).
 *
 * <p><b>Threading:</b> the I/O thread, as it stops.
 */
final class IoShutdown {
    private static final System.Logger LOGGER = System.getLogger(IoShutdown.class.getName());
    private static final long CLOSE_PUBLISH_WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final FrameScanner scanner;
    private final SegmentPreparer preparer;
    private final DurabilityMarker marker;
    private final WriteStage writes;
    private final LogState state;
    private final IoPositions positions;
    private final Path directory;
    private final long segmentMask;
    private final boolean writesDurable;

    IoShutdown(
            final IoShared shared,
            final FrameScanner scanner,
            final SegmentPreparer preparer,
            final DurabilityMarker marker,
            final WriteStage writes) {
        this.session = shared.session();
        this.logBuffer = shared.logBuffer();
        this.scanner = scanner;
        this.preparer = preparer;
        this.marker = marker;
        this.writes = writes;
        this.state = shared.state();
        this.positions = shared.positions();
        this.directory = shared.directory();
        this.segmentMask = shared.segmentCapacityBytes() - 1;
        this.writesDurable = shared.capabilities().writesDurable();
    }

    /** Whether the buffers may be freed (see {@link IoAgent#buffersFreeable}). */
    boolean shutdown(final boolean failed, final boolean handOver) {
        boolean producersDone = true;
        if (failed) {
            producersDone = awaitProducersAfterFailure();
        } else {
            markClosedCleanly();
        }
        // An unfinished preparation's temporary file is removed after a failure too: on a full file
        // system it holds the space the log lacks. Blocking I/O takes the next completion for its own,
        // so only once nothing else is in flight (a failed log may leave a write or sync behind); else
        // the next open removes it.
        if (session.inFlight() == 0) {
            try {
                preparer.abandon(new BlockingIo(session), failed);
            } catch (final IOException | RuntimeException ex) {
                LOGGER.log(
                        System.Logger.Level.WARNING,
                        "could not remove an unfinished segment preparation in " + directory
                                + "; the next open removes it",
                        ex);
            }
        }
        try {
            session.close();
        } catch (final RuntimeException ex) {
            LOGGER.log(System.Logger.Level.WARNING, "closing the storage session of " + directory + " failed", ex);
        }
        // Counted, not timed: memory an unfinished operation may still read is never freed; it is left
        // to the garbage collector, which frees it only once nothing refers to it.
        final int inFlight = session.inFlight();
        if (inFlight == 0) {
            preparer.close();
            marker.close();
            writes.close();
        } else {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    inFlight + " I/O operation(s) of the log in " + directory + " were still in flight when its"
                            + " storage session closed; their buffers are left to the garbage collector");
        }
        final boolean buffersFreeable = producersDone && inFlight == 0;
        if (!handOver) {
            state.markClosed();
            // After the mark: a poll that a signal leads to finds the log closed and its positions final.
            state.ackWatches().signalAll();
        }
        return buffersFreeable;
    }

    /**
     * Records the clean close in the active segment's header: every frame is durable now. If that
     * fails, nothing acknowledged is at risk: the next open recovers the log as after a crash.
     */
    private void markClosedCleanly() {
        Invariants.check(
                writesDurable || positions.durable() == positions.written(),
                "closing with written %d durable %d",
                positions.written(),
                positions.durable());
        try {
            marker.recordCleanClose(
                    new BlockingIo(session), positions.activeBase(), positions.activeHandle(), positions.durable());
        } catch (final IOException | RuntimeException ex) {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    "could not record the clean close in " + SegmentNames.segmentPath(directory, positions.activeBase())
                            + "; every record is durable, and the next open recovers the log as after a crash",
                    ex);
        }
    }

    /**
     * After a failure: waits until every producer that claimed space before the tail closed has
     * published its frame; one that never does (a descheduled or dying thread) keeps the buffer from
     * being freed.
     */
    private boolean awaitProducersAfterFailure() {
        final long deadlineNs = System.nanoTime() + CLOSE_PUBLISH_WAIT_NS;
        final long tailPosition = logBuffer.closeTail();
        long position = scanner.position();
        while (position < tailPosition) {
            if ((position & segmentMask) == 0) {
                position += SegmentHeaderDescriptor.HEADER_LENGTH;
                continue;
            }
            final int frameLength = logBuffer.frameLengthAcquire(position);
            if (frameLength == 0) {
                if (System.nanoTime() - deadlineNs > 0) {
                    return false;
                }
                Thread.onSpinWait();
                continue;
            }
            position += FrameDescriptor.alignedLength(frameLength);
        }
        return true;
    }
}
