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
 * level, for a producer that cannot park a thread per record (an event loop, a broker's request
 * thread). Allocates nothing per record.
 *
 * <pre>{@code
 * AsyncAppender appender = wal.asyncAppender(4096, () -> eventLoop.execute(pollTask));
 * // on the event loop, for each request:
 * long lsn = appender.append(request.payload(), 0, length, Durability.SYNCED, request.id());
 * if (lsn == Wal.BACK_PRESSURED) { ... poll, then try again ... }
 * // at the end of each turn of the loop, and when the ready signal asks:
 * appender.poll(handler); // handler.acknowledged(lsn, requestId) -> send the reply
 * }</pre>
 *
 * <p><b>What an acknowledgement means.</b> {@link AckHandler#acknowledged} for a record appended with
 * {@link Durability#SYNCED} comes only after a sync that covers the record completed, for {@link
 * Durability#WRITTEN} after its write; exactly what a blocking {@code append} at that level returning
 * means. Acknowledgements come in the order of the appends, so a record's acknowledgement also says
 * that every earlier record of this appender reached its own level. If the log fails or closes first,
 * {@link AckHandler#failed} says so, with the exception a blocking append would have thrown.
 *
 * <p><b>Group commit.</b> A {@code SYNCED} append asks for a sync without waiting for it; the log syncs
 * as soon as no sync is in flight, covering everything written by then, so under a continuous load
 * each sync takes all the records written during the one before (no waiter count is needed).
 *
 * <p><b>Back-pressure.</b> At most {@link #capacity()} acknowledgements are pending: when full, or when
 * the log buffer is full, {@code append} returns {@link Wal#BACK_PRESSURED} and appends nothing; poll
 * and try again. A slow handler thus slows only its own producer.
 *
 * <p><b>The ready signal</b> (optional) is for a producer that sleeps between turns: once an
 * acknowledgement that the last {@code poll} left pending is due, or the log fails or closes, the log
 * runs the signal once; it then runs again only after the next {@code poll}. It runs on the log's I/O
 * thread (or an appender thread that runs the log's I/O), so it must be short and must not block or
 * call into the log: hand the poll to the producer's own thread (for example {@code
 * executor.execute(pollTask)}) and make sure that poll happens. Records appended after the last poll
 * are not watched: poll after appending (at the end of each turn).
 *
 * <p><b>Threading:</b> one thread at a time appends and polls (its owner); a service with several
 * producer threads gives each its own appender. {@link #close} from the owner.
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
        return offer(payload, offset, length, durability, tag, FramePublisher.DIRECT_BUFFER);
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
        return offer(payload, 0, payload.length, durability, tag, FramePublisher.BYTES);
    }

    private <P> long offer(
            final P payload,
            final int offset,
            final int length,
            final Durability durability,
            final long tag,
            final FramePublisher<P> publisher) {
        Objects.requireNonNull(durability, "durability");
        if (closed) {
            throw new IllegalStateException("this AsyncAppender is closed; create another with Wal.asyncAppender");
        }
        if (tail - head > mask) {
            return Wal.BACK_PRESSURED;
        }
        final long lsn = appends.offer(payload, offset, length, durability == Durability.SYNCED, publisher);
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
