package io.walden.testkit;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Silences, while crash trials run, what a log logs at every simulated power failure: the fail-stop
 * error and the shutdown of a failed log. Through {@code java.util.logging}, where {@link
 * System.Logger} goes unless the application installed another backend (then nothing is silenced).
 * The previous levels come back afterwards.
 *
 * <p><b>Threading:</b> created and restored by the thread that runs the trials.
 */
final class QuietLogs {
    private static final List<String> NOISY =
            List.of("io.walden.internal.io.FailStop", "io.walden.internal.io.IoShutdown");

    // Held so that the loggers, weakly referenced by their manager, keep the level set here.
    private final List<Logger> loggers;
    private final List<Level> previous;

    private QuietLogs(final List<Logger> loggers) {
        this.loggers = loggers;
        this.previous = loggers.stream().map(Logger::getLevel).toList();
    }

    /**
     * Silences the loggers.
     *
     * @return what restores them.
     */
    static QuietLogs silence() {
        final QuietLogs quiet =
                new QuietLogs(NOISY.stream().map(Logger::getLogger).toList());
        for (final Logger logger : quiet.loggers) {
            logger.setLevel(Level.OFF);
        }
        return quiet;
    }

    /** Restores the levels the loggers had. */
    void restore() {
        for (int i = 0; i < loggers.size(); i++) {
            loggers.get(i).setLevel(previous.get(i));
        }
    }
}
