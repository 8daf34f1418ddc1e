package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.AlignedBuffer;
import io.walden.internal.BlockingIo;
import io.walden.internal.SegmentHeaders;
import io.walden.internal.StatsCounters;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Writes the durability mark: when the log has gone idle with records durable that no frame on disk
 * proves (the last group commit before a pause), the active segment's header is rewritten to record
 * the durable position. Without it, damage to those records after a crash could not be told from a
 * torn write, and a lost sector or page at the end of the data could take their proof with it; the
 * header lies elsewhere. It costs one 4 KiB write per pause; the next sync makes it durable (a
 * process crash keeps it anyway: it is in the page cache). Data writes wait for it, as for any write.
 * Also writes the clean-close record into the same header when the log closes.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; {@link #recordCleanClose} and {@link
 * #close} by the I/O thread as it stops.
 */
final class DurabilityMarker {
    /**
     * How long the log must be idle, after the durable position moved past everything a frame proves,
     * before the mark is written.
     */
    static final long MARK_IDLE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final StorageSession session;
    private final StatsCounters stats;
    private final Path directory;
    private final int segmentCapacityBytes;
    private final long logId;
    private final boolean writesDurable;
    private final AlignedBuffer headerMemory;
    private final ByteBuffer headerBlock;

    // Whether the mark's write is in flight, the durable position it records, the one the active
    // segment's header holds, and whether a sync has yet to cover the header.
    private boolean writeInFlight;
    private long markPosition;
    private long headerDurablePosition;
    private boolean unsynced;

    /**
     * Creates the marker of one log.
     *
     * @param session the storage session.
     * @param stats the counters.
     * @param directory the log's directory, for messages.
     * @param segmentCapacityBytes the segment capacity.
     * @param logId the log's identity.
     */
    DurabilityMarker(
            final StorageSession session,
            final StatsCounters stats,
            final Path directory,
            final int segmentCapacityBytes,
            final long logId) {
        this.session = session;
        this.stats = stats;
        this.directory = directory;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.logId = logId;
        this.writesDurable = session.writesDurable();
        this.headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
        this.headerBlock = headerMemory.buffer();
    }

    /** @return whether the mark's write is in flight. */
    boolean writeInFlight() {
        return writeInFlight;
    }

    /** @return whether a written mark waits for a sync to cover it (and its write is not in flight). */
    boolean awaitsSync() {
        return unsynced && !writeInFlight;
    }

    /**
     * The position the written, unsynced mark records: what a sync submitted now makes durable.
     *
     * @return the position, or -1 if no written mark waits for a sync.
     */
    long awaitingMarkPosition() {
        return awaitsSync() ? headerDurablePosition : -1;
    }

    /**
     * A sync completed that was submitted when the mark recording a position was written and waited
     * for a sync: that mark is durable. A mark written while the sync was in flight is not, and still
     * waits for one.
     *
     * @param coveredMarkPosition {@link #awaitingMarkPosition()} when the sync was submitted.
     */
    void onSynced(final long coveredMarkPosition) {
        if (coveredMarkPosition >= 0 && coveredMarkPosition == headerDurablePosition) {
            unsynced = false;
        }
    }

    /** The log rolled: the new active segment's header records nothing yet. */
    void onRoll() {
        headerDurablePosition = 0;
        unsynced = false;
    }

    /**
     * Whether a mark is due: records are durable that neither a frame nor the header proves, the
     * durable position has not moved for {@link #MARK_IDLE_NS}, and no mark is being written. The
     * caller also checks that the log is idle before it {@link #write writes} one.
     *
     * @param nowNs now.
     * @param durablePosition the durable position.
     * @param durableSinceNs when it last moved.
     * @param provenPosition the highest position a written frame proves durable.
     * @return whether a mark is due.
     */
    boolean due(final long nowNs, final long durablePosition, final long durableSinceNs, final long provenPosition) {
        return durablePosition > provenPosition
                && durablePosition > headerDurablePosition
                && nowNs - durableSinceNs >= MARK_IDLE_NS
                && !writeInFlight;
    }

    /**
     * Submits the mark's write: the active segment's header recording the durable position.
     *
     * @param durablePosition the durable position.
     * @param activeBase the active segment's base.
     * @param activeHandle its handle.
     * @return 1, the work done.
     */
    int write(final long durablePosition, final long activeBase, final int activeHandle) {
        SegmentHeaders.write(headerBlock, segmentCapacityBytes, activeBase, logId);
        SegmentHeaders.writeState(headerBlock, durablePosition, false);
        markPosition = durablePosition;
        writeInFlight = true;
        session.submitWrite(
                activeHandle,
                0,
                headerBlock,
                0,
                SegmentHeaderDescriptor.HEADER_LENGTH,
                CompletionToken.of(CompletionToken.MARK));
        return 1;
    }

    /**
     * The mark's write completed.
     *
     * @param result the bytes written.
     * @param activeBase the active segment's base, for the message.
     * @return null, or the failure of a short write, which fails the log.
     */
    IOException onWritten(final long result, final long activeBase) {
        writeInFlight = false;
        if (result != SegmentHeaderDescriptor.HEADER_LENGTH) {
            return new IOException("short write: the storage backend reported " + result + " bytes written"
                    + " without an error for the header of " + SegmentNames.segmentPath(directory, activeBase)
                    + "; a backend must finish a short write or fail it");
        }
        headerDurablePosition = markPosition;
        unsynced = !writesDurable;
        stats.recordDurabilityMark();
        return null;
    }

    /**
     * Records the clean close in the active segment's header, rewritten in place and synced.
     *
     * @param io blocking operations over the session.
     * @param activeBase the active segment's base.
     * @param activeHandle its handle.
     * @param durablePosition where the log ends: every frame is durable.
     * @throws IOException if the write or sync fails.
     */
    void recordCleanClose(
            final BlockingIo io, final long activeBase, final int activeHandle, final long durablePosition)
            throws IOException {
        SegmentHeaders.write(headerBlock, segmentCapacityBytes, activeBase, logId);
        SegmentHeaders.writeState(headerBlock, durablePosition, true);
        io.write(activeHandle, 0, headerBlock, SegmentHeaderDescriptor.HEADER_LENGTH);
        io.sync(activeHandle);
    }

    /** Frees the header block; only once no operation can read it. */
    void close() {
        headerMemory.close();
    }
}
