package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.PendingWrite;
import io.walden.internal.segment.RecycledTail;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.WriteLimits;
import io.walden.internal.state.AlignedBuffer;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.NoSpace;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the active segment's header: the ground truth about the segment that its frames cannot
 * carry, rewritten in place (one 4 KiB write that no data write touches; one header write in flight
 * at a time). SegmentHeaderDescriptor defines the fields.
 *
 * <ul>
 *   <li><b>The durability mark</b>: when the log has gone idle with records durable that no frame
 *       on disk proves, the header records the durable position, so that damage to them after a
 *       crash is not taken for a torn write. The next sync makes it durable.
 *   <li><b>The write limit</b> ({@link WriteLimits}): no frame byte is written at or past the limit
 *       of a header known durable. The limit is raised ahead of the writes, and a write that would
 *       pass the durable limit waits until a sync ({@link #limitWaitsForSync}) or, with durable
 *       writes, the header write's completion makes it durable. Only the segment a session starts
 *       in and recycled segments have one.
 *   <li><b>Continued</b>: before the log rolls, the full segment's header records that the log goes
 *       on, made durable by the roll fence's sync.
 *   <li><b>The clean close</b>, when the log closes.
 * </ul>
 *
 * <p>A sync makes durable the header writes completed before it was submitted: {@link
 * #onSyncSubmitted} notes which, {@link #onSynced} takes them as durable.
 *
 * <p><b>A deferred header</b> ({@link ActiveSegment#headerDeferred}): recovery could not withdraw the
 * clean close it records (no space to rewrite it in place: copy on write). Until a header write
 * lands that withdraws it (every header this class writes does) with the session's write limit, and
 * is durable, the durable write limit is where the session starts: no frame is written past the
 * clean close. A crash meanwhile finds the log as it was closed. A deferred tail repair ({@link
 * ActiveSegment#tailRepair}: a crashed log's discard frame, which found no space either) is written
 * and synced before any header: a header that lands first would claim durable what the frame is to
 * cover (found by {@code DeferredTailRepairTest}).
 *
 * <p>A header write that fails with ENOSPC ({@link #onNoSpace}) counts as never completed, as if
 * still in flight at a crash: recovery takes either header. Nothing is raised or recorded; the write
 * is submitted again, with what is due by then, {@link SegmentPreparer#NO_SPACE_RETRY_NS} later or
 * once retention freed space, and the writes its limit holds back wait meanwhile.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; {@link #recordCleanClose} and {@link
 * #close} by the I/O thread as it stops.
 */
final class DurabilityMarker {
    /** How long the durable position must rest past everything a frame proves before the mark is written. */
    static final long MARK_IDLE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final StorageSession session;
    private final StatsCounters stats;
    private final Path directory;
    private final int segmentCapacityBytes;
    private final long logId;
    private final boolean writesDurable;
    private final boolean directIo;
    private final AlignedBuffer headerMemory;
    private final ByteBuffer headerBlock;

    // The header write in flight (if any) and what it records; what the last completed one recorded:
    // durable position, write limit, continued; how many header writes completed (the version), and
    // whether the last completed one still waits for a sync.
    private boolean writeInFlight;
    private long writingMarkPosition;
    private int writingLimitOffset;
    private boolean writingContinued;
    private long headerDurablePosition;
    private int headerLimitOffset;
    private boolean headerContinued;
    private long headerVersion;
    private boolean unsynced;
    // What the sync in flight makes durable: the header version, limit and continued it covers.
    private long syncCoveredVersion = -1;
    private int syncCoveredLimitOffset;
    private boolean syncCoveredContinued;
    // What is known durable: the write limit (writes stay below it) and the continued flag; where the
    // session started writing in the active segment.
    private int durableLimitOffset;
    private boolean durableContinued;
    private long sessionStartOffset;
    // When a header write that found no space may be submitted again (0: at once), and why, until a
    // header write lands; the time of the round in progress, which decides it.
    private long spaceRetryAtNs;
    private String spaceShortage;
    private long roundNowNs;
    // Whether the active segment is recycled: its header keeps the flag, and always a limit.
    private boolean activeRecycled;
    // Whether the active segment's header still records the clean close (class comment); the tail
    // repair left to write before any header (or null), and whether the write in flight is it.
    private boolean headerPending;
    private PendingWrite pendingRepair;
    private boolean writingRepair;
    // Whether the tail repair is written and waits for a sync, and whether the sync in flight covers it.
    private boolean repairUnsynced;
    private boolean syncCoversRepair;

    /**
     * Where the active segment stands when the engine starts; {@code headerDeferred}: its header still
     * records the clean close, and {@code limitOffset} is the limit to record with its withdrawal.
     */
    record ActiveSegment(
            long startOffset, int limitOffset, boolean recycled, boolean headerDeferred, PendingWrite tailRepair) {
        ActiveSegment(final long startOffset, final int limitOffset, final boolean recycled) {
            this(startOffset, limitOffset, recycled, false, null);
        }
    }

    DurabilityMarker(
            final StorageSession session,
            final StorageCapabilities capabilities,
            final StatsCounters stats,
            final Path directory,
            final int segmentCapacityBytes,
            final long logId,
            final ActiveSegment active) {
        final long startOffset = active.startOffset();
        final int limitOffset = active.limitOffset();
        final boolean recycled = active.recycled();
        this.session = session;
        this.stats = stats;
        this.directory = directory;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.logId = logId;
        this.writesDurable = capabilities.writesDurable();
        this.directIo = capabilities.directIo();
        this.headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
        this.headerBlock = headerMemory.buffer();
        this.sessionStartOffset = startOffset;
        this.headerLimitOffset = limitOffset;
        this.durableLimitOffset =
                active.headerDeferred() ? (int) startOffset : limitOffset == 0 ? segmentCapacityBytes : limitOffset;
        this.headerPending = active.headerDeferred();
        this.pendingRepair = active.tailRepair();
        Invariants.check(pendingRepair == null || headerPending, "a tail repair without a deferred header");
        this.activeRecycled = recycled;
        Invariants.check(!recycled || limitOffset != 0, "a recycled segment without a write limit");
    }

    boolean writeInFlight() {
        return writeInFlight;
    }

    /** Whether a written header waits for a sync to cover it (and no header write is in flight). */
    boolean awaitsSync() {
        return (unsynced || repairUnsynced) && !writeInFlight;
    }

    /** A sync is being submitted: it makes durable the header written last, if that waits for one. */
    void onSyncSubmitted() {
        syncCoversRepair = repairUnsynced && !writeInFlight;
        if (unsynced && !writeInFlight) {
            syncCoveredVersion = headerVersion;
            syncCoveredLimitOffset = headerLimitOffset;
            syncCoveredContinued = headerContinued;
        } else {
            syncCoveredVersion = -1;
        }
    }

    /** The sync submitted last completed: the header it covered is durable; one written meanwhile is not. */
    void onSynced() {
        if (syncCoversRepair) {
            repairUnsynced = false;
            syncCoversRepair = false;
        }
        if (syncCoveredVersion < 0) {
            return;
        }
        durableLimitOffset = Math.max(durableLimitOffset, effective(syncCoveredLimitOffset));
        durableContinued |= syncCoveredContinued;
        if (syncCoveredVersion == headerVersion) {
            unsynced = false;
        }
        syncCoveredVersion = -1;
    }

    /**
     * The log rolled: the new header records nothing yet but its write limit, durable since the
     * segment was prepared (zero: none, a segment an older build zero-filled); a recycled segment
     * always has one.
     */
    void onRoll(final int limitOffset, final boolean recycled) {
        Invariants.check(!recycled || limitOffset != 0, "a recycled segment without a write limit");
        Invariants.check(pendingRepair == null, "rolled with the tail repair unwritten");
        headerDurablePosition = 0;
        headerLimitOffset = limitOffset;
        headerContinued = false;
        activeRecycled = recycled;
        durableLimitOffset = effective(limitOffset);
        durableContinued = false;
        sessionStartOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
        unsynced = false;
        syncCoveredVersion = -1;
    }

    /**
     * Whether a mark is due: records durable that neither a frame nor the header proves, resting for
     * {@link #MARK_IDLE_NS}; the caller also checks the log is idle before it {@link #write writes}.
     */
    boolean due(final long nowNs, final long durablePosition, final long durableSinceNs, final long provenPosition) {
        return durablePosition > provenPosition
                && durablePosition > headerDurablePosition
                && nowNs - durableSinceNs >= MARK_IDLE_NS
                && !writeInFlight;
    }

    /** The position up to which writes to the active segment may go now: its durable write limit. */
    long writeLimitPosition(final long activeBase) {
        return activeBase + durableLimitOffset;
    }

    /** Whether the write limit lets a write that ends at a position go ahead: its header is durable. */
    boolean allowsWrite(final long writeEndPosition, final long activeBase) {
        return writeEndPosition - activeBase <= durableLimitOffset;
    }

    /** Whether waiting frames need a sync to make the written, raised limit durable: the log must sync for them. */
    boolean limitWaitsForSync(final long waitingEndPosition, final long activeBase) {
        return !allowsWrite(waitingEndPosition, activeBase) && awaitsSync();
    }

    /** Submits the header write that raises the limit ahead of the writes, when {@link WriteLimits#raiseDue}. */
    int maybeRaiseLimit(final long waitingEndPosition, final long activeBase, final int activeHandle) {
        if (headerPending) {
            // The clean close's withdrawal, with the session's limit; everything below is durable.
            return writeInFlight
                    ? 0
                    : submit(activeBase + sessionStartOffset, headerLimitOffset, false, activeBase, activeHandle);
        }
        final long endOffset = waitingEndPosition - activeBase;
        if (writeInFlight
                || headerLimitOffset == 0
                || !WriteLimits.raiseDue(sessionStartOffset, endOffset, headerLimitOffset, segmentCapacityBytes)) {
            return 0;
        }
        final int raised =
                WriteLimits.raisedLimit(sessionStartOffset, endOffset, headerLimitOffset, segmentCapacityBytes);
        return submit(headerDurablePosition, raised, headerContinued, activeBase, activeHandle);
    }

    boolean continuedDurable() {
        return durableContinued;
    }

    /** Whether a header recording "continued" was written or is being written (durable or not). */
    boolean continuedWritten() {
        return headerContinued || (writeInFlight && writingContinued);
    }

    /** Submits the header write recording "continued"; the roll waits until it is durable. */
    int writeContinued(final long activeBase, final int activeHandle) {
        return submit(headerDurablePosition, headerLimitOffset, true, activeBase, activeHandle);
    }

    /** Submits the mark's write: the active segment's header recording the durable position. */
    int write(final long durablePosition, final long activeBase, final int activeHandle) {
        return submit(durablePosition, headerLimitOffset, headerContinued, activeBase, activeHandle);
    }

    private int submit(
            final long durablePosition,
            final int limitOffset,
            final boolean continued,
            final long activeBase,
            final int activeHandle) {
        Invariants.check(!writeInFlight, "a header write of segment %d is already in flight", activeBase);
        if ((spaceRetryAtNs != 0 && roundNowNs - spaceRetryAtNs < 0) || repairUnsynced) {
            return 0;
        }
        if (pendingRepair != null) {
            // Before any header (class comment); the header the caller wanted goes next.
            writingRepair = true;
            writingContinued = false;
            writeInFlight = true;
            pendingRepair.blocks().clear();
            session.submitWrite(
                    activeHandle,
                    pendingRepair.fileOffset(),
                    pendingRepair.blocks(),
                    0,
                    pendingRepair.lengthBytes(),
                    CompletionToken.of(CompletionToken.MARK));
            return 1;
        }
        fill(activeBase, durablePosition, false, limitOffset, continued);
        writingMarkPosition = durablePosition;
        writingLimitOffset = limitOffset;
        writingContinued = continued;
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

    private void fill(
            final long activeBase,
            final long durablePosition,
            final boolean closedCleanly,
            final int limitOffset,
            final boolean continued) {
        SegmentHeaders.write(headerBlock, segmentCapacityBytes, activeBase, logId);
        SegmentHeaders.writeState(headerBlock, durablePosition, closedCleanly);
        SegmentHeaders.writeLimitAndContinued(headerBlock, limitOffset, continued);
        if (activeRecycled) {
            SegmentHeaders.writeRecycled(headerBlock, limitOffset);
        }
    }

    /** The header write completed; the failure of a short write, else null. */
    IOException onWritten(final long result, final long activeBase) {
        writeInFlight = false;
        if (writingRepair) {
            writingRepair = false;
            if (result != pendingRepair.lengthBytes()) {
                return new IOException("short write: the storage backend reported " + result + " bytes written"
                        + " without an error for the discard frame at offset " + pendingRepair.fileOffset() + " of "
                        + SegmentNames.segmentPath(directory, activeBase) + "; a backend must finish a short write"
                        + " or fail it");
            }
            pendingRepair = null;
            repairUnsynced = !writesDurable;
            spaceRetryAtNs = 0;
            spaceShortage = null;
            return null;
        }
        if (result != SegmentHeaderDescriptor.HEADER_LENGTH) {
            return new IOException("short write: the storage backend reported " + result + " bytes written"
                    + " without an error for the header of " + SegmentNames.segmentPath(directory, activeBase)
                    + "; a backend must finish a short write or fail it");
        }
        spaceRetryAtNs = 0;
        spaceShortage = null;
        if (writingMarkPosition != headerDurablePosition && !headerPending) {
            stats.recordDurabilityMark();
        }
        headerPending = false;
        headerDurablePosition = writingMarkPosition;
        headerLimitOffset = writingLimitOffset;
        headerContinued = writingContinued;
        headerVersion++;
        if (writesDurable) {
            durableLimitOffset = Math.max(durableLimitOffset, effective(headerLimitOffset));
            durableContinued |= headerContinued;
            unsynced = false;
        } else {
            unsynced = true;
        }
        return null;
    }

    /**
     * The header write failed. ENOSPC is back-pressure (class comment): true, and {@link #spaceShortage}
     * says why; anything else fails the log (false).
     */
    boolean onNoSpace(final IOException failure, final long activeBase) {
        if (!writeInFlight || !NoSpace.isNoSpace(failure)) {
            return false;
        }
        writeInFlight = false;
        spaceRetryAtNs = System.nanoTime() + SegmentPreparer.NO_SPACE_RETRY_NS;
        final String what = writingRepair ? "the discard frame that ends the crashed records of " : "the header of ";
        writingRepair = false;
        if (spaceShortage == null) {
            spaceShortage = what + SegmentNames.segmentPath(directory, activeBase)
                    + " could not be written: the file system is full (" + NoSpace.freeSpace(directory, failure)
                    + "; " + failure.getMessage() + "). The log writes it " + SegmentPreparer.RETRY_ADVICE;
        }
        return true;
    }

    /** Why a header write waits for space (appenders are told), or null once one landed. */
    String spaceShortage() {
        return spaceShortage;
    }

    /** Space may have appeared (retention deleted segments): a header write waiting for it goes at once. */
    void spaceFreed() {
        spaceRetryAtNs = 0;
    }

    /** A round begins at a time: a header write waiting for space goes once that time reaches its retry. */
    void roundAt(final long nowNs) {
        roundNowNs = nowNs;
    }

    /** Records the clean close in the active segment's header, rewritten in place and synced. */
    void recordCleanClose(
            final BlockingIo io, final long activeBase, final int activeHandle, final long durablePosition)
            throws IOException {
        final int limitOffset = activeRecycled
                ? RecycledTail.closeAt(io, directIo, activeHandle, durablePosition - activeBase, segmentCapacityBytes)
                : headerLimitOffset;
        if (pendingRepair != null) {
            io.write(activeHandle, pendingRepair.fileOffset(), pendingRepair.blocks(), pendingRepair.lengthBytes());
            pendingRepair = null;
            repairUnsynced = true;
        }
        if (repairUnsynced) {
            io.sync(activeHandle);
            repairUnsynced = false;
        }
        fill(activeBase, durablePosition, true, limitOffset, headerContinued);
        io.write(activeHandle, 0, headerBlock, SegmentHeaderDescriptor.HEADER_LENGTH);
        io.sync(activeHandle);
    }

    /** Frees the header block; only once no operation can read it. */
    void close() {
        headerMemory.close();
    }

    /** A recorded limit as a bound: zero records none, so the whole segment. */
    private int effective(final int limitOffset) {
        return limitOffset == 0 ? segmentCapacityBytes : limitOffset;
    }
}
