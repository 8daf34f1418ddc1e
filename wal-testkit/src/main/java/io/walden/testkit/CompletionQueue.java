package io.walden.testkit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The operations a {@link SimulatedSession} submitted and has not delivered: each becomes deliverable
 * after a random number of polls (and not before its delay has passed), and those deliverable at a
 * poll are delivered in random order, as a device completes operations in any order.
 *
 * <p><b>Threading:</b> owned by the session's owning thread.
 */
final class CompletionQueue {
    /** What a queued completion will record when it is delivered. */
    enum Kind {
        WRITE,
        SYNC,
        DIRECTORY_OP,
        DIRECTORY_SYNC,
        NOTHING
    }

    /** An operation submitted and not yet delivered. */
    static final class Operation {
        final Kind kind;
        final long token;
        final long id;
        final long result;
        final IOException failure;
        final Supplier<String> description;
        final long readyAtNs;
        int pollsLeft;
        // A preparation write of a slow-preparation session: deliverable only when nothing else is in
        // flight.
        boolean stalled;

        private Operation(
                final Kind kind,
                final long token,
                final long id,
                final long result,
                final IOException failure,
                final Supplier<String> description,
                final long readyAtNs) {
            this.kind = kind;
            this.token = token;
            this.id = id;
            this.result = result;
            this.failure = failure;
            this.description = description;
            this.readyAtNs = readyAtNs;
        }

        /**
         * An operation that completes with a result: what its delivery records ({@code kind}), the log's
         * token, the disk's id of the operation (0 if none), the result, the operation for messages, and
         * the polls and least time from now before it may be delivered.
         */
        static Operation completing(
                final Kind kind,
                final long token,
                final long id,
                final long result,
                final Supplier<String> description,
                final int pollsLeft,
                final long delayNs) {
            final Operation operation = new Operation(
                    kind, token, id, result, null, description, delayNs == 0 ? 0 : System.nanoTime() + delayNs);
            operation.pollsLeft = pollsLeft;
            return operation;
        }

        /** An operation that fails at the next poll with the failure, recording nothing. */
        static Operation failing(final long token, final IOException failure) {
            return new Operation(Kind.NOTHING, token, 0, -1, failure, failure::getMessage, 0);
        }
    }

    private final List<Operation> inFlight = new ArrayList<>();
    private final SplittableRandom random;
    private final int maxInFlight;

    /**
     * Creates an empty queue.
     *
     * @param random chooses the order of delivery.
     * @param maxInFlight the most operations in flight.
     */
    CompletionQueue(final SplittableRandom random, final int maxInFlight) {
        this.random = random;
        this.maxInFlight = maxInFlight;
    }

    /**
     * Queues an operation.
     *
     * @param operation the operation.
     * @return the operation.
     * @throws IllegalStateException if the session has the most operations in flight already.
     */
    Operation add(final Operation operation) {
        if (inFlight.size() >= maxInFlight) {
            throw new IllegalStateException("more than " + maxInFlight + " operations in flight");
        }
        inFlight.add(operation);
        return operation;
    }

    /**
     * Takes the operations deliverable now, at most {@code limit}, in random order; counts a poll for
     * every other.
     *
     * @param limit the most to take.
     * @return the operations, removed from the queue.
     */
    List<Operation> takeReady(final int limit) {
        if (inFlight.isEmpty()) {
            return List.of();
        }
        final List<Operation> ready = new ArrayList<>(inFlight.size());
        int stalledCount = 0;
        for (final Operation operation : inFlight) {
            stalledCount += operation.stalled ? 1 : 0;
        }
        final boolean othersInFlight = inFlight.size() > stalledCount;
        final long nowNs = inFlightDelayed() ? System.nanoTime() : 0;
        for (int i = 0; i < inFlight.size(); i++) {
            final Operation operation = inFlight.get(i);
            if (operation.pollsLeft-- <= 0
                    && !(operation.stalled && othersInFlight)
                    && (operation.readyAtNs == 0 || nowNs - operation.readyAtNs >= 0)) {
                ready.add(operation);
            }
        }
        while (ready.size() > limit) {
            ready.remove(random.nextInt(ready.size()));
        }
        for (int i = ready.size() - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final Operation swap = ready.get(i);
            ready.set(i, ready.get(j));
            ready.set(j, swap);
        }
        inFlight.removeAll(ready);
        return ready;
    }

    private boolean inFlightDelayed() {
        for (final Operation operation : inFlight) {
            if (operation.readyAtNs != 0) {
                return true;
            }
        }
        return false;
    }

    /** @return how many operations are queued. */
    int size() {
        return inFlight.size();
    }

    /** Forgets every queued operation. */
    void clear() {
        inFlight.clear();
    }
}
