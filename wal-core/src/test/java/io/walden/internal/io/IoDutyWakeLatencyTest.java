package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The I/O thread's wake-up latency, which tells whether processors are scarce: measured from the
 * first wake of a park to the park's return, only for parks a wake ended, and taken once.
 */
class IoDutyWakeLatencyTest {
    private static final long GAP_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final IoDuty.Work NO_WORK = () -> false;

    /** A park that runs the test's action in place of the other threads, then returns. */
    private static final class ScriptedParking implements IoDuty.Parking {
        IoDuty duty;
        Runnable duringPark = () -> {};
        int unparks;

        @Override
        public void park(final Object blocker, final long parkNs) {
            duringPark.run();
        }

        @Override
        public void unpark(final Thread thread) {
            unparks++;
        }
    }

    private static ScriptedParking parkedDuty() {
        final ScriptedParking parking = new ScriptedParking();
        parking.duty = new IoDuty(IoDuty.Hook.NONE, parking);
        parking.duty.bindIoThread(Thread.currentThread());
        return parking;
    }

    @Test
    void shouldMeasureFromTheWakeNotFromThePark() {
        final ScriptedParking parking = parkedDuty();
        final long[] wakeNs = new long[1];
        parking.duringPark = () -> {
            spin(GAP_NS);
            wakeNs[0] = System.nanoTime();
            parking.duty.wake();
            parking.duty.wake();
        };
        final long parkStartNs = System.nanoTime();
        parking.duty.releaseAndPark(TimeUnit.SECONDS.toNanos(1), NO_WORK);
        final long parkNs = System.nanoTime() - parkStartNs;
        final long latencyNs = parking.duty.takeWakeLatencyNs();
        assertTrue(latencyNs > 0, "a wake ended the park");
        assertTrue(
                latencyNs <= System.nanoTime() - wakeNs[0], "latency " + latencyNs + " counted from before the wake");
        assertTrue(latencyNs < parkNs - GAP_NS / 2, "latency " + latencyNs + " ns of a park of " + parkNs + " ns");
        assertEquals(2, parking.unparks);
        assertEquals(0, parking.duty.takeWakeLatencyNs(), "taken once");
    }

    @Test
    void shouldMeasureNothingForAParkNoWakeEnded() {
        final ScriptedParking parking = parkedDuty();
        parking.duty.releaseAndPark(1, NO_WORK);
        assertEquals(0, parking.duty.takeWakeLatencyNs());
        assertEquals(0, parking.unparks);
    }

    @Test
    void shouldNotCountAWakeThatCameBeforeThePark() {
        final ScriptedParking parking = parkedDuty();
        // The thread runs: the wake is a signal, not a wake-up, and the park that follows is skipped.
        parking.duty.wake();
        parking.duringPark = () -> {
            throw new AssertionError("parked with a wake pending");
        };
        parking.duty.releaseAndPark(TimeUnit.SECONDS.toNanos(1), NO_WORK);
        assertEquals(0, parking.duty.takeWakeLatencyNs());
        // The next park, ended by its timeout, does not inherit the old wake either.
        parking.duty.clearSignals(true);
        parking.duringPark = () -> {};
        parking.duty.releaseAndPark(1, NO_WORK);
        assertEquals(0, parking.duty.takeWakeLatencyNs());
    }

    private static void spin(final long durationNs) {
        final long endNs = System.nanoTime() + durationNs;
        while (System.nanoTime() - endNs < 0) {
            Thread.onSpinWait();
        }
    }
}
