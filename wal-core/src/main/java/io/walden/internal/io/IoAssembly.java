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
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;

/**
 * How the stages of one log's I/O path are made from its configuration, its storage session and
 * what recovery handed over: one function per stage, for {@link IoRound}'s constructor. Holds nothing.
 *
 * <p><b>Threading:</b> stateless; the opening thread.
 */
final class IoAssembly {
    private IoAssembly() {}

    static IoShared shared(
            final WalConfig config,
            final StorageSession session,
            final StorageCapabilities capabilities,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final RecoveredLog recovered) {
        Invariants.check(
                capabilities.blockSizeBytes() <= SegmentHeaderDescriptor.HEADER_LENGTH,
                "block size %d larger than the segment header",
                capabilities.blockSizeBytes());
        final long end = recovered.endPosition();
        final IoPositions positions = new IoPositions(
                recovered.segmentCapacityBytes(),
                recovered.activeSegmentBase(),
                recovered.activeSegmentHandle(),
                end,
                capabilities.directIo() ? end & -(long) capabilities.blockSizeBytes() : end);
        return new IoShared(
                session,
                capabilities,
                logBuffer,
                state,
                stats,
                positions,
                config.directory(),
                recovered.segmentCapacityBytes());
    }

    static SegmentPreparer preparer(
            final IoShared shared, final RecoveredLog recovered, final FreeSegments free, final boolean zeroFill)
            throws IOException {
        final SegmentPreparer preparer = new SegmentPreparer(
                shared.session(),
                shared.directory(),
                (int) shared.segmentCapacityBytes(),
                shared.capabilities().completionThreadMayRunIo()
                        ? SegmentFill.PREPARE_WRITE_BYTES
                        : SegmentPreparer.INLINE_WRITE_BYTES,
                recovered.logId(),
                free,
                zeroFill);
        if (recovered.nextSegmentHandle() >= 0) {
            preparer.adoptReady(shared.positions().activeEnd(), recovered.nextSegmentHandle());
        }
        return preparer;
    }

    static FrameScanner scanner(final WalConfig config, final IoShared shared, final RecoveredLog recovered) {
        final StorageCapabilities capabilities = shared.capabilities();
        return new FrameScanner(
                shared.logBuffer(),
                new FrameChecksum(recovered.logId()),
                shared.stats(),
                shared.segmentCapacityBytes(),
                config.maxBatchBytes(),
                capabilities.directIo() ? capabilities.blockSizeBytes() : 0,
                recovered.endPosition());
    }

    static WriteStage writes(final WalConfig config, final IoShared shared) {
        final StorageCapabilities capabilities = shared.capabilities();
        // Several writes in flight only where each is durable by itself and the backend overlaps them.
        final int inFlightMax = capabilities.writesDurable()
                ? Math.max(1, Math.min(config.durableWritesInFlightMax(), capabilities.overlappingWritesMax()))
                : 1;
        return new WriteStage(shared, inFlightMax, config.writeDepthMeasured());
    }

    static DurabilityMarker marker(final IoShared shared, final RecoveredLog recovered) throws IOException {
        final long activeBase = recovered.activeSegmentBase();
        return new DurabilityMarker(
                shared.session(),
                shared.capabilities(),
                shared.stats(),
                shared.directory(),
                (int) shared.segmentCapacityBytes(),
                recovered.logId(),
                new DurabilityMarker.ActiveSegment(
                        recovered.endPosition() - activeBase,
                        recovered.activeWriteLimitOffset(),
                        SegmentHeaders.recycledLimit(SegmentNames.segmentPath(shared.directory(), activeBase)) != 0,
                        recovered.headerDeferred(),
                        recovered.tailRepair()));
    }

    static GroupCommitPolicy commitPolicy(final WalConfig config, final IoShared shared) {
        return new GroupCommitPolicy(
                config.syncIntervalNs(),
                // Written data is synced in the background once a quarter segment is unsynced, so that the
                // roll fence (a sync of the whole segment's tail) never waits for much.
                shared.segmentCapacityBytes() / 4,
                config.groupWindowNs(),
                config.maxBatchBytes(),
                config.groupReturnWait(),
                System.nanoTime());
    }
}
