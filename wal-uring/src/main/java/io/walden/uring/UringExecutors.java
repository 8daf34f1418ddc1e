package io.walden.uring;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import one.jasyncfio.AsyncFile;
import one.jasyncfio.EventExecutor;
import one.jasyncfio.OpenOption;

/**
 * Owns the one jasyncfio event loop that every io_uring log in this JVM shares.
 *
 * <p>Why one, never closed: in jasyncfio 0.0.7 a closed executor's loop keeps re-processing its
 * eventfd completion in {@code drain()} and spins forever at full CPU, so opening and closing logs
 * would leak a spinning thread each time. One shared loop bounds the threads to one per JVM.
 *
 * <p>Why built on a daemon thread: jasyncfio starts its event-loop thread, and the scavenger
 * threads of the object pools in {@code Command} and {@code IntegerAsyncResultProvider} (created
 * when those classes initialize), as children of the current thread, and a thread inherits its
 * daemon status from its creator. A non-daemon loop or scavenger keeps the JVM from exiting, so
 * the loop is built, and one file opened and closed to initialize those classes, on a short-lived
 * daemon thread.
 *
 * <p>The loop would spin for {@code sleepTimeout} milliseconds (default 1000) after its last
 * completion before it sleeps. It must not here: a log submits its next write or sync from a
 * completion callback on the loop, and jasyncfio 0.0.7 hands such a submission to the kernel only
 * when the loop next goes to sleep (or runs a task from another thread), so a spinning loop would
 * hold a sync back for up to the timeout. {@link #SLEEP_TIMEOUT_MS} is therefore 0, which also
 * spends no processor at low load.
 *
 * <p><b>Threading:</b> thread-safe.
 */
final class UringExecutors {
    /** Milliseconds the event loop spins after its last completion before it sleeps: none (see above). */
    static final long SLEEP_TIMEOUT_MS = 0;

    private static final int RING_ENTRIES = 1024;
    private static final Object LOCK = new Object();
    private static EventExecutor shared;
    private static Throwable setupFailure;

    private UringExecutors() {}

    /**
     * The shared event loop, started on first use.
     *
     * @return the executor.
     * @throws Throwable whatever setting up the ring threw, every time it is asked for.
     */
    static EventExecutor shared() throws Throwable {
        synchronized (LOCK) {
            if (shared == null && setupFailure == null) {
                final Object result = startOnDaemonThread();
                if (result instanceof Throwable failure) {
                    setupFailure = failure;
                } else {
                    shared = (EventExecutor) result;
                }
            }
            if (setupFailure != null) {
                throw setupFailure;
            }
            return shared;
        }
    }

    private static Object startOnDaemonThread() {
        final AtomicReference<Object> result = new AtomicReference<>();
        final Thread creator = new Thread(
                () -> {
                    try {
                        final EventExecutor executor = EventExecutor.builder()
                                .entries(RING_ENTRIES)
                                .sleepTimeout(SLEEP_TIMEOUT_MS)
                                .build();
                        final AsyncFile file = AsyncFile.open(Path.of("/dev/null"), executor, OpenOption.READ_ONLY)
                                .get(10, TimeUnit.SECONDS);
                        file.close().get(10, TimeUnit.SECONDS);
                        result.set(executor);
                    } catch (final Throwable ex) {
                        result.set(ex);
                    }
                },
                "walden-uring-setup");
        creator.setDaemon(true);
        creator.start();
        boolean interrupted = false;
        while (creator.isAlive()) {
            try {
                creator.join();
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return result.get();
    }
}
