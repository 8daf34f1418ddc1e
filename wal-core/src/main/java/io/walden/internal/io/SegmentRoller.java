package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.events.SegmentRollEvent;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Moves the log to its next segment behind the roll fence, and paces the next segment's preparation.
 *
 * <p>Roll fence: no byte is written to segment n+1 before segment n is completely written and synced
 * (scanned, written and durable up to its end), its header durably records that the log continued
 * (so that a lost segment n+1 is noticed), no durability mark write and no sync is in flight
 * (a sync submitted after the fence, to make a mark durable while the roll waited for its segment,
 * targets the old segment's end, and its completion after the roll would move the durable position
 * back into the old segment), and the next segment is prepared. After a crash, damage in any segment
 * but the newest is therefore corruption, never a torn tail.
 *
 * <p>Preparation yields to the log's own writes: its zero-fill is a second write of every byte, so a
 * step is submitted only when no frame waits to be written. When the appenders come within an eighth
 * of a segment of its end and the next one is still being zero-filled, the preparer is hurried: the
 * rest of the zero-fill is skipped (see {@link SegmentPreparer}).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; rolls run on the I/O thread or an
 * appender driving its record, never in a completion round (a roll closes a file).
 */
final class SegmentRoller {
    private final StorageSession session;
    private final SegmentPreparer preparer;
    private final FrameScanner scanner;
    private final IoPositions positions;
    private final DurabilityMarker marker;
    private final SyncStage syncs;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final StatsCounters stats;
    private final Path directory;
    private final long segmentCapacityBytes;
    private final long hurryDistanceBytes;
    // Since when the full active segment has waited for the next one, or -1; the space shortage
    // last published to the appenders.
    private long rollWantedSinceNs = -1;
    private String publishedShortage;

    /**
     * Creates the roller of one log.
     *
     * @param session the storage session.
     * @param preparer prepares the next segment.
     * @param scanner the frame scanner, which moves to the next segment with the log.
     * @param positions where the I/O path stands.
     * @param marker the durability marker.
     * @param syncs the sync stage.
     * @param logBuffer the log buffer.
     * @param state the shared state, where the new positions are published.
     * @param stats the counters.
     * @param directory the log's directory, for events.
     * @param segmentCapacityBytes the segment capacity.
     */
    SegmentRoller(
            final StorageSession session,
            final SegmentPreparer preparer,
            final FrameScanner scanner,
            final IoPositions positions,
            final DurabilityMarker marker,
            final SyncStage syncs,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final Path directory,
            final long segmentCapacityBytes) {
        this.session = session;
        this.preparer = preparer;
        this.scanner = scanner;
        this.positions = positions;
        this.marker = marker;
        this.syncs = syncs;
        this.logBuffer = logBuffer;
        this.state = state;
        this.stats = stats;
        this.directory = directory;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.hurryDistanceBytes = segmentCapacityBytes / 8;
    }

    /**
     * Runs a step of the next segment's preparation, unless frames wait to be written and it is not
     * hurried; hurries it when the appenders come near the active segment's end.
     *
     * @param framesWaiting whether frames wait to be scanned or written, or a write is in flight.
     * @return the work done.
     * @throws IOException if a step of the preparation cannot be submitted.
     */
    int prepare(final boolean framesWaiting) throws IOException {
        if (preparer.isIdle() && preparer.spaceShortage() != null) {
            // Its temporary file could not be created for space: tried again once its retry time has
            // come (a no-op before).
            preparer.start(positions.activeBase + segmentCapacityBytes);
        }
        final String shortage = preparer.spaceShortage();
        if (shortage != publishedShortage) {
            publishedShortage = shortage;
            state.spaceShortage(shortage);
        }
        if (positions.activeBase + segmentCapacityBytes - scanner.position() <= hurryDistanceBytes
                && preparer.hurry()) {
            stats.recordSegmentHurried();
        }
        if (framesWaiting && !preparer.isHurried()) {
            return 0;
        }
        return preparer.doWork();
    }

    /**
     * Writes into the full segment's header that the log goes on into the next segment, once every
     * frame of it is written and the next segment's file is in place (so a close before the roll
     * leaves the successor the flag promises). The roll fence's sync makes it durable; the roll waits
     * for that.
     *
     * @return 1 if the header write was submitted, else 0.
     */
    int seal() {
        final long segmentEnd = positions.activeBase + segmentCapacityBytes;
        if (positions.writtenPosition != segmentEnd
                || scanner.position() != segmentEnd
                || marker.writeInFlight()
                || marker.continuedWritten()
                || !preparer.isReady(segmentEnd)) {
            return 0;
        }
        return marker.writeContinued(positions.activeBase, positions.activeHandle);
    }

    /**
     * Rolls to the next segment once the fence holds, the segment is prepared and the full segment's
     * header durably records that the log goes on.
     *
     * @return 1 if the log rolled, else 0.
     * @throws IOException if the old segment cannot be closed.
     */
    int maybeRoll() throws IOException {
        final long segmentEnd = positions.activeBase + segmentCapacityBytes;
        if (scanner.position() != segmentEnd
                || positions.durablePosition != segmentEnd
                || marker.writeInFlight()
                || syncs.inFlight()) {
            return 0;
        }
        if (!preparer.isReady(segmentEnd)) {
            if (rollWantedSinceNs < 0) {
                rollWantedSinceNs = System.nanoTime();
            }
            preparer.start(segmentEnd);
            return 0;
        }
        if (!marker.continuedDurable()) {
            // The full segment's header is to record, durably, that the log goes on: seal() writes it.
            return 0;
        }
        if (SegmentRollEvent.enabled()) {
            final SegmentRollEvent event = new SegmentRollEvent();
            event.directory = directory.toString();
            event.fromBasePosition = positions.activeBase;
            event.toBasePosition = segmentEnd;
            event.waitedNs = rollWantedSinceNs < 0 ? 0 : System.nanoTime() - rollWantedSinceNs;
            event.commit();
        }
        rollWantedSinceNs = -1;
        session.closeFile(positions.activeHandle);
        final int recycledLimitOffset = preparer.readyLimitOffset();
        positions.activeHandle = preparer.take();
        positions.activeBase = segmentEnd;
        final long firstFramePosition = segmentEnd + SegmentHeaderDescriptor.HEADER_LENGTH;
        scanner.rollTo(firstFramePosition);
        positions.submittedPosition = firstFramePosition;
        positions.writtenPosition = firstFramePosition;
        positions.durablePosition = firstFramePosition;
        marker.onRoll(recycledLimitOffset);
        positions.releasedPosition = firstFramePosition;
        logBuffer.release(positions.releasedPosition);
        state.publishWritten(firstFramePosition);
        state.publishDurable(firstFramePosition);
        stats.recordSegmentRolled();
        if (recycledLimitOffset != 0) {
            stats.recordSegmentRecycled();
        }
        preparer.start(positions.activeBase + segmentCapacityBytes);
        return 1;
    }
}
