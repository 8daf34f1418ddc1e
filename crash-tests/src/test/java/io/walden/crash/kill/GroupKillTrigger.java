package io.walden.crash.kill;

import java.util.SplittableRandom;

/**
 * When {@link GroupLogKillTest} kills its child: at a random time, or at a random short delay after an
 * event the child reports, so that kills land often in the moments that matter for a group log: its
 * recovery, a purge (which frees segments, relocates records, waits for the copies to be durable and
 * frees again), just after a purge that relocated returned, and an append.
 *
 * <p><b>Threading:</b> {@link #onEvent} is called by the thread that reads the child's output.
 */
final class GroupKillTrigger {
    /** What the kill waits for. */
    enum Kind {
        /** A random time after the log opened; the test thread kills. */
        TIMED,
        /** Up to 60 ms after the child began to open the log: in class loading, recovery, or just after. */
        DURING_OPEN,
        /** Up to 3 ms after the n-th purge began: in its frees, its relocation, or its wait for the copies. */
        IN_PURGE,
        /**
         * Up to 100 us after the n-th purge that relocated records returned: the copies just made
         * durable, the segments of their sources just freed.
         */
        AFTER_RELOCATION,
        /** Up to 300 us after the n-th acknowledgement. */
        AFTER_ACK
    }

    private final Kind kind;
    private final int eventsBeforeKill;
    private final long delayNs;
    private int events;

    private GroupKillTrigger(final Kind kind, final int eventsBeforeKill, final long delayNs) {
        this.kind = kind;
        this.eventsBeforeKill = eventsBeforeKill;
        this.delayNs = delayNs;
    }

    /**
     * Picks a trigger.
     *
     * @param random the source of choices.
     * @return the trigger.
     */
    static GroupKillTrigger random(final SplittableRandom random) {
        final int choice = random.nextInt(100);
        if (choice < 10) {
            return new GroupKillTrigger(Kind.TIMED, 0, random.nextLong(300_000_000L));
        }
        if (choice < 30) {
            return new GroupKillTrigger(Kind.DURING_OPEN, 1, random.nextLong(60_000_000L));
        }
        if (choice < 60) {
            return new GroupKillTrigger(Kind.IN_PURGE, 1 + random.nextInt(40), random.nextLong(3_000_000L));
        }
        if (choice < 85) {
            return new GroupKillTrigger(Kind.AFTER_RELOCATION, 1 + random.nextInt(8), random.nextLong(100_000L));
        }
        return new GroupKillTrigger(Kind.AFTER_ACK, 1 + random.nextInt(120), random.nextLong(300_000L));
    }

    /** @return the kind. */
    Kind kind() {
        return kind;
    }

    /** @return how long after the event (or, for {@link Kind#TIMED}, after the log opened) to kill. */
    long delayNs() {
        return delayNs;
    }

    /**
     * Whether the child must be killed now (after {@link #delayNs()}).
     *
     * @param event the line just read.
     * @return true to kill.
     */
    boolean onEvent(final GroupChildReport.Event event) {
        final boolean counted =
                switch (kind) {
                    case TIMED -> false;
                    case DURING_OPEN -> event == GroupChildReport.Event.OPENING;
                    case IN_PURGE -> event == GroupChildReport.Event.PURGING;
                    case AFTER_RELOCATION -> event == GroupChildReport.Event.RELOCATED;
                    case AFTER_ACK -> event == GroupChildReport.Event.ACK;
                };
        return counted && ++events == eventsBeforeKill;
    }

    @Override
    public String toString() {
        return kind + (eventsBeforeKill > 1 ? " #" + eventsBeforeKill : "") + " +" + delayNs / 1000 + " us";
    }
}
