package io.walden.internal.state;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A fixed table of parked threads, each waiting for a log position, that whoever publishes a
 * position scans to unpark exactly the threads it reached, each once. No lock: a waiter takes a slot
 * with a compare-and-set, and a waker wins the right to unpark a slot's thread with another, so an
 * appender that registers never blocks the I/O thread's publish, nor the other way round.
 *
 * <p>Each slot has a stamp, written only with compare-and-set or release stores:
 *
 * <pre>
 *   63                                                   1   0
 *  +------------------------------------------------------+---+
 *  |                    sequence                          | W |
 *  +------------------------------------------------------+---+
 *  sequence: even = free, odd = held by a waiter; +1 at every take and every release, so a stamp
 *            never repeats (no ABA).
 *  W (woken): set while the waiter fills the slot, and by the waker that unparks it, so that later
 *             publishes skip it; cleared once the slot is filled.
 * </pre>
 *
 * A waiter takes a free slot (sequence even) by setting it to {@code sequence + 1} with W set, writes
 * its thread, position and kind, then clears W with a volatile store: from then on a waker that reads
 * the stamp sees the fields. A waker that reads a held, unwoken stamp whose position is reached sets W
 * with a compare-and-set against the stamp it read, and only if that succeeds unparks the thread it
 * read, which is then certainly that stamp's waiter. An unpark of a waiter that has left is one
 * spurious wake-up, which every park loop tolerates.
 *
 * <p>Slots are taken lowest first, and wakers scan up to the highest slot ever taken. When every slot
 * is taken, {@link #register} returns -1 and the caller polls instead.
 *
 * <p><b>Threading:</b> any thread registers and deregisters its own slot; any thread may wake.
 */
final class WaiterRegistry {
    static final int NO_SLOT = -1;

    private static final long WOKEN = 1L;
    private static final long SEQUENCE_ONE = 2L;
    private static final VarHandle STAMPS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle THREADS = MethodHandles.arrayElementVarHandle(Thread[].class);
    private static final VarHandle SLOTS_USED;
    private static final VarHandle REGISTERED;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SLOTS_USED = lookup.findVarHandle(WaiterRegistry.class, "slotsUsed", int.class);
            REGISTERED = lookup.findVarHandle(WaiterRegistry.class, "registered", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    // LockSupport::unpark, or a recorder in tests; final.
    private final Consumer<Thread> unparker;
    private final long[] stamps;
    private final Thread[] threads;
    // Written by the slot's waiter while it holds the slot with W set; read by wakers after an
    // acquire read of the stamp.
    private final long[] positions;
    private final boolean[] synced;

    // Highest slot ever taken + 1; only grows. Raised by waiters with compare-and-set.
    @SuppressWarnings("unused")
    private volatile int slotsUsed;

    // Slots held right now; changed by waiters with an atomic add.
    @SuppressWarnings("unused")
    private volatile int registered;

    WaiterRegistry(final int slotCount) {
        this(slotCount, LockSupport::unpark);
    }

    /** Tests record the wakes with their own unparker. */
    WaiterRegistry(final int slotCount, final Consumer<Thread> unparker) {
        Invariants.check(slotCount > 0, "slot count %d not positive", slotCount);
        this.unparker = unparker;
        stamps = new long[slotCount];
        threads = new Thread[slotCount];
        positions = new long[slotCount];
        synced = new boolean[slotCount];
    }

    int registeredCount() {
        return (int) REGISTERED.getVolatile(this);
    }

    /** The slot taken for the calling thread, or {@link #NO_SLOT}. */
    int register(final long position, final boolean forSync) {
        final int slotCount = stamps.length;
        for (int slot = 0; slot < slotCount; slot++) {
            final long stamp = (long) STAMPS.getVolatile(stamps, slot);
            if (isHeld(stamp)) {
                continue;
            }
            final long filling = (stamp | WOKEN) + SEQUENCE_ONE;
            if (STAMPS.compareAndSet(stamps, slot, stamp, filling)) {
                THREADS.setRelease(threads, slot, Thread.currentThread());
                positions[slot] = position;
                synced[slot] = forSync;
                REGISTERED.getAndAdd(this, 1);
                raiseSlotsUsed(slot + 1);
                // Wakers skip the slot until this store; after it they see the fields above. A volatile
                // store, not a release: the caller reads the positions next, and either it sees the
                // publisher's position or the publisher's later read of this stamp sees it held.
                STAMPS.setVolatile(stamps, slot, filling & ~WOKEN);
                return slot;
            }
        }
        return NO_SLOT;
    }

    /** Gives a slot back. Only the thread that took it calls this. */
    void deregister(final int slot) {
        Invariants.check(THREADS.getVolatile(threads, slot) == Thread.currentThread(), "slot %d not held", slot);
        THREADS.setRelease(threads, slot, null);
        long stamp;
        do {
            stamp = (long) STAMPS.getVolatile(stamps, slot);
            Invariants.check(isHeld(stamp), "slot %d is free", slot);
            // The next even sequence, W clear: free.
        } while (!STAMPS.compareAndSet(stamps, slot, stamp, (stamp & ~WOKEN) + SEQUENCE_ONE));
        REGISTERED.getAndAdd(this, -1);
    }

    /** Unparks, once, each held slot's thread whose position is reached. */
    void wakeReached(final long writtenPosition, final long durablePosition) {
        if (registeredCount() == 0) {
            return;
        }
        final int used = (int) SLOTS_USED.getVolatile(this);
        for (int slot = 0; slot < used; slot++) {
            // Volatile, after the caller's volatile store of the position: see register.
            final long stamp = (long) STAMPS.getVolatile(stamps, slot);
            if (!isHeld(stamp) || (stamp & WOKEN) != 0) {
                continue;
            }
            final Thread thread = (Thread) THREADS.getAcquire(threads, slot);
            final long reached = synced[slot] ? durablePosition : writtenPosition;
            if (reached >= positions[slot] && STAMPS.compareAndSet(stamps, slot, stamp, stamp | WOKEN)) {
                if (thread != null) {
                    unparker.accept(thread);
                }
            }
        }
    }

    /** Unparks every held slot's thread, woken before or not: the log failed or closed. */
    void wakeAll() {
        final int used = (int) SLOTS_USED.getVolatile(this);
        for (int slot = 0; slot < used; slot++) {
            final long stamp = (long) STAMPS.getVolatile(stamps, slot);
            if (isHeld(stamp)) {
                STAMPS.compareAndSet(stamps, slot, stamp, stamp | WOKEN);
                // Null when its waiter is leaving, and then needs no wake.
                final Thread thread = (Thread) THREADS.getAcquire(threads, slot);
                if (thread != null) {
                    unparker.accept(thread);
                }
            }
        }
    }

    private void raiseSlotsUsed(final int count) {
        int used;
        do {
            used = (int) SLOTS_USED.getVolatile(this);
            if (used >= count) {
                return;
            }
        } while (!SLOTS_USED.compareAndSet(this, used, count));
    }

    private static boolean isHeld(final long stamp) {
        return (stamp & SEQUENCE_ONE) != 0;
    }
}
