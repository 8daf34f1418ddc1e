package io.walden;

import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend for tests that wraps a real one and interrupts a chosen appender thread inside its own
 * I/O: when that thread calls {@link StorageSession#submitWrite}, {@link
 * StorageSession#submitWriteOnCaller} or {@link StorageSession#submitSyncOnCaller} (which, once the log
 * is open, it does only while it runs its record's I/O itself), one call in {@code oneIn} first sets
 * the thread's interrupt flag, so the real operation runs on an interrupted thread (a {@code
 * FileChannel} is then closed under it). The interrupt lands exactly where the test needs it, whatever
 * the machine's load.
 *
 * <p><b>Threading:</b> the session is used as the SPI requires; the counters may be read from any
 * thread.
 */
final class CallerInterruptingBackend implements StorageBackend {
    private final StorageBackend delegate;
    private final Thread target;
    private final int oneIn;
    private final SplittableRandom random;
    private final AtomicLong callerOperations = new AtomicLong();
    private final AtomicLong interrupts = new AtomicLong();
    private volatile boolean armed;

    /**
     * Wraps a backend.
     *
     * @param delegate the backend that does the I/O.
     * @param target the appender to interrupt.
     * @param oneIn interrupt one in this many of its own writes and syncs.
     * @param seed seeds the choice.
     */
    CallerInterruptingBackend(final StorageBackend delegate, final Thread target, final int oneIn, final long seed) {
        this.delegate = delegate;
        this.target = target;
        this.oneIn = oneIn;
        this.random = new SplittableRandom(seed);
    }

    /** Starts interrupting (after the log is open, so that only appends are interrupted). */
    void arm() {
        armed = true;
    }

    /** @return writes and on-caller writes and syncs the target ran itself since {@link #arm}. */
    long callerOperations() {
        return callerOperations.get();
    }

    /** @return interrupts set inside them. */
    long interrupts() {
        return interrupts.get();
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        return new Session(delegate.open(directory, completionSignal));
    }

    private void maybeInterrupt() {
        if (!armed || Thread.currentThread() != target) {
            return;
        }
        callerOperations.incrementAndGet();
        // Only the target thread draws, so the random needs no lock.
        if (random.nextInt(oneIn) == 0) {
            interrupts.incrementAndGet();
            target.interrupt();
        }
    }

    private final class Session extends ForwardingStorageSession {
        Session(final StorageSession session) {
            super(session);
        }

        @Override
        public void submitWrite(
                final int fileHandle,
                final long fileOffset,
                final ByteBuffer source,
                final int sourceOffset,
                final int lengthBytes,
                final long token) {
            maybeInterrupt();
            super.submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
        }

        /** Passes the write on to the backend's own on-caller path, which is what is under test. */
        @Override
        public void submitWriteOnCaller(
                final int fileHandle,
                final long fileOffset,
                final ByteBuffer source,
                final int sourceOffset,
                final int lengthBytes,
                final long token) {
            maybeInterrupt();
            delegate().submitWriteOnCaller(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
        }

        @Override
        public void submitSyncOnCaller(final int fileHandle, final long token) {
            maybeInterrupt();
            super.submitSyncOnCaller(fileHandle, token);
        }
    }
}
