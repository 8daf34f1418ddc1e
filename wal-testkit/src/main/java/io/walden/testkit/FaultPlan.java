package io.walden.testkit;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * The faults and delays armed on a {@link SimulatedStorage}, shared by its sessions: each armed error
 * is taken by the first operation of its kind and then disarmed; delays hold every completion of
 * their kind back for at least that long.
 *
 * <p><b>Threading:</b> armed by any thread, taken by the sessions' threads; synchronized, the delays
 * volatile.
 */
final class FaultPlan {
    /** The operations a fault can hit. */
    enum Target {
        /** A write to a segment file: data or a segment header. */
        SEGMENT_WRITE,
        /** An fdatasync of a segment file. */
        SEGMENT_SYNC,
        /** An fsync of the log directory. */
        DIRECTORY_SYNC
    }

    private final Errno[] armed = new Errno[Target.values().length];
    private int injectedCount;
    private volatile long writeDelayNs;
    private volatile long syncDelayNs;

    /**
     * Arms an error for the next operation of a kind.
     *
     * @param target the kind.
     * @param errno the error; null disarms.
     */
    synchronized void arm(final Target target, final Errno errno) {
        armed[target.ordinal()] = errno;
    }

    /**
     * Takes the error armed for an operation about to be submitted, disarming it.
     *
     * @param target the operation's kind.
     * @param description the operation, for the exception's message.
     * @return the failure it completes with, or null if nothing was armed.
     */
    synchronized IOException take(final Target target, final Supplier<String> description) {
        final Errno errno = armed[target.ordinal()];
        if (errno == null) {
            return null;
        }
        armed[target.ordinal()] = null;
        injectedCount++;
        return new IOException(description.get() + " failed: " + errno.text() + " (" + errno.name()
                + ", injected by the simulated storage)");
    }

    /** @return how many faults were injected so far. */
    synchronized int injectedCount() {
        return injectedCount;
    }

    /**
     * Sets the least time between a write's submission and its completion.
     *
     * @param delayNs the delay, 0 for none.
     */
    void writeDelayNs(final long delayNs) {
        writeDelayNs = checkDelay(delayNs);
    }

    /** @return the least time between a write's submission and its completion. */
    long writeDelayNs() {
        return writeDelayNs;
    }

    /**
     * Sets the least time between a sync's (or a directory sync's) submission and its completion.
     *
     * @param delayNs the delay, 0 for none.
     */
    void syncDelayNs(final long delayNs) {
        syncDelayNs = checkDelay(delayNs);
    }

    /** @return the least time between a sync's submission and its completion. */
    long syncDelayNs() {
        return syncDelayNs;
    }

    private static long checkDelay(final long delayNs) {
        if (delayNs < 0) {
            throw new IllegalArgumentException("a delay of " + delayNs + " ns is negative");
        }
        return delayNs;
    }
}
