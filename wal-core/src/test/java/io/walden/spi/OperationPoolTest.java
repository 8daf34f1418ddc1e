package io.walden.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.PooledOperation.Kind;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The backends' operation pool: indices, the free list's order, the bound, release checks, no garbage. */
class OperationPoolTest {
    /** A backend's operation: one field to let go of, one result to reset. */
    private static final class TestOperation extends PooledOperation {
        Path path;
        long result;
        int clears;

        TestOperation(final int index) {
            super(index);
        }

        @Override
        protected void clear() {
            path = null;
            result = 0;
            clears++;
        }
    }

    @Test
    void shouldGiveEachOperationItsIndexAndFindItByIt() {
        final OperationPool<TestOperation> pool = new OperationPool<>(4, TestOperation::new);
        assertEquals(4, pool.capacity());
        assertEquals(0, pool.inFlight());
        for (int i = 0; i < 4; i++) {
            assertEquals(i, pool.get(i).index());
        }
        final TestOperation write = pool.take(Kind.WRITE, 77);
        assertSame(write, pool.get(write.index()));
        assertEquals(Kind.WRITE, write.kind());
        assertEquals(77, write.token());
        assertEquals(1, pool.inFlight());
    }

    @Test
    void shouldHandOperationsOutInTheOrderTheyCameBack() {
        final OperationPool<TestOperation> pool = new OperationPool<>(3, TestOperation::new);
        final TestOperation first = pool.take(Kind.SYNC, 1);
        final TestOperation second = pool.take(Kind.SYNC, 2);
        final TestOperation third = pool.take(Kind.SYNC, 3);
        assertEquals(0, first.index());
        assertEquals(1, second.index());
        assertEquals(2, third.index());
        pool.release(second);
        pool.release(first);
        assertSame(second, pool.take(Kind.DELETE, 4));
        assertSame(first, pool.take(Kind.RENAME, 5));
        pool.release(third);
        assertSame(third, pool.take(Kind.ALLOCATE, 6));
        assertEquals(3, pool.inFlight());
    }

    @Test
    void shouldClearWhatAReleasedOperationHolds() {
        final OperationPool<TestOperation> pool = new OperationPool<>(1, TestOperation::new);
        final TestOperation operation = pool.take(Kind.WRITE, 1);
        operation.path = Path.of("0.wal");
        operation.result = 4096;
        pool.release(operation);
        assertNull(operation.path);
        assertEquals(0, operation.result);
        assertEquals(1, operation.clears);
        assertEquals(0, pool.inFlight());
        final TestOperation again = pool.take(Kind.SYNC_DIRECTORY, 2);
        assertSame(operation, again);
        assertEquals(Kind.SYNC_DIRECTORY, again.kind());
        assertEquals(2, again.token());
    }

    @Test
    void shouldRefuseMoreThanItsCapacityInFlight() {
        final OperationPool<TestOperation> pool = new OperationPool<>(2, TestOperation::new);
        pool.take(Kind.WRITE, 1);
        pool.take(Kind.WRITE, 2);
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> pool.take(Kind.WRITE, 3));
        assertTrue(refused.getMessage().contains("more than 2"), refused.getMessage());
        assertEquals(2, pool.inFlight());
    }

    @Test
    void shouldRefuseAReleaseOfAnOperationNotInFlight() {
        final OperationPool<TestOperation> pool = new OperationPool<>(2, TestOperation::new);
        final TestOperation operation = pool.take(Kind.WRITE, 1);
        pool.release(operation);
        assertThrows(IllegalStateException.class, () -> pool.release(operation), "released twice");
        assertThrows(IllegalStateException.class, () -> pool.release(pool.get(1)), "never taken");
        final OperationPool<TestOperation> other = new OperationPool<>(2, TestOperation::new);
        final TestOperation foreign = other.take(Kind.SYNC, 2);
        assertThrows(IllegalStateException.class, () -> pool.release(foreign), "another pool's");
        assertEquals(0, pool.inFlight());
    }

    @Test
    void shouldRefuseAFactoryThatMisnumbers() {
        assertThrows(IllegalArgumentException.class, () -> new OperationPool<>(2, index -> new TestOperation(0)));
        assertThrows(IllegalArgumentException.class, () -> new OperationPool<>(0, TestOperation::new));
    }

    @Test
    void shouldAllocateNothingWhileTakingAndReleasing() {
        final OperationPool<TestOperation> pool = new OperationPool<>(64, TestOperation::new);
        final TestOperation[] inFlight = new TestOperation[64];
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // Warm up, so that what is measured is the steady state, not class loading or compilation.
        cycle(pool, inFlight, 20_000);
        final long before = threads.getCurrentThreadAllocatedBytes();
        final int rounds = 100_000;
        cycle(pool, inFlight, rounds);
        final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocatedBytes < 1024, allocatedBytes + " bytes allocated over " + rounds + " rounds");
    }

    /** Takes between 1 and 64 operations and releases them in another order, {@code rounds} times. */
    private static void cycle(
            final OperationPool<TestOperation> pool, final TestOperation[] inFlight, final int rounds) {
        for (int round = 0; round < rounds; round++) {
            final int count = 1 + (round & 63);
            for (int i = 0; i < count; i++) {
                inFlight[i] = pool.take(Kind.WRITE, round);
            }
            for (int i = count - 1; i >= 0; i -= 2) {
                pool.release(inFlight[i]);
            }
            for (int i = count - 2; i >= 0; i -= 2) {
                pool.release(inFlight[i]);
            }
        }
        assertEquals(0, pool.inFlight());
    }
}
