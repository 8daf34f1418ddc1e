package io.walden.bench;

import io.walden.spi.CompletionHandler;
import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A session of {@link ThrottledStorageBackend}. Every operation is submitted to the delegate under a
 * slot token of this session's own, so completions are matched to their kind whatever tokens the log
 * uses. A write completion is held in a FIFO with a due time from a virtual disk clock ({@code due =
 * max(now, previous due) + bytes / rate}) and delivered by {@link #poll} once due; other completions
 * are delivered at once. A signal thread runs the log's completion signal when the earliest held
 * completion falls due, so the log's I/O thread is never blocked: it simply finds nothing to poll
 * until then.
 *
 * <pre>
 *   submit --> delegate (slot token) --> poll: writes --> held FIFO (due time) --> handler when due
 *                                               others --> handler
 * </pre>
 *
 * <p>Allocation-free after construction.
 *
 * <p><b>Threading:</b> the {@link StorageSession} methods are called by one thread at a time (the
 * log's); the signal thread reads only {@link #earliestDueNs} and the backend's throttle flag.
 */
final class ThrottledStorageSession extends ForwardingStorageSession implements CompletionHandler {
    private static final long SIGNAL_IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SIGNAL_REPEAT_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final long NONE = Long.MAX_VALUE;

    private final ThrottledStorageBackend backend;
    private final Runnable completionSignal;
    private final StorageCapabilities capabilities;
    private final Thread signalThread;

    // Slots: one per operation in flight, owned by the log's thread.
    private final long[] slotTokens;
    private final int[] slotWriteLengths;
    private final int[] freeSlots;
    private int freeSlotCount;

    // Held write completions, a FIFO ring, owned by the log's thread.
    private final long[] heldTokens;
    private final long[] heldResults;
    private final IOException[] heldFailures;
    private final long[] heldDueNs;
    private final int heldMask;
    private long heldHead;
    private long heldTail;
    private long diskFreeNs;

    // Per poll call.
    private CompletionHandler target;
    private int delivered;

    // Shared with the signal thread.
    private volatile long earliestDueNs = NONE;
    private volatile boolean running = true;

    ThrottledStorageSession(
            final StorageSession delegate, final ThrottledStorageBackend backend, final Runnable completionSignal) {
        super(delegate);
        this.backend = backend;
        this.completionSignal = completionSignal;
        this.capabilities = delegate.capabilities().withCallerMayRunIo(false).withCompletionThreadMayRunIo(false);
        final int slotCount = capabilities.maxInFlight();
        this.slotTokens = new long[slotCount];
        this.slotWriteLengths = new int[slotCount];
        this.freeSlots = new int[slotCount];
        for (int i = 0; i < slotCount; i++) {
            freeSlots[i] = slotCount - 1 - i;
        }
        this.freeSlotCount = slotCount;
        final int heldCapacity = Integer.highestOneBit(slotCount) << 1;
        this.heldTokens = new long[heldCapacity];
        this.heldResults = new long[heldCapacity];
        this.heldFailures = new IOException[heldCapacity];
        this.heldDueNs = new long[heldCapacity];
        this.heldMask = heldCapacity - 1;
        this.signalThread = new Thread(this::runSignalThread, "throttle-signal");
        signalThread.setDaemon(true);
        signalThread.start();
    }

    /**
     * As the delegate's, but only the log's I/O thread runs operations: neither appenders nor a
     * completion thread (the signal thread only signals that a held completion is due).
     */
    @Override
    public StorageCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final int slot = takeSlot(token, lengthBytes);
        delegate().submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, slot);
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        delegate().submitSync(fileHandle, takeSlot(token, -1));
    }

    /** Goes through {@link #submitSync}: every operation takes a slot. */
    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        submitSync(fileHandle, token);
    }

    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        delegate().submitAllocate(fileHandle, fileOffset, lengthBytes, takeSlot(token, -1));
    }

    @Override
    public void submitSyncDirectory(final long token) {
        delegate().submitSyncDirectory(takeSlot(token, -1));
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        delegate().submitRename(source, target, takeSlot(token, -1));
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        delegate().submitDelete(path, takeSlot(token, -1));
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        target = handler;
        delivered = 0;
        try {
            delegate().poll(this, limit);
            final boolean throttled = backend.throttled();
            final long nowNs = System.nanoTime();
            while (delivered < limit && heldHead < heldTail) {
                final int index = (int) (heldHead & heldMask);
                if (throttled && heldDueNs[index] > nowNs) {
                    break;
                }
                final long token = heldTokens[index];
                final long result = heldResults[index];
                final IOException failure = heldFailures[index];
                heldFailures[index] = null;
                heldHead++;
                delivered++;
                backend.addBytesCompleted(Math.max(0, result));
                handler.onCompletion(token, result, failure);
            }
            earliestDueNs = heldHead < heldTail ? heldDueNs[(int) (heldHead & heldMask)] : NONE;
            return delivered;
        } finally {
            target = null;
        }
    }

    /** A completion from the delegate, during {@link #poll}. */
    @Override
    public void onCompletion(final long slotToken, final long result, final IOException failure) {
        final int slot = (int) slotToken;
        final long token = slotTokens[slot];
        final int writeLength = slotWriteLengths[slot];
        freeSlots[freeSlotCount++] = slot;
        if (writeLength < 0) {
            delivered++;
            target.onCompletion(token, result, failure);
            return;
        }
        if (heldTail - heldHead > heldMask) {
            throw new IllegalStateException("more held completions than operations in flight");
        }
        final long nowNs = System.nanoTime();
        final long dueNs;
        if (backend.throttled()) {
            // The simulated disk writes one request after the other, starting when it is free.
            final long costNs = (long) (writeLength * 1e9 / backend.bytesPerSecond());
            diskFreeNs = Math.max(nowNs, diskFreeNs) + costNs;
            dueNs = diskFreeNs;
        } else {
            diskFreeNs = nowNs;
            dueNs = nowNs;
        }
        final int index = (int) (heldTail & heldMask);
        heldTokens[index] = token;
        heldResults[index] = result;
        heldFailures[index] = failure;
        heldDueNs[index] = dueNs;
        heldTail++;
    }

    @Override
    public int inFlight() {
        return delegate().inFlight() + (int) (heldTail - heldHead);
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(signalThread);
        boolean interrupted = false;
        while (signalThread.isAlive()) {
            try {
                signalThread.join();
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        delegate().close();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private int takeSlot(final long token, final int writeLength) {
        if (freeSlotCount == 0) {
            throw new IllegalStateException("more than " + slotTokens.length + " storage operations in flight");
        }
        final int slot = freeSlots[--freeSlotCount];
        slotTokens[slot] = token;
        slotWriteLengths[slot] = writeLength;
        return slot;
    }

    private void runSignalThread() {
        long lastSignalledDueNs = NONE;
        while (running) {
            final long dueNs = earliestDueNs;
            if (dueNs == NONE) {
                LockSupport.parkNanos(this, SIGNAL_IDLE_PARK_NS);
                continue;
            }
            final long waitNs = backend.throttled() ? dueNs - System.nanoTime() : 0;
            if (waitNs > 0) {
                LockSupport.parkNanos(this, Math.min(waitNs, SIGNAL_IDLE_PARK_NS));
            } else if (dueNs != lastSignalledDueNs) {
                lastSignalledDueNs = dueNs;
                completionSignal.run();
            } else {
                // Signalled already; the log will poll soon. Look again shortly in case it missed it.
                LockSupport.parkNanos(this, SIGNAL_REPEAT_PARK_NS);
                lastSignalledDueNs = NONE;
            }
        }
    }
}
