package io.walden.internal.io;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The I/O duty: which thread may run the log's next round of I/O, and how the I/O thread parks and
 * is woken around it. At most one thread holds the duty; its holder alone touches the write path's
 * state ({@link IoPositions} and the stages), and taking and letting go of it are a volatile
 * compare-and-set and a volatile write, so each holder sees everything its predecessor did.
 *
 * <pre>
 *   holder                      takes the duty                         lets go
 *   ------------------------    -------------------------------------  -------------------------------
 *   the I/O thread              at construction; {@link #takeBack}      {@link #releaseAndPark}, or to rest
 *                               after a park or rest (waits, raising   ({@link #releaseForRest})
 *                               wanted, while another holds it)
 *   an appender (driveFor)      {@link #tryTake}: only if free          {@link #release}, then
 *                                                                      {@link #wakeIfWorkLeft}
 *   the completion thread       {@link #tryTakeForCompletion}: only     the same
 *                               if free and a completion is pending
 * </pre>
 *
 * <p>No wake is lost: the I/O thread raises {@code parked}, fences, and only then looks for work
 * (signals, pending completions, and frames while the duty is free); anyone who leaves work sets
 * {@code signalled} or lets go of the duty first and reads {@code parked} after. A frame published
 * while another thread holds the duty is that holder's to drive: when it lets go it wakes the
 * thread for what it leaves.
 *
 * <p>Tests force interleavings with a {@link Hook} at the {@code POINT_*}s and a model of {@link
 * LockSupport}'s permits ({@link Parking}).
 *
 * <p><b>Threading:</b> every method says which thread calls it; every field is shared and volatile.
 */
final class IoDuty {
    // Where a Hook is called: each point has one call site, which its name describes.
    static final int POINT_BEFORE_TAKE = 1;
    static final int POINT_AFTER_RELEASE = 2;
    static final int POINT_BEFORE_WAKE_CHECK = 3;
    static final int POINT_PARKED_RAISED = 4;
    static final int POINT_BEFORE_PARK = 5;
    static final int POINT_AFTER_SIGNAL = 6;
    static final int POINT_TAKE_BACK_RETRY = 7;
    static final int POINT_PARKING = 8;
    static final int POINT_RESTING = 9;

    /** Longest park while another holds the duty; the holder unparks the thread, so this bounds a missed wake. */
    static final long TAKE_BACK_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int FREE = 0;
    private static final int HELD = 1;
    private static final VarHandle HELD_STATE;

    static {
        try {
            HELD_STATE = MethodHandles.lookup().findVarHandle(IoDuty.class, "state", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** Work the I/O thread could make progress on; asked for without holding the duty, so a hint. */
    interface Work {
        boolean hasWorkHint();
    }

    interface Hook {
        Hook NONE = point -> {};

        void at(int point);
    }

    interface Parking {
        Parking LOCK_SUPPORT = new Parking() {
            @Override
            public void park(final Object blocker, final long parkNs) {
                LockSupport.parkNanos(blocker, parkNs);
            }

            @Override
            public void unpark(final Thread thread) {
                LockSupport.unpark(thread);
            }
        };

        void park(Object blocker, long parkNs);

        void unpark(Thread thread);
    }

    private final Hook hook;
    private final Parking parking;

    // Shared: HELD while a thread holds the duty. The I/O thread holds it from construction.
    private volatile int state = HELD;
    // Shared: raised by the I/O thread while it waits for the duty, so the holder unparks it.
    private volatile boolean wanted;
    // Shared: raised by the I/O thread before its last look for work, while it parks.
    private volatile boolean parked;
    // Shared: set by anyone who leaves the I/O thread work; cleared by the I/O thread before a round.
    private volatile boolean signalled;
    // Shared: a completion was signalled that a completion round may run; cleared by whoever runs it.
    private volatile boolean completionPending;
    // Shared: when the first wake since the I/O thread parked was asked for (0: none); set by wakers,
    // cleared by the I/O thread after the park.
    private volatile long wakeRequestNs;
    // The I/O thread's: how long the last woken park took to return after its wake request (0: none).
    private long lastWakeLatencyNs;
    // Set once, by the I/O thread as it starts.
    private volatile Thread ioThread;

    IoDuty() {
        this(Hook.NONE, Parking.LOCK_SUPPORT);
    }

    IoDuty(final Hook hook, final Parking parking) {
        this.hook = hook;
        this.parking = parking;
    }

    /** Names the I/O thread, which the duty's holder and wakers unpark. The I/O thread, as it starts. */
    void bindIoThread(final Thread thread) {
        this.ioThread = thread;
    }

    /** Whether a thread holds the duty now (racy). Any thread. */
    boolean isHeld() {
        return state == HELD;
    }

    /** Takes the duty if it is free, without waiting. A thread other than the I/O thread. */
    boolean tryTake() {
        if (state != FREE) {
            return false;
        }
        hook.at(POINT_BEFORE_TAKE);
        return HELD_STATE.compareAndSet(this, FREE, HELD);
    }

    /**
     * Takes the duty for a completion round if a completion is pending and the duty is free, clearing
     * the flag. The completion thread, or whoever just let go; not the I/O thread.
     */
    boolean tryTakeForCompletion() {
        if (completionPending && tryTake()) {
            completionPending = false;
            return true;
        }
        return false;
    }

    /** Lets go of the duty and unparks the I/O thread if it waits for it. The holder, not the I/O thread. */
    void release() {
        state = FREE;
        hook.at(POINT_AFTER_RELEASE);
        if (wanted) {
            parking.unpark(ioThread);
        }
    }

    /**
     * After {@link #release}: wakes the I/O thread if work is left that only it does, or if it parked
     * while the duty was held and work waits now (no lost wake). The thread that let go.
     */
    void wakeIfWorkLeft(final boolean ioThreadNeeded, final Work work) {
        hook.at(POINT_BEFORE_WAKE_CHECK);
        if (ioThreadNeeded || (parked && work.hasWorkHint())) {
            wake();
        }
    }

    /** The I/O thread lets go of the duty to rest (spin or yield) without parking. */
    void releaseForRest() {
        state = FREE;
        hook.at(POINT_RESTING);
    }

    /** The I/O thread lets go of the duty and {@link #parkWithoutDuty parks}. */
    void releaseAndPark(final long parkNs, final Work work) {
        state = FREE;
        parkWithoutDuty(parkNs, work);
    }

    /** The I/O thread, without the duty: parks unless work waits (the wake rule, class comment); takes it back. */
    void parkWithoutDuty(final long parkNs, final Work work) {
        hook.at(POINT_PARKING);
        parked = true;
        VarHandle.fullFence();
        hook.at(POINT_PARKED_RAISED);
        final boolean workWaiting = signalled || completionPending || (state == FREE && work.hasWorkHint());
        try {
            if (!workWaiting) {
                hook.at(POINT_BEFORE_PARK);
                parking.park(this, parkNs);
            }
            parked = false;
            final long requestNs = wakeRequestNs;
            if (requestNs != 0) {
                wakeRequestNs = 0;
                lastWakeLatencyNs = Math.max(1, System.nanoTime() - requestNs);
            }
        } finally {
            takeBack();
        }
    }

    /** The I/O thread takes the duty back, waiting while another thread holds it. */
    void takeBack() {
        if (HELD_STATE.compareAndSet(this, FREE, HELD)) {
            return;
        }
        hook.at(POINT_TAKE_BACK_RETRY);
        wanted = true;
        try {
            while (!HELD_STATE.compareAndSet(this, FREE, HELD)) {
                parking.park(this, TAKE_BACK_PARK_NS);
            }
        } finally {
            wanted = false;
        }
    }

    /** Wakes the I/O thread if it is parked. Any thread; cheap when it is running. */
    void wake() {
        if (!signalled) {
            signalled = true;
        }
        VarHandle.fullFence();
        hook.at(POINT_AFTER_SIGNAL);
        if (parked) {
            if (wakeRequestNs == 0) {
                // Racy: of two wakers of one park, either stamp serves.
                wakeRequestNs = System.nanoTime();
            }
            parking.unpark(ioThread);
        }
    }

    /**
     * The I/O thread, after a park: how long it took to run again after the first wake request, and
     * clears it; 0 if no wake ended the park.
     */
    long takeWakeLatencyNs() {
        final long latencyNs = lastWakeLatencyNs;
        lastWakeLatencyNs = 0;
        return latencyNs;
    }

    /** {@link #wake} without a fence, which may miss the park (see {@link IoAgent#wakeIfParked}). */
    void wakeIfParked() {
        if (parked) {
            wake();
        }
    }

    /** Whether the I/O thread is parked (racy). Any thread. */
    boolean isParked() {
        return parked;
    }

    /** Whether the I/O thread was woken, or a completion waits, since its last round. Any thread. */
    boolean isSignalled() {
        return signalled || completionPending;
    }

    /** The I/O thread, before a round: clears the wake, and the pending completion the round delivers. */
    void clearSignals(final boolean clearCompletion) {
        signalled = false;
        if (clearCompletion) {
            completionPending = false;
        }
    }

    /** Notes a completion that a completion round may deliver. The backend's completion thread, or any. */
    void signalCompletion() {
        completionPending = true;
    }
}
