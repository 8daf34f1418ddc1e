package io.walden.internal.codec;

import io.walden.WalBatch;
import io.walden.codec.Compression;
import io.walden.codec.RecordCodec;
import io.walden.format.FrameDescriptor;
import io.walden.internal.state.CompressionTally;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * A log's compression on the append path: a bounded pool of {@link EncodeSlot}s that appending
 * threads take one at a time, encode into before they claim space, and give back once their frames
 * are published.
 *
 * <pre>
 *   append ──► length &lt; threshold? stored as given
 *          ──► acquire a slot (every slot busy: spin, yield, then park 1 us at a time)
 *          ──► encode; smaller framed? claim the encoded size, publish from the slot : as given
 *          ──► release the slot ──► wait for the level (the slot is free meanwhile)
 * </pre>
 *
 * <p><b>Threading:</b> thread-safe; each slot is owned by one appender at a time.
 */
public final class RecordEncoding implements AutoCloseable, CompressionTally {
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);

    private final RecordCodec codec;
    private final int thresholdBytes;
    private final int outputLimitBytes;
    private final ManyToManyConcurrentArrayQueue<EncodeSlot> free;
    private final EncodeSlot[] slots;
    private volatile boolean closed;

    /**
     */
    public RecordEncoding(final Compression compression, final int maxFramedBytes) {
        this.codec = compression.codec();
        this.thresholdBytes = compression.thresholdBytes();
        this.outputLimitBytes = outputLimitBytes(codec, maxFramedBytes);
        // Agrona's queue holds at least two.
        this.free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, compression.encoders()));
        this.slots = new EncodeSlot[compression.encoders()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new EncodeSlot(this, codec, thresholdBytes, maxFramedBytes);
            free.offer(slots[i]);
        }
    }

    /** The largest output a slot holds: the codec's bound for the largest input, with room for a header per record. */
    static int outputLimitBytes(final RecordCodec codec, final int maxFramedBytes) {
        return (int) Math.min(Integer.MAX_VALUE - 8, (long) codec.maxEncodedLength(maxFramedBytes) + 64L * 1024);
    }

    /**
     */
    public boolean tries(final int length) {
        return length >= thresholdBytes;
    }

    /**
     */
    public boolean tries(final WalBatch batch) {
        for (int i = 0, size = batch.size(); i < size; i++) {
            if (batch.length(i) >= thresholdBytes) {
                return true;
            }
        }
        return false;
    }

    /**
     * Encodes one record in a slot.
     */
    public EncodeSlot encode(final Object payload, final int offset, final int length, final boolean wait) {
        final EncodeSlot slot = wait ? acquire() : free.poll();
        if (slot == null) {
            return null;
        }
        slot.hold();
        boolean kept = false;
        try {
            kept = slot.encode(payload, offset, length);
        } finally {
            if (!kept) {
                slot.release();
            }
        }
        return kept ? slot : null;
    }

    /**
     * Encodes the records of a batch in a slot.
     */
    public EncodeSlot encode(final WalBatch batch, final long framedBytes) {
        final EncodeSlot slot = acquire();
        if (slot == null) {
            return null;
        }
        slot.hold();
        boolean kept = false;
        try {
            kept = slot.encode(batch) < framedBytes;
        } finally {
            if (!kept) {
                slot.release();
            }
        }
        return kept ? slot : null;
    }

    /** The codec. */
    public RecordCodec codec() {
        return codec;
    }

    @Override
    public long recordsCompressed() {
        long sum = 0;
        for (final EncodeSlot slot : slots) {
            sum += slot.recordsCompressed();
        }
        return sum;
    }

    @Override
    public long compressedInputBytes() {
        long sum = 0;
        for (final EncodeSlot slot : slots) {
            sum += slot.compressedInputBytes();
        }
        return sum;
    }

    @Override
    public long compressedStoredBytes() {
        long sum = 0;
        for (final EncodeSlot slot : slots) {
            sum += slot.compressedStoredBytes();
        }
        return sum;
    }

    int maxEncodedLength(final int length) {
        return codec.maxEncodedLength(length);
    }

    int outputLimitBytes() {
        return outputLimitBytes;
    }

    void release(final EncodeSlot slot) {
        if (!free.offer(slot)) {
            throw new IllegalStateException("an encoder was given back twice");
        }
        if (closed) {
            freeIdleSlots();
        }
    }

    /**
     * Frees the slots no appender holds, and each other one as it is given back: an appender that was
     * encoding when the log closed finishes with its slot (its claim is refused) before the slot's memory
     * goes.
     */
    @Override
    public void close() {
        closed = true;
        freeIdleSlots();
    }

    private void freeIdleSlots() {
        EncodeSlot slot;
        while ((slot = free.poll()) != null) {
            slot.close();
        }
    }

    /** A slot, waiting while all are busy; null once the log closed (the record is then stored as given). */
    private EncodeSlot acquire() {
        EncodeSlot slot;
        int idle = 0;
        while ((slot = free.poll()) == null) {
            if (closed) {
                return null;
            }
            if (idle < SPINS) {
                Thread.onSpinWait();
                idle++;
            } else if (idle < SPINS + YIELDS) {
                Thread.yield();
                idle++;
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
        return slot;
    }

    /** The frame flags of the codec. */
    public short codecFlags() {
        return FrameDescriptor.codecFlags(codec.id());
    }
}
