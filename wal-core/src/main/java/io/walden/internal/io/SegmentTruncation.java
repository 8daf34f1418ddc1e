package io.walden.internal.io;

import io.walden.format.SegmentNames;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogState;
import io.walden.internal.state.NoSpace;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.agrona.BitUtil;

/**
 * Frees the segments below a requested position, oldest first, each change made durable before the next
 * is submitted: a segment is deleted, or, while {@link FreeSegments} wants more, renamed to its free
 * name (and offered for reuse once the rename is durable):
 *
 * <pre>
 *   IDLE --taken--> publish the new start --> ( DELETE --> SYNC_DIRECTORY )* --> complete --> IDLE
 * </pre>
 *
 * Unsynced directory operations may survive a power failure in any subset, and an older segment that
 * came back while a newer one stayed deleted would be a gap recovery must refuse: syncing after each
 * delete keeps the log a contiguous run of segments. The new start is published before the first
 * delete, so no reader is handed a position in a segment about to go. The active segment is never
 * deleted; one operation is in flight at a time.
 *
 * <p>Space comes first: a request taken while the file system is short of space ({@link #spaceShort}:
 * the next segment's preparation or a write waits for space, or less than a segment is free) deletes
 * every segment it frees, keeping none; decided once, as the request is taken, because the first
 * delete may already make room (XFS frees at once) though the request was made to get space back. A
 * rename to the free name that fails for space (XFS needs room for it) deletes the segment instead,
 * and the rest of the request, rather than failing the log.
 *
 * <p><b>Threading:</b> {@link #request} from any thread, one at a time; {@link #step} by the I/O thread
 * in its background rounds; the rest by the holder of the I/O duty.
 */
final class SegmentTruncation {
    private static final System.Logger LOGGER = System.getLogger(SegmentTruncation.class.getName());

    private final StorageSession session;
    private final LogState state;
    private final StatsCounters stats;
    private final Path directory;
    private final long segmentCapacityBytes;
    private final long segmentMask;
    private final long token;
    private final FreeSegments free;
    private final BooleanSupplier spaceShort;

    // Set by the requesting thread, taken by the I/O thread.
    private volatile TruncateRequest pending;

    // The holder of the I/O duty.
    private TruncateRequest active;
    private long firstSegmentBase;
    private long nextBase;
    private long limitBase;
    private boolean operationInFlight;
    private boolean deleteUnsynced;
    // The free file the unsynced change renamed a segment to, offered for reuse once it is durable.
    private Path renamedUnsynced;
    // Space was short when the active request was taken, or a rename to a free name failed for space:
    // the request deletes every segment it frees (the rest of them).
    private boolean deleteAll;

    SegmentTruncation(
            final IoShared shared,
            final long firstSegmentBase,
            final FreeSegments free,
            final BooleanSupplier spaceShort) {
        final long segmentCapacityBytes = shared.segmentCapacityBytes();
        Invariants.check(
                BitUtil.isPowerOfTwo(segmentCapacityBytes),
                "segment capacity %d not a power of two",
                segmentCapacityBytes);
        this.session = shared.session();
        this.state = shared.state();
        this.stats = shared.stats();
        this.directory = shared.directory();
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.segmentMask = segmentCapacityBytes - 1;
        this.firstSegmentBase = firstSegmentBase;
        this.token = CompletionToken.of(CompletionToken.TRUNCATE);
        this.free = free;
        this.spaceShort = spaceShort;
    }

    /**
     * Whether the file system of a log is short of space: the next segment's preparation or a write
     * waits for space, or less than a segment is free (asked once per freed segment, a slow path).
     */
    static BooleanSupplier spaceShort(
            final SegmentPreparer preparer,
            final WriteStage writes,
            final Path directory,
            final long segmentCapacityBytes) {
        return () -> {
            if (preparer.spaceShortage() != null || writes.waitingForSpace()) {
                return true;
            }
            try {
                return Files.getFileStore(directory).getUsableSpace() < segmentCapacityBytes;
            } catch (final IOException ex) {
                return false;
            }
        };
    }

    /** Any thread: hands a request to the I/O thread (which it then wakes). */
    void request(final TruncateRequest request) {
        pending = request;
    }

    boolean hasPending() {
        return pending != null;
    }

    boolean isActive() {
        return active != null;
    }

    /** Takes a waiting request, or submits the next operation of the active one, or completes it. */
    int step(final long activeBase) {
        if (active == null) {
            final TruncateRequest request = pending;
            if (request == null) {
                return 0;
            }
            pending = null;
            active = request;
            limitBase = Math.min(request.position() & ~segmentMask, activeBase);
            nextBase = firstSegmentBase;
            deleteUnsynced = false;
            deleteAll = limitBase > firstSegmentBase && free.wantsMore() && spaceShort.getAsBoolean();
            if (limitBase > firstSegmentBase) {
                state.publishStart(limitBase);
            }
        }
        if (operationInFlight) {
            return 0;
        }
        if (renamedUnsynced != null && !deleteUnsynced) {
            free.add(renamedUnsynced);
            renamedUnsynced = null;
        }
        if (deleteUnsynced) {
            session.submitSyncDirectory(token);
            deleteUnsynced = false;
            operationInFlight = true;
            return 1;
        }
        if (nextBase < limitBase) {
            if (!deleteAll && free.wantsMore()) {
                renamedUnsynced = free.renaming(nextBase);
                session.submitRename(SegmentNames.segmentPath(directory, nextBase), renamedUnsynced, token);
            } else {
                if (free.wantsMore()) {
                    // Recycling would have kept it: space comes first.
                    stats.recordSegmentDeletedForSpace();
                }
                session.submitDelete(SegmentNames.segmentPath(directory, nextBase), token);
            }
            nextBase += segmentCapacityBytes;
            deleteUnsynced = true;
            operationInFlight = true;
            return 1;
        }
        final long deleted = Math.max(0, (limitBase - firstSegmentBase) / segmentCapacityBytes);
        firstSegmentBase = Math.max(firstSegmentBase, limitBase);
        active.complete(deleted, null);
        active = null;
        return 1;
    }

    /** The operation in flight completed without error (a failure fails the whole log). */
    void onCompletion() {
        Invariants.check(operationInFlight, "truncation completion with no operation in flight");
        operationInFlight = false;
    }

    /**
     * The operation in flight failed. A rename to the free name that failed for space (it changed
     * nothing) is no failure of the log: the segment is deleted instead (true). Anything else fails the
     * log (false).
     */
    boolean onFailure(final IOException failure) {
        if (!operationInFlight || renamedUnsynced == null || !NoSpace.isNoSpace(failure)) {
            return false;
        }
        LOGGER.log(
                System.Logger.Level.WARNING,
                "cannot keep a freed segment for reuse as " + renamedUnsynced + " (" + failure.getMessage()
                        + "): the file system is full; deleting it instead");
        operationInFlight = false;
        deleteUnsynced = false;
        renamedUnsynced = null;
        free.renameFailed();
        deleteAll = true;
        nextBase -= segmentCapacityBytes;
        return true;
    }

    /** The log failed: completes the active and the waiting request with the failure. */
    void fail(final Throwable cause) {
        renamedUnsynced = null;
        free.dropPending();
        if (active != null) {
            active.complete(0, cause);
            active = null;
        }
        failPending(cause);
    }

    /** Completes a waiting request with the failure (requests keep coming until a failed log closes). */
    void failPending(final Throwable cause) {
        final TruncateRequest request = pending;
        if (request != null) {
            pending = null;
            request.complete(0, cause);
        }
    }
}
