package io.walden.internal.io;

import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * How the I/O thread waits when a round found no work: Agrona's {@link BackoffIdleStrategy} steps
 * (spin, yield, park) plus two that depend on the log:
 *
 * <ul>
 *   <li><b>Rest without the duty.</b> When the host allows it, the spin and yield steps are spent
 *       without the I/O duty, and a rest that no wake ends parks without taking the duty back
 *       first, so a lone appender that comes back runs its own I/O. Where the completion thread
 *       runs the I/O ({@code parkAfterRest} false) the rest ends by taking the duty back.
 *   <li><b>Keep yielding while a completion is expected</b>, up to a bound: it saves a parked
 *       thread's wake-up on every acknowledgement.
 * </ul>
 *
 * The park is the host's: it lets go of the duty, looks for work once more and honours the group
 * commit's hold deadline. {@link #action} is a pure function.
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
    enum Action {
        SPIN,
        YIELD,
        REST,
        PARK
    }

    static final int SPIN_COUNT = 50;
    static final int YIELD_COUNT = 10;
    static final int YIELD_IN_FLIGHT_COUNT = 20_000;
    /** The longest park, which bounds a missed wake ({@link IoAgent#wakeIfParked}); it needs no back-off. */
    static final long PARK_MS_MAX = 20;

    static final long PARK_NS_MAX = TimeUnit.MILLISECONDS.toNanos(PARK_MS_MAX);

    interface Host {
        boolean mayRestWithoutDuty();

        /** Whether a completion that acknowledgements wait for is expected soon. */
        boolean expectsCompletion();

        boolean isSignalled();

        void releaseDuty();

        /** Takes the I/O duty back, waiting while an appender holds it. */
        void takeDuty();

        /** A yield of the I/O thread returned after this long: how long it waited for a processor. */
        void yielded(long yieldNs);

        /** Holding the duty: lets go of it, parks at most this long unless work waits, takes it back. */
        void park(long parkNs);

        /** Not holding the duty (a rest's end): parks at most this long unless work waits, takes it. */
        void parkWithoutDuty(long parkNs);
    }

    private final Host host;
    private final boolean parkAfterRest;
    private int idleCount;

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
            case YIELD -> {
                final long startNs = System.nanoTime();
                Thread.yield();
                host.yielded(System.nanoTime() - startNs);
            }
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
