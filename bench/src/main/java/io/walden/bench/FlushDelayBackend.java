package io.walden.bench;

import io.walden.spi.CompletionHandler;
import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A storage backend whose data syncs take at least a fixed time, as on storage where a flush is slow
 * (cloud block storage, a remote disk): the emulated high-latency disk of issue 27's bar. A sync
 * handed to the backend's own thread completes no sooner than the delay after its submission (its
 * completion is held back in {@link #poll}); a sync run on the caller's thread returns no sooner.
 * Where every write is durable by itself (O_DSYNC) each write is this storage's flush, and is held
 * back the same way. Every held operation runs its delay independently of the others: the storage
 * takes any number of flushes at once, each as slow as one alone (a deep queue, as cloud block storage
 * has). Other writes, directory syncs and everything else pass through.
 *
 * <p>A real device under the delay still serialises its own flushes, so {@code +flush} on an O_DSYNC
 * backend measures this disk's queue plus the delay. The <b>deep-queue</b> form ({@code
 * <backend>+deepflush<N>us}, over a backend without O_DSYNC) emulates the storage alone: the session
 * says its writes are durable and that it overlaps up to {@link #DEEP_QUEUE_WRITES} of them, and each
 * write completes N us after its submission, independently of the others, while the bytes go to the
 * page cache. It lies about durability: for measuring the log's pipelining only, never for data.
 *
 * <p><b>Threading:</b> sessions follow the {@link StorageSession} rules.
 */
public final class FlushDelayBackend implements StorageBackend {
    /** Writes the deep-queue form says it overlaps. */
    public static final int DEEP_QUEUE_WRITES = 64;

    private final StorageBackend delegate;
    private final long flushDelayNs;
    private final boolean deepQueue;

    /**
     * Creates the backend.
     *
     * @param delegate the backend that does the I/O.
     * @param flushDelayNs the least time a data sync takes.
     */
    public FlushDelayBackend(final StorageBackend delegate, final long flushDelayNs) {
        this(delegate, flushDelayNs, false);
    }

    /**
     * Creates the backend, or its deep-queue form (see the class comment).
     *
     * @param delegate the backend that does the I/O; without O_DSYNC for the deep-queue form.
     * @param flushDelayNs the least time a data sync, or a write of the deep-queue form, takes.
     * @param deepQueue whether writes are the flushes, each overlapping the others.
     */
    public FlushDelayBackend(final StorageBackend delegate, final long flushDelayNs, final boolean deepQueue) {
        this.delegate = delegate;
        this.flushDelayNs = flushDelayNs;
        this.deepQueue = deepQueue;
    }

    @Override
    public String name() {
        return delegate.name() + (deepQueue ? "+deepflush" : "+flush") + flushDelayNs / 1000 + "us";
    }

    @Override
    public StorageSession open(final Path logDirectory, final Runnable completionSignal) throws IOException {
        final StorageSession session = delegate.open(logDirectory, completionSignal);
        if (deepQueue && session.capabilities().writesDurable()) {
            session.close();
            throw new IOException(
                    "the deep-queue flush emulation needs a backend without O_DSYNC, not " + delegate.name());
        }
        return new Session(session, flushDelayNs, completionSignal, deepQueue);
    }

    /** Wakes a log whose held sync completion has become due (the log may be parked meanwhile). */
    private static final ScheduledExecutorService WAKER = Executors.newSingleThreadScheduledExecutor(task -> {
        final Thread thread = new Thread(task, "walden-bench-flush-delay");
        thread.setDaemon(true);
        return thread;
    });

    /** Holds back sync completions until their delay has passed. Owned by the session's thread. */
    private static final class Session extends ForwardingStorageSession {
        private final long flushDelayNs;
        private final Runnable completionSignal;
        private final StorageCapabilities capabilities;
        // Tokens of syncs in flight with the time each may complete, in submission order.
        private final ArrayDeque<long[]> syncsInFlight = new ArrayDeque<>();
        // Completions of syncs that came back early: token, result, failure, kept until due.
        private final ArrayDeque<Object[]> held = new ArrayDeque<>();

        Session(
                final StorageSession delegate,
                final long flushDelayNs,
                final Runnable completionSignal,
                final boolean deepQueue) {
            super(delegate);
            this.flushDelayNs = flushDelayNs;
            this.completionSignal = completionSignal;
            final StorageCapabilities backend = delegate.capabilities();
            this.capabilities =
                    deepQueue ? backend.withWritesDurable(true).withOverlappingWritesMax(DEEP_QUEUE_WRITES) : backend;
        }

        /** The delegate's; in the deep-queue form, durable writes, {@link #DEEP_QUEUE_WRITES} at once. */
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
            if (capabilities.writesDurable()) {
                syncsInFlight.add(new long[] {token, System.nanoTime() + flushDelayNs});
            }
            super.submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
        }

        @Override
        public void submitSync(final int fileHandle, final long token) {
            syncsInFlight.add(new long[] {token, System.nanoTime() + flushDelayNs});
            super.submitSync(fileHandle, token);
        }

        @Override
        public void submitSyncOnCaller(final int fileHandle, final long token) {
            // The caller waits for the flush itself, then the sync runs as it would.
            final long dueNs = System.nanoTime() + flushDelayNs;
            for (long waitNs = flushDelayNs; waitNs > 0; waitNs = dueNs - System.nanoTime()) {
                LockSupport.parkNanos(waitNs);
            }
            super.submitSyncOnCaller(fileHandle, token);
        }

        @Override
        public int poll(final CompletionHandler handler, final int limit) {
            int delivered = deliverDue(handler, limit);
            if (delivered < limit) {
                delivered += super.poll(
                        (token, result, failure) -> {
                            final long waitNs = dueNs(token) - System.nanoTime();
                            if (waitNs > 0) {
                                held.add(new Object[] {token, result, failure});
                                WAKER.schedule(completionSignal, waitNs, TimeUnit.NANOSECONDS);
                            } else {
                                syncDone(token);
                                handler.onCompletion(token, result, failure);
                            }
                        },
                        limit - delivered);
            }
            return delivered;
        }

        @Override
        public int inFlight() {
            return super.inFlight() + held.size();
        }

        private int deliverDue(final CompletionHandler handler, final int limit) {
            int delivered = 0;
            while (delivered < limit && !held.isEmpty()) {
                final Object[] completion = held.peek();
                final long token = (long) completion[0];
                final long waitNs = dueNs(token) - System.nanoTime();
                if (waitNs > 0) {
                    // Not yet: the waker signals the log when it is due.
                    break;
                }
                held.poll();
                syncDone(token);
                handler.onCompletion(token, (long) completion[1], (IOException) completion[2]);
                delivered++;
            }
            return delivered;
        }

        /** When the sync with a token may complete; 0 for any other operation. */
        private long dueNs(final long token) {
            for (final long[] sync : syncsInFlight) {
                if (sync[0] == token) {
                    return sync[1];
                }
            }
            return 0;
        }

        private void syncDone(final long token) {
            syncsInFlight.removeIf(sync -> sync[0] == token);
        }
    }
}
