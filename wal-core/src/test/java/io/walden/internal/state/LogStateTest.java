package io.walden.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Waiting on {@link LogState}: who yields and who blocks, and that a blocked waiter is woken by the
 * publish that reaches it. A waiter is counted by {@link LogState#waiterCount()} only once it
 * blocks, and a yielding one shows {@code yieldUntilReached} on its stack, so the tests tell the two
 * apart without timing. States that must be woken by an unpark use a park slice of an hour, so that
 * a lost unpark fails the test instead of being rescued by the slice.
 */
class LogStateTest {
    private static final long START = 4096;
    // Longer than any test's deadline: a waiter that yields this long fails the test.
    private static final long HOUR_NS = TimeUnit.HOURS.toNanos(1);
    private static final long LONG_YIELD_NS = HOUR_NS;
    private static final long DEADLINE_MS = 10_000;
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void shouldYieldRatherThanBlockWhileSyncsAreFasterThanTheYieldTime() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        state.recordSyncDuration(TimeUnit.MICROSECONDS.toNanos(100));
        final Waiter waiter = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitYielding(waiter);
        assertEquals(0, state.waiterCount(), "a yielding waiter is not blocked");
        publishSynced(state, START + 64);
        waiter.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldBlockAtOnceWhenRecentSyncsTakeLongerThanTheYieldTime() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        for (int i = 0; i < 64; i++) {
            state.recordSyncDuration(2 * LONG_YIELD_NS);
        }
        assertTrue(state.syncDurationNs() > LONG_YIELD_NS, "smoothed " + state.syncDurationNs());
        final Waiter waiter = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 1);
        publishSynced(state, START + 64);
        waiter.assertReturned(Boolean.TRUE);
        assertEquals(0, state.waiterCount());
    }

    @Test
    void shouldStillYieldForAWriteWhenSyncsAreSlow() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        for (int i = 0; i < 64; i++) {
            state.recordSyncDuration(2 * LONG_YIELD_NS);
        }
        final Waiter waiter = Waiter.start(state, START + 64, Durability.WRITTEN, Long.MAX_VALUE);
        awaitYielding(waiter);
        assertEquals(0, state.waiterCount(), "a write waiter yields whatever syncs take");
        state.publishWritten(START + 64);
        waiter.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldWakeEachBlockedWaiterByThePublishThatReachesIt() throws Exception {
        final LogState state = new LogState(START, START, 0, HOUR_NS);
        final Waiter first = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        final Waiter second = Waiter.start(state, START + 128, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 2);
        state.publishWritten(START + 128);
        state.publishDurable(START + 64);
        first.assertReturned(Boolean.TRUE);
        awaitBlocked(state, 1);
        assertTrue(second.thread.isAlive(), "the second waiter's position is not reached yet");
        state.publishDurable(START + 128);
        second.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldWakeAWaiterInASlotWhoseLastWaiterWasWoken() throws Exception {
        // The slot keeps a woken flag so that later publishes do not unpark its waiter again; a new
        // waiter in the same slot must start unwoken, or no publish would ever unpark it.
        final LogState state = new LogState(START, START, 0, HOUR_NS);
        final Waiter first = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 1);
        publishSynced(state, START + 64);
        first.assertReturned(Boolean.TRUE);
        awaitBlocked(state, 0);
        final Waiter second = Waiter.start(state, START + 128, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 1);
        publishSynced(state, START + 128);
        second.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldBlockAtOnceWhileProcessorsAreScarceAndOthersAreBlocked() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        // A SYNCED waiter blocks at once: syncs take longer than the yield.
        for (int i = 0; i < 64; i++) {
            state.recordSyncDuration(2 * LONG_YIELD_NS);
            state.recordWakeLatency(2 * ProcessorScarcity.SCARCE_WAKE_LATENCY_NS);
        }
        assertTrue(state.processorsScarce());
        final Waiter synced = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 1);
        // A WRITTEN waiter would yield whatever syncs take, but not while processors are scarce.
        final Waiter written = Waiter.start(state, START + 64, Durability.WRITTEN, Long.MAX_VALUE);
        awaitBlocked(state, 2);
        publishSynced(state, START + 64);
        synced.assertReturned(Boolean.TRUE);
        written.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldStillYieldAloneWhileProcessorsAreScarce() throws Exception {
        // Blocked, a lone writer's waiter would keep the I/O thread from resting, and so the writer
        // from running its next record's I/O itself.
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        for (int i = 0; i < 64; i++) {
            state.recordWakeLatency(2 * ProcessorScarcity.SCARCE_WAKE_LATENCY_NS);
        }
        assertTrue(state.processorsScarce());
        final Waiter waiter = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitYielding(waiter);
        assertEquals(0, state.waiterCount());
        publishSynced(state, START + 64);
        waiter.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldHaveAWokenWaiterWakeTheOthersThatItsPositionsReached() throws Exception {
        final LogState state = new LogState(START, START, 0, HOUR_NS);
        final Waiter first = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        final Waiter second = Waiter.start(state, START + 128, Durability.SYNCED, Long.MAX_VALUE);
        final Waiter third = Waiter.start(state, START + 192, Durability.SYNCED, Long.MAX_VALUE);
        awaitBlocked(state, 3);
        state.publishWritten(START + 192);
        // Published without a wake, as the I/O thread does before it wakes anyone: the first waiter,
        // woken here in its place, wakes the second on its way out.
        state.publishDurableQuietly(START + 128);
        LockSupport.unpark(first.thread);
        first.assertReturned(Boolean.TRUE);
        second.assertReturned(Boolean.TRUE);
        awaitBlocked(state, 1);
        assertTrue(third.thread.isAlive(), "the third waiter's position is not reached yet");
        state.publishDurable(START + 192);
        third.assertReturned(Boolean.TRUE);
    }

    @Test
    void shouldNotYieldPastTheWaitsOwnTimeout() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        final Waiter waiter = Waiter.start(state, START + 64, Durability.SYNCED, TimeUnit.MILLISECONDS.toNanos(1));
        waiter.assertReturned(Boolean.FALSE);
    }

    @Test
    void shouldStopYieldingWhenInterrupted() throws Exception {
        final LogState state = new LogState(START, START, LONG_YIELD_NS, HOUR_NS);
        final Waiter waiter = Waiter.start(state, START + 64, Durability.SYNCED, Long.MAX_VALUE);
        awaitYielding(waiter);
        waiter.thread.interrupt();
        waiter.thread.join(DEADLINE_MS);
        assertFalse(waiter.thread.isAlive(), "the interrupted waiter is still waiting");
        final WalException failure = assertInstanceOf(WalException.class, waiter.outcome.get());
        assertTrue(failure.getMessage().contains("interrupted"), failure.getMessage());
    }

    private static void publishSynced(final LogState state, final long position) {
        state.publishWritten(position);
        state.publishDurable(position);
    }

    private static void awaitBlocked(final LogState state, final int count) {
        final long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (state.waiterCount() != count) {
            assertTrue(
                    System.currentTimeMillis() < deadline,
                    "expected " + count + " blocked waiters, have " + state.waiterCount());
            LockSupport.parkNanos(POLL_NS);
        }
    }

    /** Waits until the waiter's thread is in the yield loop (its stack shows it), not yet blocked. */
    private static void awaitYielding(final Waiter waiter) {
        final long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (!isYielding(waiter.thread)) {
            assertTrue(waiter.thread.isAlive(), "the waiter returned before its position was reached");
            assertTrue(System.currentTimeMillis() < deadline, "the waiter never yielded");
            LockSupport.parkNanos(POLL_NS);
        }
    }

    private static boolean isYielding(final Thread thread) {
        for (final StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getMethodName().equals("yieldUntilReached")) {
                return true;
            }
        }
        return false;
    }

    /** A thread waiting on the state for a position; records what the wait ended with. */
    private static final class Waiter {
        final Thread thread;
        final AtomicReference<Object> outcome = new AtomicReference<>();

        private Waiter(final LogState state, final long position, final Durability durability, final long timeoutNs) {
            thread = new Thread(() -> {
                try {
                    outcome.set(state.await(position, durability, timeoutNs, Long.MAX_VALUE));
                } catch (final RuntimeException ex) {
                    outcome.set(ex);
                }
            });
            thread.setDaemon(true);
        }

        static Waiter start(
                final LogState state, final long position, final Durability durability, final long timeoutNs) {
            final Waiter waiter = new Waiter(state, position, durability, timeoutNs);
            waiter.thread.start();
            return waiter;
        }

        void assertReturned(final Boolean expected) throws InterruptedException {
            thread.join(DEADLINE_MS);
            assertFalse(thread.isAlive(), "the waiter did not return");
            assertEquals(expected, outcome.get());
        }
    }
}
