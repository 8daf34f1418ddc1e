package io.walden.crash.power;

import io.walden.RecoveryReport;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the checked crash states looked like, printed at the end of the suite so that a run shows it
 * exercised what it claims: torn tails cut, unfinished preparations removed, records that were never
 * promised and did not survive, and crashes during recovery.
 *
 * <p><b>Threading:</b> any thread; the counters are atomic.
 */
final class PowerLossStatistics {
    static final AtomicLong TORN_TAILS_CUT = new AtomicLong();
    static final AtomicLong PREPARATIONS_REMOVED = new AtomicLong();
    static final AtomicLong NEW_LOGS = new AtomicLong();
    static final AtomicLong STATES_LOSING_UNPROMISED = new AtomicLong();
    static final AtomicLong STATES_DURING_RECOVERY = new AtomicLong();
    static final AtomicLong BATCHES_WHOLE = new AtomicLong();
    static final AtomicLong BATCHES_ABSENT = new AtomicLong();
    static final AtomicLong BATCHES_TORN = new AtomicLong();

    private PowerLossStatistics() {}

    /**
     * Counts what a recovery found.
     *
     * @param report the recovery report.
     * @param recoveredCount records read back.
     * @param appendedCount records that got an LSN (and were not truncated away).
     */
    static void record(final RecoveryReport report, final int recoveredCount, final int appendedCount) {
        if (report.tornTailBytesCut() > 0) {
            TORN_TAILS_CUT.incrementAndGet();
        }
        if (report.newLog()) {
            NEW_LOGS.incrementAndGet();
        }
        for (final String finding : report.findings()) {
            if (finding.startsWith("deleted unfinished segment preparation")) {
                PREPARATIONS_REMOVED.incrementAndGet();
            }
        }
        if (recoveredCount < appendedCount) {
            STATES_LOSING_UNPROMISED.incrementAndGet();
        }
    }

    /**
     * Counts how the batches of a crash state came through.
     *
     * @param whole batches recovered whole.
     * @param absent batches of which nothing was recovered.
     * @param torn batches among the absent ones that the crash had left partly on disk (some frames whole,
     *     some not).
     */
    static void recordBatches(final int whole, final int absent, final int torn) {
        BATCHES_WHOLE.addAndGet(whole);
        BATCHES_ABSENT.addAndGet(absent);
        BATCHES_TORN.addAndGet(torn);
    }

    /** @return the counters as one line. */
    static String summary() {
        return "torn tails cut=" + TORN_TAILS_CUT.get() + ", unfinished preparations removed="
                + PREPARATIONS_REMOVED.get() + ", new logs=" + NEW_LOGS.get()
                + ", states that lost unpromised records=" + STATES_LOSING_UNPROMISED.get()
                + ", crashes during recovery=" + STATES_DURING_RECOVERY.get()
                + ", batches recovered whole=" + BATCHES_WHOLE.get() + ", absent=" + BATCHES_ABSENT.get()
                + " (of which the crash had left " + BATCHES_TORN.get() + " partly on disk)";
    }
}
