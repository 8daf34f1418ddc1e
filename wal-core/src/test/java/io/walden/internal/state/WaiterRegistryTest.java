package io.walden.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The lock-free waiter table: which slots a publish wakes, that each waiter is woken once, that a
 * reused slot starts unwoken, and, with real threads, that no wake is lost between a waiter that
 * registers and a publisher that advances (every waiter parks with a slice of an hour, so only an
 * unpark can end its wait).
 */
class WaiterRegistryTest {
    private final List<Thread> unparked = new ArrayList<>();
    private final WaiterRegistry registry = new WaiterRegistry(4, unparked::add);

    @Test
    void shouldTakeTheLowestFreeSlotAndRefuseWhenAllAreTaken() {
        assertEquals(0, registry.register(10, false));
        assertEquals(1, registry.register(20, false));
        assertEquals(2, registry.register(30, false));
        assertEquals(3, registry.register(40, false));
        assertEquals(WaiterRegistry.NO_SLOT, registry.register(50, false));
        assertEquals(4, registry.registeredCount());
        registry.deregister(1);
        assertEquals(3, registry.registeredCount());
        assertEquals(1, registry.register(60, false));
    }

    @Test
    void shouldWakeOnlyTheWaitersWhosePositionIsReachedEachOnce() {
        registry.register(10, false);
        registry.register(20, false);
        registry.register(30, false);
        registry.wakeReached(20, 0);
        assertEquals(2, unparked.size(), "the written waiters at 10 and 20");
        registry.wakeReached(25, 0);
        assertEquals(2, unparked.size(), "a woken waiter is not woken again");
        registry.wakeReached(30, 0);
        assertEquals(3, unparked.size());
    }

    @Test
    void shouldJudgeASyncWaiterByTheDurablePosition() {
        registry.register(10, true);
        registry.wakeReached(100, 9);
        assertTrue(unparked.isEmpty(), "written is not durable");
        registry.wakeReached(100, 10);
        assertEquals(List.of(Thread.currentThread()), unparked);
    }

    @Test
    void shouldWakeANewWaiterInASlotWhoseLastWaiterWasWoken() {
        final int slot = registry.register(10, false);
        registry.wakeReached(10, 0);
        assertEquals(1, unparked.size());
        registry.deregister(slot);
        assertEquals(slot, registry.register(20, false));
        registry.wakeReached(20, 0);
        assertEquals(2, unparked.size(), "the slot's new waiter was not woken");
    }

    @Test
    void shouldWakeEveryHeldSlotWhenTheLogStops() {
        registry.register(10, false);
        final int left = registry.register(20, false);
        registry.register(30, true);
        registry.wakeReached(10, 0);
        registry.deregister(left);
        unparked.clear();
        registry.wakeAll();
        assertEquals(2, unparked.size(), "the woken waiter and the unreached one, not the one that left");
    }

    @Test
    void shouldWakeNothingWhenNobodyWaits() {
        final int slot = registry.register(10, false);
        registry.deregister(slot);
        registry.wakeReached(Long.MAX_VALUE, Long.MAX_VALUE);
        registry.wakeAll();
        assertTrue(unparked.isEmpty());
        assertEquals(0, registry.registeredCount());
    }

    @Test
    void shouldLoseNoWakeBetweenRacingWaitersAndAPublisher() throws Exception {
        // Lock-step rounds: the publisher makes round r durable only once every waiter came back from
        // round r - 1, so each waiter registers for r while the publish of r races it, and nothing
        // later would rescue a lost wake: the waiter would park for its hour and the round time out.
        final int threadCount = 4;
        final int rounds = 3_000;
        final long hourNs = TimeUnit.HOURS.toNanos(1);
        final LogState state = new LogState(0, 0, 0, hourNs);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLongArray progress = new AtomicLongArray(threadCount);
        final List<Thread> waiters = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            final int index = t;
            final Thread waiter = new Thread(() -> {
                try {
                    for (int round = 1; round <= rounds; round++) {
                        assertTrue(state.await(round, Durability.SYNCED, hourNs, Long.MAX_VALUE));
                        progress.set(index, round);
                    }
                } catch (final Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            });
            waiter.setDaemon(true);
            waiter.start();
            waiters.add(waiter);
        }
        for (int round = 1; round <= rounds; round++) {
            state.publishWritten(round);
            state.publishDurable(round);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (int t = 0; t < threadCount; t++) {
                while (progress.get(t) < round) {
                    assertNull(failure.get());
                    assertTrue(
                            System.nanoTime() - deadlineNs < 0,
                            "waiter " + t + " never came back from round " + round + ": its wake was lost");
                    Thread.yield();
                }
            }
        }
        for (final Thread waiter : waiters) {
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(waiter.isAlive());
        }
        assertNull(failure.get());
        assertEquals(0, state.waiterCount());
    }
}
