package io.walden.crash.kill;

import java.util.SplittableRandom;

/**
 * When the parent kills the child: at a random time, or at a random short delay after an event the
 * child reports, so that kills land often in the moments that matter (recovery, a segment roll and the
 * preparation of the next segment that starts with it, a truncation), or when the child's files end
 * inside a batch.
 *
 * <p><b>Threading:</b> {@link #onEvent} is called by the thread that reads the child's output.
 */
final class KillTrigger {
    /** What the kill waits for. */
    enum Kind {
        /** A random time after the log opened; the test thread kills. */
        TIMED,
        /** Up to 150 ms after the child began to open the log: in class loading, recovery, or just after. */
        DURING_OPEN,
        /** The n-th acknowledgement in a newer segment than any before: a roll just happened. */
        AFTER_ROLL,
        /** An acknowledgement in the last 4 KiB of a segment: the roll fence and the roll are next. */
        NEAR_SEGMENT_END,
        /** The n-th truncation request. */
        AT_TRUNCATE,
        /**
         * The first moment, a random time after the log opened, at which the child's newest segment
         * ends inside a batch (the first frames of a batch written, not its last). The campaign's
         * thread watches the files and kills.
         */
        TORN_BATCH
    }

    private static final int NEAR_END_BYTES = 4096;

    private final Kind kind;
    private final int eventsBeforeKill;
    private final long delayNs;
    private int events;
    private long highestSegmentBase = -1;

    private KillTrigger(final Kind kind, final int eventsBeforeKill, final long delayNs) {
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
    static KillTrigger random(final SplittableRandom random) {
        final int choice = random.nextInt(100);
        if (choice < 15) {
            return new KillTrigger(Kind.TORN_BATCH, 0, random.nextLong(100_000_000L));
        }
        if (choice < 33) {
            return new KillTrigger(Kind.TIMED, 0, random.nextLong(300_000_000L));
        }
        if (choice < 43) {
            return new KillTrigger(Kind.DURING_OPEN, 1, random.nextLong(150_000_000L));
        }
        if (choice < 65) {
            return new KillTrigger(Kind.AFTER_ROLL, 1 + random.nextInt(4), random.nextLong(2_000_000L));
        }
        if (choice < 80) {
            return new KillTrigger(Kind.NEAR_SEGMENT_END, 1 + random.nextInt(3), random.nextLong(300_000L));
        }
        return new KillTrigger(Kind.AT_TRUNCATE, 1 + random.nextInt(3), random.nextLong(1_500_000L));
    }

    /** @return the kind. */
    Kind kind() {
        return kind;
    }

    /**
     * @return how long after the event (or, for {@link Kind#TIMED}, after the log opened) to kill; for
     *     {@link Kind#TORN_BATCH}, how long after the log opened to start looking for a batch to tear.
     */
    long delayNs() {
        return delayNs;
    }

    /**
     * Whether the child must be killed now (after {@link #delayNs()}).
     *
     * @param event the line just read.
     * @param report what the child said so far, including that line.
     * @return true to kill.
     */
    boolean onEvent(final ChildReport.Event event, final ChildReport report) {
        final boolean counted =
                switch (kind) {
                    case TIMED, TORN_BATCH -> false;
                    case DURING_OPEN -> event == ChildReport.Event.OPENING;
                    case AFTER_ROLL ->
                        event == ChildReport.Event.ACK
                                && enteredNewSegment(report.lastAck().lsn());
                    case NEAR_SEGMENT_END ->
                        event == ChildReport.Event.ACK
                                && KillSetup.SEGMENT_CAPACITY_BYTES
                                                - (report.lastAck().lsn()
                                                        - KillSetup.segmentBase(
                                                                report.lastAck().lsn()))
                                        <= NEAR_END_BYTES;
                    case AT_TRUNCATE -> event == ChildReport.Event.TRUNCATING;
                };
        return counted && ++events == eventsBeforeKill;
    }

    private boolean enteredNewSegment(final long lsn) {
        final long base = KillSetup.segmentBase(lsn);
        final boolean newer = highestSegmentBase >= 0 && base > highestSegmentBase;
        highestSegmentBase = Math.max(highestSegmentBase, base);
        return newer;
    }

    @Override
    public String toString() {
        return kind + (eventsBeforeKill > 1 ? " #" + eventsBeforeKill : "") + " +" + delayNs / 1000 + " us";
    }
}
