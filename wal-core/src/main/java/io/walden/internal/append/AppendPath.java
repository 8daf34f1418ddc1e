package io.walden.internal.append;

import io.walden.Durability;
import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.codec.EncodeSlot;
import io.walden.internal.codec.RecordEncoding;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import java.util.Objects;
import org.agrona.DirectBuffer;

/**
 * Appends records. Every kind of payload, batches and asynchronous appends go through the one claim
 * loop of {@link #appendFramed}; a claim that finds its engine replaced by {@code truncateAfter}
 * claims again in the next one; {@link #offer} appends without waiting for a level (the asynchronous
 * appenders). With compression, a record (or a batch's records) is encoded first, in the appending
 * thread, and claimed at its stored size ({@link RecordEncoding}). Allocates nothing but on failure.
 *
 * <pre>
 *   check ──► encode? (RecordEncoding: a slot, released once published)
 *         ──► claim (BufferClaim; CLOSED: replaced? claim again : refuse) ──► sync ticket
 *         ──► publish (FramePublisher) ──► wait (AppendWaits), or not (offer: an AsyncAppender)
 * </pre>
 *
 * <p><b>Threading:</b> immutable; called by any appending thread.
 */
public final class AppendPath {
    /** {@link #tryAppend} result: the log failed and accepts nothing more. */
    public static final long FAILED = -3;

    /** Claim result inside this class: the engine was replaced by truncateAfter; claim again. */
    private static final long REPLACED = -4;

    private final EngineHolder holder;
    private final LogState state;
    private final BufferClaim bufferClaim;
    private final AppendWaits waits;
    private final RecordLimits limits;
    // Null without compression.
    private final RecordEncoding encoding;

    public AppendPath(
            final EngineHolder holder,
            final BufferClaim bufferClaim,
            final AppendWaits waits,
            final RecordLimits limits,
            final RecordEncoding encoding) {
        this.holder = holder;
        this.state = holder.state();
        this.bufferClaim = bufferClaim;
        this.waits = waits;
        this.limits = limits;
        this.encoding = encoding;
    }

    /** The caller has checked that the region lies inside the payload. */
    public <P> long append(
            final P payload,
            final int offset,
            final int length,
            final Durability durability,
            final FramePublisher<P> publisher) {
        limits.checkLength(length);
        RecordLimits.checkDurability(durability);
        if (encoding != null && encoding.tries(length)) {
            final EncodeSlot slot = encoding.encode(payload, offset, length, true);
            if (slot != null) {
                final int stored = slot.storedLength(0);
                return appendFramed(slot, 0, stored, framedBytes(stored), FramePublisher.ENCODED, durability);
            }
        }
        return appendFramed(payload, offset, length, framedBytes(length), publisher, durability);
    }

    /** Refuses a batch, or a level, before anything is claimed. */
    public int checkBatch(final WalBatch batch, final Durability durability) {
        RecordLimits.checkDurability(durability);
        return limits.checkBatch(batch);
    }

    /**
     * Appends a checked batch of more than one record as one unit, and waits until its last record
     * reaches a level. A failure after the batch entered the log names the batch's first LSN.
     */
    public long appendBatch(
            final WalBatch batch,
            final int framedBytes,
            final Durability durability,
            final FramePublisher<WalBatch> frames,
            final FramePublisher<EncodeSlot> encodedFrames) {
        try {
            if (encoding != null && encoding.tries(batch)) {
                final EncodeSlot slot = encoding.encode(batch, framedBytes);
                if (slot != null) {
                    return appendFramed(slot, 0, 0, (int) slot.framedBytes(), encodedFrames, durability);
                }
            }
            return appendFramed(batch, 0, 0, framedBytes, frames, durability);
        } catch (final WalException ex) {
            if (ex.lsn() != WalException.NO_LSN) {
                final long lsn = batch.lsn(0);
                final long lastLsn = batch.lsn(batch.size() - 1);
                if (ex.lsn() == lastLsn && lastLsn != lsn) {
                    throw new WalException(
                            ex.errorCode(),
                            ex.getMessage() + " (the record at LSN " + lastLsn + " is the last of a batch of "
                                    + batch.size() + " records that starts at LSN " + lsn + ")",
                            ex.getCause(),
                            lsn);
                }
            }
            throw ex;
        }
    }

    public long tryAppend(final DirectBuffer payload, final int offset, final int length) {
        limits.checkLength(length);
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        // Never waits, for an encoder either: with every one busy, the record is stored as given.
        final EncodeSlot slot =
                encoding != null && encoding.tries(length) ? encoding.encode(payload, offset, length, false) : null;
        if (slot != null) {
            try {
                return publishIfSpace(slot, 0, slot.storedLength(0), false, FramePublisher.ENCODED);
            } finally {
                slot.release();
            }
        }
        return publishIfSpace(payload, offset, length, false, FramePublisher.DIRECT_BUFFER);
    }

    /**
     * Appends a record without waiting for its level (for space only with {@code waitForSpace}), and asks
     * for a sync without counting a waiter if {@code requestSync}: the LSN, or {@link
     * LogBuffer#BACK_PRESSURED}; a closed or failed log throws.
     */
    public <P> long offer(
            final P payload,
            final int offset,
            final int length,
            final boolean requestSync,
            final FramePublisher<P> publisher,
            final boolean waitForSpace) {
        limits.checkLength(length);
        final EncodeSlot slot = encoding != null && encoding.tries(length)
                ? encoding.encode(payload, offset, length, waitForSpace)
                : null;
        if (slot != null) {
            try {
                return offerStored(slot, 0, slot.storedLength(0), requestSync, FramePublisher.ENCODED, waitForSpace);
            } finally {
                slot.release();
            }
        }
        return offerStored(payload, offset, length, requestSync, publisher, waitForSpace);
    }

    /** {@link #offer} of a record as it is stored. */
    private <P> long offerStored(
            final P payload,
            final int offset,
            final int length,
            final boolean requestSync,
            final FramePublisher<P> publisher,
            final boolean waitForSpace) {
        if (!waitForSpace) {
            final long lsn = publishIfSpace(payload, offset, length, requestSync, publisher);
            if (lsn == FAILED || lsn == LogBuffer.CLOSED) {
                throw holder.closedException();
            }
            return lsn;
        }
        final int framedBytes = framedBytes(length);
        LogEngine e;
        long lsn;
        while ((lsn = claim(e = holder.engine(), framedBytes)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        return publish(e, lsn, payload, offset, length, requestSync, publisher);
    }

    /** Claims without waiting: the LSN, or {@link LogBuffer#BACK_PRESSURED}, {@link LogBuffer#CLOSED} or {@link #FAILED}. */
    private <P> long publishIfSpace(
            final P payload,
            final int offset,
            final int length,
            final boolean requestSync,
            final FramePublisher<P> publisher) {
        final LogEngine e = holder.engine();
        final long lsn = e.logBuffer().claim(framedBytes(length));
        if (lsn < 0) {
            if (lsn == LogBuffer.CLOSED && state.failure() != null) {
                return FAILED;
            }
            // Claims stop while truncateAfter replaces the engine: space is coming, as after back pressure.
            return lsn == LogBuffer.CLOSED && !holder.isClosed() ? LogBuffer.BACK_PRESSURED : lsn;
        }
        return publish(e, lsn, payload, offset, length, requestSync, publisher);
    }

    /** Publishes a claimed frame, asks for its sync if told to, and wakes a parked I/O thread. */
    private <P> long publish(
            final LogEngine e,
            final long lsn,
            final P payload,
            final int offset,
            final int length,
            final boolean requestSync,
            final FramePublisher<P> publisher) {
        publisher.publish(e.logBuffer(), lsn, payload, offset, length);
        if (requestSync) {
            state.requestSync(lsn + 1);
        }
        e.agent().wakeIfParked();
        return lsn;
    }

    private <P> long appendFramed(
            final P payload,
            final int offset,
            final int length,
            final int framedBytes,
            final FramePublisher<P> publisher,
            final Durability durability) {
        LogEngine e;
        long lsn;
        final long syncTicket;
        final long lastLsn;
        try {
            while ((lsn = claim(e = holder.engine(), framedBytes)) == REPLACED) {
                // truncateAfter replaced the engine meanwhile: claim in the next one.
            }
            syncTicket = waits.syncTicket(durability);
            lastLsn = publisher.publish(e.logBuffer(), lsn, payload, offset, length);
        } finally {
            if (payload instanceof EncodeSlot slot) {
                // Published or refused: the encoder is free for another appender before this one waits.
                slot.release();
            }
        }
        waits.awaitAppended(e, lastLsn, lsn + framedBytes, durability, syncTicket);
        return lsn;
    }

    /** {@link #REPLACED} if truncateAfter replaced the engine meanwhile. */
    private long claim(final LogEngine e, final int framedBytes) {
        final long lsn = bufferClaim.claim(e.logBuffer(), e.wake(), framedBytes);
        if (lsn == LogBuffer.CLOSED) {
            if (holder.replacedAfter(e)) {
                return REPLACED;
            }
            throw holder.closedException();
        }
        return lsn;
    }

    private static int framedBytes(final int length) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
    }
}
