package io.walden.crash.power;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Silences the error the I/O thread logs when a log fails-stop, while the power-loss suite freezes
 * disks thousands of times on purpose; the previous level is restored afterwards. The failure itself is
 * still checked: every appender and waiter sees it as an exception.
 *
 * <p><b>Threading:</b> called by the test's lifecycle methods, one thread.
 */
final class FailStopLogSilencer {
    private static final String FAIL_STOP_LOGGER = "io.walden.internal.io.FailStop";

    // Held so that the java.util.logging logger, weakly referenced by its manager, keeps its level.
    private final Logger logger = Logger.getLogger(FAIL_STOP_LOGGER);
    private final Level previousLevel = logger.getLevel();

    /** Silences the logger. */
    void silence() {
        logger.setLevel(Level.OFF);
    }

    /** Restores the previous level. */
    void restore() {
        logger.setLevel(previousLevel);
    }
}
