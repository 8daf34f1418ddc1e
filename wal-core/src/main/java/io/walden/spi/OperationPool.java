package io.walden.spi;

import java.util.function.IntFunction;

/**
 * A session's operations in flight: a fixed number of {@link PooledOperation}s made up front and
 * handed out and taken back through a free list, so that submitting and completing allocate
 * nothing. Each operation keeps its {@linkplain PooledOperation#index() index} for the pool's life,
 * so a completion that carries the index (an io_uring entry's user data) finds it with {@link
 * #get}. Operations are handed out in the order they came back.
 *
 * <pre>
 *   take(kind, token) --&gt; operation --&gt; backend carries it out --&gt; poll: deliver, release(operation)
 *        ^------------------------------- free list ---------------------------------------|
 * </pre>
 *
 * <p>The capacity is {@link StorageCapabilities#maxInFlight()}: the log never has more in flight,
 * so a pool that runs dry is a bug, and {@link #take} says so.
 *
 * <p><b>Threading:</b> not thread-safe: used by the session's owning thread (the holder of the
 * log's I/O duty).
 *
 * @param <T> the backend's operation type.
 */
public final class OperationPool<T extends PooledOperation> {
    private final PooledOperation[] operations;
    // Owning thread: the indices of the free operations, a FIFO ring from freeHead, freeCount long.
    private final int[] freeIndices;
    private int freeHead;
    private int freeCount;

    /**
     * Makes every operation of the pool.
     *
     * @param capacity the most operations in flight at once, at least 1.
     * @param factory makes the operation for an index, passing the index to {@link
     *     PooledOperation#PooledOperation(int)}.
     * @throws IllegalArgumentException if the capacity is less than 1 or an operation has another index.
     */
    public OperationPool(final int capacity, final IntFunction<T> factory) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        operations = new PooledOperation[capacity];
        freeIndices = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            final T operation = factory.apply(i);
            if (operation.index() != i) {
                throw new IllegalArgumentException("operation " + i + " says its index is " + operation.index());
            }
            operations[i] = operation;
            freeIndices[i] = i;
        }
        freeCount = capacity;
    }

    /**
     * Takes a free operation for a submission.
     *
     * @param kind what it does.
     * @param token the log's token, for its completion.
     * @return the operation, its fields as {@link PooledOperation#clear()} left them.
     * @throws IllegalStateException if every operation is in flight.
     */
    public T take(final PooledOperation.Kind kind, final long token) {
        if (freeCount == 0) {
            throw new IllegalStateException("more than " + operations.length + " storage operations in flight");
        }
        final int index = freeIndices[freeHead];
        freeHead = next(freeHead);
        freeCount--;
        final T operation = get(index);
        operation.taken(kind, token);
        return operation;
    }

    /**
     * Gives an operation back once its completion was delivered: {@link PooledOperation#clear()} lets go
     * of what it refers to.
     *
     * @param operation an operation of this pool, in flight.
     * @throws IllegalStateException if it is not in flight (released twice, or never taken).
     */
    public void release(final T operation) {
        final int index = operation.index();
        if (index >= operations.length || operations[index] != operation || !operation.isTaken()) {
            throw new IllegalStateException(
                    "operation " + index + " released but not in flight from this pool: " + operation.kind());
        }
        operation.released();
        int tail = freeHead + freeCount;
        if (tail >= operations.length) {
            tail -= operations.length;
        }
        freeIndices[tail] = index;
        freeCount++;
    }

    /**
     * The operation at an index, such as an io_uring completion's user data.
     *
     * @param index the operation's {@linkplain PooledOperation#index() index}.
     * @return the operation.
     */
    @SuppressWarnings("unchecked")
    public T get(final int index) {
        return (T) operations[index];
    }

    /** @return how many operations are taken and not yet released. */
    public int inFlight() {
        return operations.length - freeCount;
    }

    /** @return the most operations in flight at once, as given at construction. */
    public int capacity() {
        return operations.length;
    }

    private int next(final int position) {
        return position + 1 == operations.length ? 0 : position + 1;
    }
}
