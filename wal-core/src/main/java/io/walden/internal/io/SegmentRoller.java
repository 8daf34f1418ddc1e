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
 * <p>Roll fence: no byte is written to segment n+1 before segment n is completely written and durable
 * up to its end, its header durably records that the log continued, no durability mark write and no
 * sync is in flight (a sync's completion after the roll would move the durable position back into the
 * old segment), and the next segment is prepared. After a crash, damage in any segment but the newest
 * is therefore corruption, never a torn tail.
 *
 * <p>Preparation starts once the frames reach a quarter of the active segment ({@link
 * #prepareFromBytes}), so a new or small log takes one segment on disk, not two, and the next
 * segment still has three quarters of one to be prepared in. It yields to the log's own writes: a
 * step is submitted only when no frame waits to be written, until the appenders come within an
 * eighth of the segment's end ({@link #urgentDistanceBytes}).
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
    // How near the segment's end the frames come before the preparation stops yielding to them.
    private final long urgentDistanceBytes;
    // How far into the active segment the frames go before the next segment is prepared.
    private final long prepareFromBytes;
    // Since when the full active segment has waited for the next one, or -1; the space shortage
    // last published to the appenders.
    private long rollWantedSinceNs = -1;
    private String publishedShortage;

    SegmentRoller(
            final IoShared shared,
            final SegmentPreparer preparer,
            final FrameScanner scanner,
            final DurabilityMarker marker,
            final SyncStage syncs) {
        this.session = shared.session();
        this.preparer = preparer;
        this.scanner = scanner;
        this.positions = shared.positions();
        this.marker = marker;
        this.syncs = syncs;
        this.logBuffer = shared.logBuffer();
        this.state = shared.state();
        this.stats = shared.stats();
        this.directory = shared.directory();
        this.segmentCapacityBytes = shared.segmentCapacityBytes();
        this.urgentDistanceBytes = segmentCapacityBytes / 8;
        this.prepareFromBytes = segmentCapacityBytes / 4;
    }

    /**
     * Whether the frames reached the point where the next segment is to be prepared and none is (class
     * comment). Not while a preparation refused for space waits for its retry time: {@link #prepare}
     * tries that one again, and appenders need not wake the I/O thread for it.
     */
    boolean preparationDue() {
        return preparer.isIdle()
                && preparer.spaceShortage() == null
                && scanner.position() - positions.activeBase() >= prepareFromBytes;
    }

    /** Runs a step of the next segment's preparation (class comment: yields to writes unless urgent). */
    int prepare(final boolean framesWaiting) throws IOException {
        if (preparationDue() || (preparer.isIdle() && preparer.spaceShortage() != null)) {
            // Due, or its temporary file could not be created for space: tried again once its retry
            // time has come (a no-op before).
            preparer.start(positions.activeEnd());
        }
        final String shortage = preparer.spaceShortage();
        if (shortage != publishedShortage) {
            publishedShortage = shortage;
            state.spaceShortage(shortage);
        }
        final boolean urgent = positions.activeEnd() - scanner.position() <= urgentDistanceBytes;
        if (urgent) {
            preparer.stopZeroFill();
        } else if (framesWaiting) {
            return 0;
        }
        return preparer.doWork();
    }

    /**
     * Writes "continued" into the full segment's header once every frame is written and the next
     * segment's file is in place (so a close before the roll leaves the promised successor).
     */
    int seal() {
        final long segmentEnd = positions.activeEnd();
        if (positions.written() != segmentEnd
                || scanner.position() != segmentEnd
                || marker.writeInFlight()
                || marker.continuedWritten()
                || !preparer.isReady(segmentEnd)) {
            return 0;
        }
        return marker.writeContinued(positions.activeBase(), positions.activeHandle());
    }

    /** Rolls to the next segment once the fence holds (class comment). */
    int maybeRoll() throws IOException {
        final long segmentEnd = positions.activeEnd();
        if (scanner.position() != segmentEnd
                || positions.durable() != segmentEnd
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
            event.fromBasePosition = positions.activeBase();
            event.toBasePosition = segmentEnd;
            event.waitedNs = rollWantedSinceNs < 0 ? 0 : System.nanoTime() - rollWantedSinceNs;
            event.commit();
        }
        rollWantedSinceNs = -1;
        session.closeFile(positions.activeHandle());
        final int limitOffset = preparer.readyLimitOffset();
        final boolean recycled = preparer.readyRecycled();
        positions.rolled(segmentEnd, preparer.take());
        final long firstFramePosition = segmentEnd + SegmentHeaderDescriptor.HEADER_LENGTH;
        scanner.rollTo(firstFramePosition);
        marker.onRoll(limitOffset, recycled);
        logBuffer.release(positions.released());
        state.publishWritten(firstFramePosition);
        state.publishDurable(firstFramePosition);
        stats.recordSegmentRolled();
        if (recycled) {
            stats.recordSegmentRecycled();
        }
        // The segment after this one is prepared once it is due (class comment).
        return 1;
    }
}
