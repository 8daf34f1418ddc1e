package io.walden.internal.truncation;

import io.walden.WalException;
import io.walden.format.SegmentNames;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.io.TruncateRequest;
import io.walden.internal.state.LogState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * Deletes whole segments from the front of an open log: below a position ({@code truncateBefore}),
 * or where a {@link RetentionRule} cuts by size or by age. The I/O thread does the deleting, each
 * delete made durable before the next; this checks the arguments, reads what the rules need (the
 * segments' modification times), hands the request over and waits for it.
 *
 * <p><b>Threading:</b> immutable; called by any thread, one at a time under the close lock.
 */
public final class Retention {
    private static final long TRUNCATE_POLL_NS = 50_000;

    private final Path directory;
    private final EngineHolder holder;
    private final LogState state;

    public Retention(final EngineHolder holder) {
        this.directory = holder.directory();
        this.holder = holder;
        this.state = holder.state();
    }

    /** Deletes, durably, every segment entirely below a position; never the one being written. */
    public long truncateBefore(final long lsn) {
        synchronized (holder.closeLock()) {
            holder.checkOpen();
            final TruncateRequest request = new TruncateRequest(lsn);
            final LogEngine e = holder.engine();
            e.agent().submitTruncate(request);
            while (!request.isDone()) {
                if (!e.ioThreadAlive() && !request.isDone()) {
                    // The I/O thread completes every request it took, even when the log fails; a thread
                    // that is gone without doing so never will.
                    throw new WalException(
                            WalException.ErrorCode.IO,
                            "truncating the log in " + directory + " failed: the log's I/O thread stopped"
                                    + " before it completed the request"
                                    + (state.failure() != null
                                            ? " (" + state.failure().getMessage() + ")"
                                            : "")
                                    + "; nothing was deleted that a reopen would miss. Close and reopen the log.",
                            state.failure());
                }
                LockSupport.parkNanos(TRUNCATE_POLL_NS);
            }
            if (request.failure() != null) {
                throw new WalException(
                        WalException.ErrorCode.IO,
                        "truncating the log in " + directory + " failed: "
                                + request.failure().getMessage(),
                        request.failure());
            }
            return request.deletedCount();
        }
    }

    /** See {@code Wal.truncateToSize}. */
    public long truncateToSize(final long maxTotalBytes, final long protectedLsn) {
        checkArgument("maxTotalBytes", maxTotalBytes);
        checkArgument("protectedLsn", protectedLsn);
        synchronized (holder.closeLock()) {
            holder.checkOpen();
            final int capacity = holder.engine().recovered().segmentCapacityBytes();
            final long startBase = state.startPosition() & -(long) capacity;
            final long activeBase = (state.writtenPosition() - 1) & -(long) capacity;
            return truncateBefore(RetentionRule.bySize(startBase, activeBase, capacity, maxTotalBytes, protectedLsn));
        }
    }

    /** See {@code Wal.truncateOlderThan}. */
    public long truncateOlderThan(final Duration maxAge, final long protectedLsn) {
        checkMaxAge(maxAge);
        checkArgument("protectedLsn", protectedLsn);
        synchronized (holder.closeLock()) {
            holder.checkOpen();
            final int capacity = holder.engine().recovered().segmentCapacityBytes();
            final long startBase = state.startPosition() & -(long) capacity;
            final long activeBase = (state.writtenPosition() - 1) & -(long) capacity;
            final long[] lastModifiedMs = new long[(int) ((activeBase - startBase) / capacity + 1)];
            for (int i = 0; i < lastModifiedMs.length; i++) {
                lastModifiedMs[i] =
                        lastModifiedMs(SegmentNames.segmentPath(directory, startBase + (long) i * capacity));
            }
            final long cutoffMs = System.currentTimeMillis() - maxAge.toMillis();
            return truncateBefore(
                    RetentionRule.byAge(startBase, activeBase, capacity, lastModifiedMs, cutoffMs, protectedLsn));
        }
    }

    /** -1 for a segment deleted meanwhile. */
    static long lastModifiedMs(final Path segment) {
        try {
            return Files.getLastModifiedTime(segment).toMillis();
        } catch (final NoSuchFileException ex) {
            return -1;
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO,
                    "retention cannot read the modification time of " + segment + ": " + ex.getMessage()
                            + "; nothing was deleted",
                    ex);
        }
    }

    static void checkMaxAge(final Duration maxAge) {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative()) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "retention maxAge=" + maxAge + " is negative; pass how long segments may be kept");
        }
    }

    static void checkArgument(final String name, final long value) {
        if (value < 0) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "retention " + name + "=" + value + " is negative; nothing was deleted");
        }
    }
}
