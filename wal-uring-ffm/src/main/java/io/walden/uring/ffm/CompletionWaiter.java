package io.walden.uring.ffm;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The one thread of a session: blocks on the ring's eventfd and runs the log's completion signal each
 * time the kernel posts completions, so that the log learns of them without its I/O thread watching
 * the ring. A completion the duty holder already reaped makes one spurious signal, which the log
 * tolerates.
 *
 * <p><b>Threading:</b> {@link #start} and {@link #stop} by the session's owner; the loop on its own
 * thread.
 */
final class CompletionWaiter {
    private static final System.Logger LOGGER = System.getLogger(CompletionWaiter.class.getName());

    private final IoUring ring;
    private final Runnable completionSignal;
    private final Path directory;
    private final Thread thread;
    // Set by the closing owner; read by the waiter.
    private volatile boolean stopping;

    /**
     * Creates the waiter.
     *
     * @param ring the ring, with its eventfd registered.
     * @param completionSignal the log's signal.
     * @param directory the log directory, for the thread's name and messages.
     */
    CompletionWaiter(final IoUring ring, final Runnable completionSignal, final Path directory) {
        this.ring = ring;
        this.completionSignal = completionSignal;
        this.directory = directory;
        this.thread = new Thread(this::run, "walden-uring-ffm-" + directory.getFileName());
        thread.setDaemon(true);
    }

    /** Starts the thread. */
    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                ring.awaitCompletion();
                if (stopping) {
                    return;
                }
                completionSignal.run();
            }
        } catch (final IOException | RuntimeException ex) {
            if (!stopping) {
                LOGGER.log(
                        System.Logger.Level.ERROR,
                        "the io_uring completion waiter of " + directory + " stopped; the log's I/O thread polls alone",
                        ex);
            }
        }
    }

    /**
     * Stops the thread and waits for it, through any interrupt, which it keeps.
     */
    void stop() {
        stopping = true;
        ring.wakeWaiter();
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
