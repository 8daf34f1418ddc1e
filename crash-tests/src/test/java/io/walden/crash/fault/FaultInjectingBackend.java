package io.walden.crash.fault;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A storage backend that does its I/O through a real one and injects one fault ({@link FaultKind}) into
 * the operation a test chooses, as the system call below the backend would report it.
 *
 * <p>From the moment the faulty operation is submitted, the session holds back every completion,
 * including the fault's own, until the test {@linkplain #release() releases} it: the test can then
 * put SYNCED waiters in place that the fault must fail. On release the fault is delivered first and
 * everything that completed meanwhile after it, in one poll where the limit allows, as a backend with
 * several operations in flight may deliver them: the log must acknowledge none of those.
 *
 * <p><b>Threading:</b> the control methods are called by the test thread; the session by the log's
 * thread; they share only the volatile and synchronised state here.
 */
final class FaultInjectingBackend implements StorageBackend {
    private final StorageBackend delegate;
    private final SplittableRandom random;
    private final CountDownLatch injected = new CountDownLatch(1);
    private final boolean splitWrites;
    // Guarded by this.
    private FaultKind armed;
    private int matchesToSkip;
    private volatile boolean released;
    private volatile String faultDescription;
    private volatile Path faultPath;
    private volatile IOException injectedFailure;
    private volatile FaultInjectingSession session;

    /**
     * Wraps a backend.
     *
     * @param delegate the backend doing the I/O.
     * @param seed seed of the choice of where a partial write stops.
     * @param splitWrites write every segment write in two parts ({@link FaultKind#DATA_WRITE_SHORT_COMPLETED}).
     */
    FaultInjectingBackend(final StorageBackend delegate, final long seed, final boolean splitWrites) {
        this.delegate = delegate;
        this.random = new SplittableRandom(seed);
        this.splitWrites = splitWrites;
    }

    @Override
    public String name() {
        return delegate.name() + "+faults";
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        final FaultInjectingSession opened = new FaultInjectingSession(
                this, delegate.open(directory, completionSignal), directory, completionSignal);
        session = opened;
        return opened;
    }

    /**
     * Arms a fault for a later operation of its target.
     *
     * @param kind the fault.
     * @param skip how many matching operations to let through first.
     */
    synchronized void arm(final FaultKind kind, final int skip) {
        armed = kind;
        matchesToSkip = skip;
    }

    /**
     * Waits until the armed fault's operation was submitted (and the session began to hold completions).
     *
     * @param timeoutNs most time to wait.
     * @return true if it was.
     * @throws InterruptedException if interrupted.
     */
    boolean awaitInjected(final long timeoutNs) throws InterruptedException {
        return injected.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /** Delivers the fault and the completions held since, and stops holding. */
    void release() {
        released = true;
        final FaultInjectingSession current = session;
        if (current != null) {
            current.wakeLog();
        }
    }

    /** @return what was injected, for messages; null before. */
    String faultDescription() {
        return faultDescription;
    }

    /** @return the file the fault hit (the directory for a directory sync); null before. */
    Path faultPath() {
        return faultPath;
    }

    /** @return the exception the fault completed with; null before, and for a short write (no exception). */
    IOException injectedFailure() {
        return injectedFailure;
    }

    /** Session: whether the operation about to be submitted is the one to fail; disarms if so. */
    synchronized FaultKind take(final FaultKind.Target target) {
        if (armed == null || armed.target() != target) {
            return null;
        }
        if (matchesToSkip > 0) {
            matchesToSkip--;
            return null;
        }
        final FaultKind kind = armed;
        armed = null;
        return kind;
    }

    /** Session: the fault's operation was submitted. */
    void onInjected(final Path path, final String description) {
        faultPath = path;
        faultDescription = description;
        injected.countDown();
    }

    /** Session: the fault's completion exists; its exception, if any. */
    void onFaultCompleted(final IOException failure) {
        injectedFailure = failure;
    }

    /** @return whether the test released the fault. */
    boolean released() {
        return released;
    }

    /** @return whether segment writes go in two parts. */
    boolean splitWrites() {
        return splitWrites;
    }

    /**
     * Where a partial write stops: a random sector boundary of the file inside the write (a block
     * boundary with direct I/O), as a file system that runs out of space stops; 0 if there is none.
     */
    synchronized int partialLength(final long fileOffset, final int lengthBytes, final int blockSizeBytes) {
        final long unit = Math.max(512, blockSizeBytes);
        final long firstBoundary = (fileOffset / unit + 1) * unit;
        final long end = fileOffset + lengthBytes;
        if (firstBoundary >= end) {
            return 0;
        }
        final long boundaries = (end - 1 - firstBoundary) / unit + 1;
        return (int) (firstBoundary + unit * random.nextLong(boundaries) - fileOffset);
    }
}
