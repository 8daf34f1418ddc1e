package io.walden.bench;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A storage backend that makes another one look slow: each write's completion is held back until a
 * byte budget of {@code bytesPerSecond} allows it, as if the disk wrote at that rate. The bytes do
 * reach the delegate at once; only the acknowledgement is late, which is what the log sees of a slow
 * disk. Other operations (syncs, renames, deletes) pass through unchanged.
 *
 * <p>Throttling starts off, so that opening a log (which prepares its first segment synchronously)
 * is not slowed down, and can be turned on and off at any time with {@link #throttled(boolean)}.
 *
 * <p><b>Threading:</b> thread-safe. Sessions follow the {@link StorageSession} rules.
 */
final class ThrottledStorageBackend implements StorageBackend {
    private final StorageBackend delegate;
    private final long bytesPerSecond;
    private volatile boolean throttled;
    private volatile long bytesCompleted;

    /**
     * Creates the backend.
     *
     * @param delegate the backend that does the I/O.
     * @param bytesPerSecond the simulated disk's write rate.
     */
    ThrottledStorageBackend(final StorageBackend delegate, final long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be positive: " + bytesPerSecond);
        }
        this.delegate = delegate;
        this.bytesPerSecond = bytesPerSecond;
    }

    @Override
    public String name() {
        return delegate.name() + "-throttled";
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        return new ThrottledStorageSession(delegate.open(directory, completionSignal), this, completionSignal);
    }

    /**
     * Turns throttling on or off for every session.
     *
     * @param on true to hold write completions to the rate.
     */
    void throttled(final boolean on) {
        throttled = on;
    }

    boolean throttled() {
        return throttled;
    }

    long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** @return bytes of write completions delivered to the log by every session. */
    long bytesCompleted() {
        return bytesCompleted;
    }

    void addBytesCompleted(final long bytes) {
        // Sessions deliver completions on their log's I/O thread; one log per backend here.
        bytesCompleted = bytesCompleted + bytes;
    }
}
