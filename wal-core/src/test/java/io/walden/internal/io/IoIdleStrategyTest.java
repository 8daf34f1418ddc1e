package io.walden.internal.io;

import static io.walden.internal.io.IoIdleStrategy.Action.PARK;
import static io.walden.internal.io.IoIdleStrategy.Action.REST;
import static io.walden.internal.io.IoIdleStrategy.Action.SPIN;
import static io.walden.internal.io.IoIdleStrategy.Action.YIELD;
import static io.walden.internal.io.IoIdleStrategy.PARK_NS_MAX;
import static io.walden.internal.io.IoIdleStrategy.SPIN_COUNT;
import static io.walden.internal.io.IoIdleStrategy.YIELD_COUNT;
import static io.walden.internal.io.IoIdleStrategy.YIELD_IN_FLIGHT_COUNT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The I/O thread's idle steps: the decision over every idle count that matters and every combination
 * of its two conditions, and, against a recording host, that resting lets go of the duty and parks
 * without taking it back (or takes it back when woken), that work resets the back-off, and that a
 * wake ends a rest.
 */
class IoIdleStrategyTest {
    private static final int LAST_YIELD = SPIN_COUNT + YIELD_COUNT - 1;
    private static final int LAST_IN_FLIGHT_YIELD = SPIN_COUNT + YIELD_COUNT + YIELD_IN_FLIGHT_COUNT - 1;

    @Test
    void shouldSpinThenYieldThenParkWhenItMayNotRest() {
        for (int count = 1; count <= LAST_IN_FLIGHT_YIELD + 10; count++) {
            final IoIdleStrategy.Action expected = count < SPIN_COUNT ? SPIN : count <= LAST_YIELD ? YIELD : PARK;
            assertEquals(expected, IoIdleStrategy.action(count, false, false), "idle count " + count);
        }
    }

    @Test
    void shouldKeepYieldingWhileACompletionIsExpectedUpToItsBound() {
        for (int count = 1; count <= LAST_IN_FLIGHT_YIELD + 10; count++) {
            final IoIdleStrategy.Action expected =
                    count < SPIN_COUNT ? SPIN : count <= LAST_IN_FLIGHT_YIELD ? YIELD : PARK;
            assertEquals(expected, IoIdleStrategy.action(count, false, true), "idle count " + count);
        }
    }

    @Test
    void shouldRestWithoutTheDutyOnlyInTheSpinAndYieldSteps() {
        for (final boolean expected : new boolean[] {false, true}) {
            for (int count = 1; count <= LAST_YIELD; count++) {
                assertEquals(REST, IoIdleStrategy.action(count, true, expected), "idle count " + count);
            }
            assertEquals(
                    expected ? YIELD : PARK,
                    IoIdleStrategy.action(LAST_YIELD + 1, true, expected),
                    "a rest never replaces a park");
        }
    }

    @Test
    void shouldRestWithoutTheDutyUntilTheSpinAndYieldStepsAreSpentThenParkWithoutTakingItBack() {
        final RecordingHost host = new RecordingHost();
        host.mayRest = true;
        final IoIdleStrategy strategy = new IoIdleStrategy(host, true);
        strategy.idle(0);
        // Taking the duty back between the rest and the park would let this thread race a lone
        // appender for its frame: the park takes it back when it ends.
        assertEquals(List.of("release", "park without duty " + PARK_NS_MAX), host.calls);
        assertEquals(SPIN_COUNT + YIELD_COUNT, strategy.idleCount());
        host.calls.clear();
        strategy.idle(0);
        assertEquals(List.of("park " + PARK_NS_MAX), host.calls, "beyond the rest, a park that lets go itself");
    }

    @Test
    void shouldTakeTheDutyBackAfterARestWhenNotParkingAfterRests() {
        final RecordingHost host = new RecordingHost();
        host.mayRest = true;
        final IoIdleStrategy strategy = new IoIdleStrategy(host, false);
        strategy.idle(0);
        assertEquals(List.of("release", "take"), host.calls);
        host.calls.clear();
        strategy.idle(0);
        assertEquals(List.of("park " + PARK_NS_MAX), host.calls);
    }

    @Test
    void shouldEndARestWhenWoken() {
        final RecordingHost host = new RecordingHost();
        host.mayRest = true;
        host.signalled = true;
        final IoIdleStrategy strategy = new IoIdleStrategy(host, true);
        strategy.idle(0);
        assertEquals(List.of("release", "take"), host.calls);
        assertEquals(1, strategy.idleCount(), "a woken rest returns at once");
    }

    @Test
    void shouldStartOverAfterWork() {
        final RecordingHost host = new RecordingHost();
        final IoIdleStrategy strategy = new IoIdleStrategy(host, true);
        for (int i = 0; i < LAST_YIELD + 2; i++) {
            strategy.idle(0);
        }
        assertEquals(2, host.calls.size(), "two parks after the spin and yield steps");
        strategy.idle(1);
        assertEquals(0, strategy.idleCount());
        host.calls.clear();
        for (int i = 0; i < LAST_YIELD; i++) {
            strategy.idle(0);
        }
        assertTrue(host.calls.isEmpty(), "spins and yields again before any park: " + host.calls);
    }

    @Test
    void shouldReportHowLongEachYieldTook() {
        final RecordingHost host = new RecordingHost();
        final IoIdleStrategy strategy = new IoIdleStrategy(host, true);
        for (int i = 0; i < LAST_YIELD; i++) {
            strategy.idle(0);
        }
        assertEquals(YIELD_COUNT, host.yieldsReported, "one report per yield, none per spin");
        assertTrue(host.calls.isEmpty(), "no park yet: " + host.calls);
    }

    /** Records the duty and park calls; the conditions are set by the test. */
    private static final class RecordingHost implements IoIdleStrategy.Host {
        final List<String> calls = new ArrayList<>();
        boolean mayRest;
        boolean expected;
        boolean signalled;
        int yieldsReported;

        @Override
        public void yielded(final long yieldNs) {
            assertTrue(yieldNs >= 0, "yield of " + yieldNs + " ns");
            yieldsReported++;
        }

        @Override
        public boolean mayRestWithoutDuty() {
            return mayRest;
        }

        @Override
        public boolean expectsCompletion() {
            return expected;
        }

        @Override
        public boolean isSignalled() {
            return signalled;
        }

        @Override
        public void releaseDuty() {
            calls.add("release");
        }

        @Override
        public void takeDuty() {
            calls.add("take");
        }

        @Override
        public void park(final long parkNs) {
            calls.add("park " + parkNs);
        }

        @Override
        public void parkWithoutDuty(final long parkNs) {
            calls.add("park without duty " + parkNs);
        }
    }
}
