package io.walden;

import io.walden.internal.append.AppendPath;
import io.walden.internal.append.FramePublisher;
import io.walden.internal.append.RecordLimits;
import io.walden.internal.state.AckWatch;
import io.walden.internal.state.AckWatches;
import io.walden.internal.state.LogState;
import io.walden.internal.state.WaitFailure;
import java.util.Objects;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;

/**
 * Appends records without waiting and hands back an acknowledgement for each once it reaches its
 * level, for a producer that cannot park a thread per record. Allocates nothing per record. README.md
 * ("Acknowledged without waiting") shows the use.
 *
 * <p>{@link AckHandler#acknowledged} means what a blocking {@code append} at that level returning means
 * ({@code SYNCED}: a sync that covers the record completed), in append order. A {@code SYNCED} append
 * asks for a sync without waiting; the log syncs as soon as no sync is in flight. At most {@link
 * #capacity()} acknowledgements are pending: then, or with the log buffer full, {@code append} returns
 * {@link Wal#BACK_PRESSURED} and appends nothing.
 *
 * <p>The optional ready signal runs once an acknowledgement the last {@code poll} left pending is due,
 * or the log fails or closes, and not again before the next poll. It runs on a thread of the log and
 * must only hand the poll to the producer's thread (and that poll must happen). Records appended after
 * the last poll are not watched: poll after appending.
 *
 * <p><b>Threading:</b> one thread at a time appends, polls and closes (its owner); give each producer
 * thread its own appender.
 */
public final class AsyncAppender implements AutoCloseable {
    /** Largest {@link #capacity()}: 16 B of memory per pending acknowledgement. */
    public static final int CAPACITY_MAX = 1 << 24;

    // A ring entry is two longs: the record's LSN shifted left by LEVEL_BITS with its level below, and
    // the producer's tag.
    private static final int LEVEL_BITS = 2;
    private static final long LEVEL_MASK = (1L << LEVEL_BITS) - 1;
    private static final int ENTRY_LONGS = 2;
    private static final Durability[] LEVELS = Durability.values();

    private final AppendPath appends;
    private final LogState state;
    // The log's ready signals, and this appender's entry among them (null without a signal).
    private final AckWatches watches;
    private final AckWatch watch;
    private final long[] entries;
    private final int mask;

    // Owner thread only.
    private long head;
    private long tail;
    private boolean closed;

    AsyncAppender(final AppendPath appends, final LogState state, final int capacity, final Runnable readySignal) {
        if (capacity < 1 || capacity > CAPACITY_MAX) {
            throw new IllegalArgumentException("AsyncAppender capacity " + capacity + " is outside [1, " + CAPACITY_MAX
                    + "]: give the most acknowledgements that may be pending at once (16 bytes each)");
        }
        this.appends = appends;
        this.state = state;
        final int slots = BitUtil.findNextPositivePowerOfTwo(capacity);
        this.entries = new long[slots * ENTRY_LONGS];
        this.mask = slots - 1;
        this.watches = state.ackWatches();
        this.watch = readySignal == null ? null : new AckWatch(readySignal);
        if (watch != null) {
            watches.add(watch);
        }
    }

    /**
     * Appends a record without waiting; its acknowledgement comes through {@link #poll} once it reaches
     * the level.
     *
     * @param payload holds the record.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @param durability the level the acknowledgement stands for.
     * @param tag handed back with the acknowledgement (a request id, an index into the caller's table).
     * @return the record's LSN, or {@link Wal#BACK_PRESSURED} if {@link #capacity()} acknowledgements are
     *     pending or the log buffer is full (nothing appended: poll, then try again).
     * @throws WalException if the record is larger than {@link WalConfig#maxRecordBytes()}, or the log is
     *     closed or failed (nothing appended).
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}; nothing is appended.
     * @throws IllegalStateException if this appender is closed.
     */
    public long append(
            final DirectBuffer payload,
            final int offset,
            final int length,
            final Durability durability,
            final long tag) {
        RecordLimits.checkPayload(payload);
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        return offer(payload, offset, length, durability, tag, FramePublisher.DIRECT_BUFFER, false);
    }

    /**
     * Appends a whole array as a record without waiting; see {@link #append(DirectBuffer, int, int,
     * Durability, long)}.
     *
     * @param payload the record.
     * @param durability the level the acknowledgement stands for.
     * @param tag handed back with the acknowledgement.
     * @return the record's LSN, or {@link Wal#BACK_PRESSURED}.
     * @throws WalException if the record is too large, or the log is closed or failed.
     * @throws IllegalStateException if this appender is closed.
     */
    public long append(final byte[] payload, final Durability durability, final long tag) {
        RecordLimits.checkPayload(payload);
        return offer(payload, 0, payload.length, durability, tag, FramePublisher.BYTES, false);
    }

    /**
     * As {@link #append(byte[], Durability, long)}, but waits for space in the log buffer as a blocking
     * {@code append} does (back-pressure, {@code appendTimeoutNs}): {@link Wal#BACK_PRESSURED} only while
     * {@link #capacity()} acknowledgements are pending. For {@code appendAsync}.
     */
    long appendWaitingForSpace(final byte[] payload, final Durability durability, final long tag) {
        RecordLimits.checkPayload(payload);
        return offer(payload, 0, payload.length, durability, tag, FramePublisher.BYTES, true);
    }

    private <P> long offer(
            final P payload,
            final int offset,
            final int length,
            final Durability durability,
            final long tag,
            final FramePublisher<P> publisher,
            final boolean waitForSpace) {
        Objects.requireNonNull(durability, "durability");
        if (closed) {
            throw new IllegalStateException("this AsyncAppender is closed; create another with Wal.asyncAppender");
        }
        if (tail - head > mask) {
            return Wal.BACK_PRESSURED;
        }
        final long lsn =
                appends.offer(payload, offset, length, durability == Durability.SYNCED, publisher, waitForSpace);
        if (lsn < 0) {
            return lsn;
        }
        final int index = (int) (tail & mask) * ENTRY_LONGS;
        entries[index] = lsn << LEVEL_BITS | durability.ordinal();
        entries[index + 1] = tag;
        tail++;
        return lsn;
    }

    /**
     * Delivers every acknowledgement that is due, in order, to the handler on this thread; after a
     * failure or close of the log, fails every record that did not reach its level.
     *
     * @param handler receives them.
     * @return how many records were acknowledged or failed.
     */
    public int poll(final AckHandler handler) {
        Objects.requireNonNull(handler, "handler");
        if (watch != null) {
            watch.rearm();
        }
        int count = 0;
        while (head < tail) {
            // The stop first: the positions are final once the log is marked closed or failed.
            final Throwable failure = state.failure();
            final boolean stopped = failure != null || state.isClosed();
            count += deliverDue(handler, state.writtenPosition(), state.durablePosition());
            if (head == tail) {
                break;
            }
            if (stopped) {
                return count + failRemaining(handler, failure);
            }
            if (watch == null || !watchHead()) {
                return count;
            }
        }
        if (watch != null) {
            watch.clear();
        }
        return count;
    }

    private int deliverDue(final AckHandler handler, final long writtenPosition, final long durablePosition) {
        int count = 0;
        while (head < tail) {
            final int index = (int) (head & mask) * ENTRY_LONGS;
            final long entry = entries[index];
            final long lsn = entry >>> LEVEL_BITS;
            if (lsn >= reached((int) (entry & LEVEL_MASK), writtenPosition, durablePosition)) {
                break;
            }
            head++;
            count++;
            handler.acknowledged(lsn, entries[index + 1]);
        }
        return count;
    }

    /**
     * Publishes the oldest pending acknowledgement as the watch, then reads the positions again (see
     * AckWatch); whether it became due meanwhile (or the log stopped), so that the poll goes on.
     */
    private boolean watchHead() {
        final long entry = entries[(int) (head & mask) * ENTRY_LONGS];
        final long lsn = entry >>> LEVEL_BITS;
        final int level = (int) (entry & LEVEL_MASK);
        watch.watch(lsn, level == Durability.SYNCED.ordinal());
        return lsn < reached(level, state.writtenPosition(), state.durablePosition())
                || state.failure() != null
                || state.isClosed();
    }

    private int failRemaining(final AckHandler handler, final Throwable failure) {
        final Throwable cause = failure != null
                ? failure
                : new WalException(
                        WalException.ErrorCode.CLOSED, "the log closed before the record reached its level.");
        int count = 0;
        while (head < tail) {
            final int index = (int) (head & mask) * ENTRY_LONGS;
            final long entry = entries[index];
            final long lsn = entry >>> LEVEL_BITS;
            head++;
            count++;
            handler.failed(
                    lsn, entries[index + 1], WaitFailure.forStoppedLog(cause, lsn, LEVELS[(int) (entry & LEVEL_MASK)]));
        }
        if (watch != null) {
            watch.clear();
        }
        return count;
    }

    private static long reached(final int level, final long writtenPosition, final long durablePosition) {
        if (level == Durability.SYNCED.ordinal()) {
            return durablePosition;
        }
        return level == Durability.WRITTEN.ordinal() ? writtenPosition : Long.MAX_VALUE;
    }

    /** @return acknowledgements not yet delivered by {@link #poll}. */
    public int pending() {
        return (int) (tail - head);
    }

    /** @return the most acknowledgements that may be pending (the capacity asked for, rounded up to a power of two). */
    public int capacity() {
        return mask + 1;
    }

    /**
     * Stops the ready signal and refuses further appends. Pending acknowledgements stay: {@link #poll}
     * still delivers them. Does not close the log. Idempotent.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (watch != null) {
                watches.remove(watch);
            }
        }
    }
}
