package io.walden.crash;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Waits for an open log's next segment to be prepared: renamed into place once it is ready. */
public final class PreparedSegment {
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private PreparedSegment() {}

    /**
     * Returns once the file exists, polling the directory: the preparation runs on the log's I/O
     * thread and nothing else tells when it is done.
     *
     * @param file the segment file the log prepares.
     * @throws AssertionError if it does not appear within 30 s.
     */
    public static void await(final Path file) {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError(file + " was not prepared within 30 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
