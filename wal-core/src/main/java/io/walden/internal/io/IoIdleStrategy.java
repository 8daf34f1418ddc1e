package io.walden.internal.io;

import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * How the I/O thread waits when a round found no work: the steps of Agrona's {@link
 * BackoffIdleStrategy} (spin, then yield, then park) with two a plain back-off cannot take, because
 * they depend on the log:
 *
 * <ul>
 *   <li><b>Rest without the duty.</b> When the host allows it (nothing of its own in flight, a lone
 *       writer, nobody blocked), the spin and yield steps are spent without the I/O duty, watching
 *       only the wake flag, and a rest that no wake ends goes on into the park without taking the
 *       duty back in between: a lone appender that comes back runs its own I/O rather than race this
 *       thread for its frame. (Taking the duty back for one more round before the park made this
 *       thread write a lone appender's frames in runs: each such frame's appender found the duty
 *       held, handed its record over and woke this thread, whose next rest then ended at once.) With
 *       a backend whose completion thread runs the I/O (io_uring) the rest still ends by taking the
 *       duty back, as before: the change was measured to help with FileChannel, and not measured
 *       on its own with io_uring (together with other changes it measured 0.76 to 0.94 of the
 *       build before there), so io_uring keeps what was measured before.
 *   <li><b>Keep yielding while a completion is expected.</b> A sync or write in flight completes
 *       within a few hundred microseconds; yielding until then saves the wake-up of a parked thread
 *       on every acknowledgement, up to a bound.
 * </ul>
 *
 * The park itself is the host's: it lets go of the duty, looks for work once more and honours the
 * group commit's hold deadline. The decision is a pure function of the idle count and the two
 * conditions ({@link #action}), tested on its own.
 *
 * <pre>
 *   idle count:  1 .. SPIN-1         SPIN .. SPIN+YIELD-1     .. +YIELD_IN_FLIGHT    beyond
 *   rest allowed REST (spin, yield without the duty, until woken;
 *                      not woken: park, still without it)
 *   otherwise    SPIN                YIELD                    YIELD if expected,     PARK
 *                                                             else PARK              (at most PARK_MS_MAX)
 * </pre>
 *
 * <p><b>Threading:</b> the I/O thread only.
 */
final class IoIdleStrategy implements IdleStrategy {
    /** What one idle step does ({@link #action}). */
    enum Action {
        /** Spin once ({@link Thread#onSpinWait()}). */
        SPIN,
        /** Yield the processor once. */
        YIELD,
        /**
         * Spin, then yield, without the duty for the rest of the spin and yield steps, until woken; if no
         * wake came, park without taking the duty back first.
         */
        REST,
        /** Park for up to {@link #PARK_NS_MAX}. */
        PARK
    }

    static final int SPIN_COUNT = 50;
    static final int YIELD_COUNT = 10;
    static final int YIELD_IN_FLIGHT_COUNT = 20_000;
    /**
     * The longest park, which bounds how late a BUFFERED record whose wake was missed is written. A
     * park needs no back-off of its own: a wake unparks the thread at once, and the host shortens the
     * park to the group commit's hold deadline.
     */
    static final long PARK_MS_MAX = 20;

    static final long PARK_NS_MAX = TimeUnit.MILLISECONDS.toNanos(PARK_MS_MAX);

    /** What the strategy needs from the I/O thread. */
    interface Host {
        /** Whether the thread may rest without the I/O duty now. */
        boolean mayRestWithoutDuty();

        /** Whether a completion that acknowledgements wait for is expected soon. */
        boolean expectsCompletion();

        /** Whether the thread was woken since its last round. */
        boolean isSignalled();

        /** Lets go of the I/O duty. */
        void releaseDuty();

        /** Takes the I/O duty back, waiting while an appender holds it. */
        void takeDuty();

        /**
         * Lets go of the duty, parks for at most this long unless work is waiting, and takes the duty
         * back. Called holding the duty.
         */
        void park(long parkNs);

        /**
         * Parks for at most this long unless work is waiting, and takes the duty back. Called not
         * holding the duty (at the end of a rest).
         */
        void parkWithoutDuty(long parkNs);
    }

    private final Host host;
    private final boolean parkAfterRest;
    private int idleCount;

    /** Creates the strategy. */
    IoIdleStrategy(final Host host, final boolean parkAfterRest) {
        this.host = host;
        this.parkAfterRest = parkAfterRest;
    }

    /** The step to take after {@code idleCount} rounds in a row without work. */
    static Action action(final int idleCount, final boolean mayRest, final boolean completionExpected) {
        if (idleCount < SPIN_COUNT + YIELD_COUNT && mayRest) {
            return Action.REST;
        }
        if (idleCount < SPIN_COUNT) {
            return Action.SPIN;
        }
        if (idleCount < SPIN_COUNT + YIELD_COUNT
                || (completionExpected && idleCount < SPIN_COUNT + YIELD_COUNT + YIELD_IN_FLIGHT_COUNT)) {
            return Action.YIELD;
        }
        return Action.PARK;
    }

    /** Rounds in a row without work (racy outside the I/O thread). */
    int idleCount() {
        return idleCount;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            idleCount = 0;
            return;
        }
        idle();
    }

    @Override
    public void idle() {
        if (idleCount < Integer.MAX_VALUE) {
            idleCount++;
        }
        // The conditions are asked for only where the count leaves a choice.
        final boolean mayRest = idleCount < SPIN_COUNT + YIELD_COUNT && host.mayRestWithoutDuty();
        final boolean completionExpected = !mayRest
                && idleCount >= SPIN_COUNT + YIELD_COUNT
                && idleCount < SPIN_COUNT + YIELD_COUNT + YIELD_IN_FLIGHT_COUNT
                && host.expectsCompletion();
        switch (action(idleCount, mayRest, completionExpected)) {
            case REST -> rest();
            case SPIN -> Thread.onSpinWait();
            case YIELD -> Thread.yield();
            default -> host.park(PARK_NS_MAX);
        }
    }

    private void rest() {
        host.releaseDuty();
        boolean parks = false;
        try {
            while (idleCount < SPIN_COUNT + YIELD_COUNT && !host.isSignalled()) {
                if (idleCount < SPIN_COUNT) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                idleCount++;
            }
            parks = parkAfterRest && !host.isSignalled();
        } finally {
            if (!parks) {
                host.takeDuty();
            }
        }
        if (parks) {
            // The park takes the duty back when it ends.
            host.parkWithoutDuty(PARK_NS_MAX);
        }
    }

    @Override
    public void reset() {
        idleCount = 0;
    }

    @Override
    public String alias() {
        return "walden-io";
    }
}
