package io.walden.testkit;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread of a simulated session's own that signals completions every few tens of microseconds, as
 * io_uring's event loop does; the log then runs completion rounds on it (writes and syncs submitted
 * from there), racing its I/O thread and the appenders for the duty.
 *
 * <p><b>Threading:</b> started by the session's constructor, stopped by its close.
 */
final class EventLoopThread {
    private static final long SIGNAL_INTERVAL_NS = 20_000;

    private final Thread thread;
    private volatile boolean stopped;

    /**
     * Starts signalling.
     *
     * @param completionSignal the log's completion signal.
     */
    EventLoopThread(final Runnable completionSignal) {
        thread = new Thread(
                () -> {
                    while (!stopped) {
                        completionSignal.run();
                        LockSupport.parkNanos(SIGNAL_INTERVAL_NS);
                    }
                },
                "walden-simulated-event-loop");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops signalling and waits for the thread; keeps the caller's interrupt status. */
    void stop() {
        stopped = true;
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
