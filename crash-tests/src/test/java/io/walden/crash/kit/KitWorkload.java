package io.walden.crash.kit;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.testkit.AckLedger;
import io.walden.testkit.Errno;
import io.walden.testkit.SimulatedStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A workload of appender threads, drawn up front from a seed (so that the seed replays it): each
 * thread appends records of every durability level and atomic batches, noting them in an {@link
 * AckLedger}; one step may arm an I/O error on the storage (ENOSPC on writes only: a third of the
 * steps). An append refused because the power failed or because the armed error failed the log ends
 * its thread; any other failure is the workload's. An ENOSPC armed on a write is back-pressure: the
 * log must go on without refusing anything; an EIO on a write, and any error of a sync, must fail the
 * log.
 *
 * <p><b>Threading:</b> {@link #run} starts and joins the appender threads.
 */
final class KitWorkload {
    /** Largest record: small segments (64 KiB) roll often. */
    static final int MAX_RECORD_BYTES = 6000;

    /** One append: sizes (two or more make a batch), the level, and whether it arms a fault first. */
    private record Step(List<Integer> sizes, Durability level, Errno faultBefore, boolean faultOnSync) {}

    /** Which fault one step arms. */
    enum Faults {
        NONE,
        /** EIO or ENOSPC, on a write or a sync. */
        ANY,
        /** ENOSPC on a write, before a third of the steps of every thread: back-pressure, retried. */
        NO_SPACE_WRITE
    }

    /** How long the appenders may take, all of them; a log that hangs fails the run instead. */
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);

    /** How long a fault that must fail the log may take to do so once the appenders ended. */
    private static final long FAIL_WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private final List<List<Step>> threads = new ArrayList<>();
    // The fault a step arms, if any: its errno and whether it hits a sync.
    private Errno fault;
    private boolean faultOnSync;

    /**
     * Draws a workload.
     *
     * @param random the trial's random source.
     * @param faults whether one step arms an I/O error, and which.
     */
    KitWorkload(final SplittableRandom random, final Faults faults) {
        final int threadCount = 1 + random.nextInt(3);
        final Durability[] levels = Durability.values();
        final int faultThread = random.nextInt(threadCount);
        for (int t = 0; t < threadCount; t++) {
            final List<Step> steps = new ArrayList<>();
            final int stepCount = 3 + random.nextInt(25);
            final int faultStep = faults != Faults.NONE && t == faultThread ? random.nextInt(stepCount) : -1;
            for (int s = 0; s < stepCount; s++) {
                final List<Integer> sizes = new ArrayList<>();
                final int records = random.nextInt(5) == 0 ? 2 + random.nextInt(3) : 1;
                for (int r = 0; r < records; r++) {
                    sizes.add(1 + random.nextInt(records == 1 ? MAX_RECORD_BYTES : MAX_RECORD_BYTES / 4));
                }
                final boolean noSpaceWrite = faults == Faults.NO_SPACE_WRITE;
                // Back-pressure refuses nothing, so a third of the steps may arm it, in every thread.
                final Errno stepFault = noSpaceWrite
                        ? (random.nextInt(3) == 0 ? Errno.ENOSPC : null)
                        : s == faultStep ? (random.nextBoolean() ? Errno.ENOSPC : Errno.EIO) : null;
                final boolean onSync = !noSpaceWrite && random.nextBoolean();
                if (stepFault != null) {
                    fault = stepFault;
                    faultOnSync = onSync;
                }
                steps.add(new Step(sizes, levels[random.nextInt(levels.length)], stepFault, onSync));
            }
            threads.add(steps);
        }
    }

    /**
     * Runs the workload on an open log.
     *
     * @param wal the log.
     * @param storage its storage.
     * @param ledger where appends and acknowledgements are noted.
     * @throws Exception what a thread threw that neither the power failure nor an injected fault explains.
     */
    void run(final Wal wal, final SimulatedStorage storage, final AckLedger ledger) throws Exception {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads.size(); t++) {
            final List<Step> steps = threads.get(t);
            final int writer = t;
            final Thread thread = new Thread(
                    () -> {
                        try {
                            append(wal, storage, ledger, writer, steps);
                        } catch (final Throwable ex) {
                            failure.compareAndSet(null, ex);
                        }
                    },
                    "kit-appender-" + t);
            thread.setDaemon(true);
            started.add(thread);
            thread.start();
        }
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        for (final Thread thread : started) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
            if (thread.isAlive()) {
                // A log that stopped making progress: a failure of the log, not a reason to hang.
                throw new AssertionError(thread.getName() + " did not finish within 120 s: " + wal.stats());
            }
        }
        if (failure.get() instanceof Exception ex) {
            throw ex;
        } else if (failure.get() != null) {
            throw new AssertionError("an appender failed: " + failure.get(), failure.get());
        }
        checkFaultOutcome(wal, storage);
    }

    /** Whether the armed fault is back-pressure (ENOSPC on a write), which refuses nothing. */
    private boolean faultIsBackPressure() {
        return fault == Errno.ENOSPC && !faultOnSync;
    }

    /**
     * A fault an operation took: ENOSPC on a write left the log working; anything else failed it (a
     * failed sync is never retried). Unless the power failed first, which fails the log anyway.
     */
    private void checkFaultOutcome(final Wal wal, final SimulatedStorage storage) {
        if (storage.faultsInjected() == 0 || storage.poweredOff()) {
            return;
        }
        if (faultIsBackPressure()) {
            if (wal.stats().failed()) {
                throw new AssertionError("the log failed on a write that found no space: "
                        + wal.stats().failure());
            }
            return;
        }
        // The failure reaches the log when the operation completes, which may follow the appenders' end.
        final long deadlineNs = System.nanoTime() + FAIL_WAIT_NS;
        while (!wal.stats().failed() && !storage.poweredOff()) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("the log did not fail on " + fault + " in a "
                        + (faultOnSync ? "sync" : "write") + " within 10 s: " + wal.stats());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void append(
            final Wal wal,
            final SimulatedStorage storage,
            final AckLedger ledger,
            final int writer,
            final List<Step> steps) {
        for (int s = 0; s < steps.size(); s++) {
            final Step step = steps.get(s);
            if (step.faultBefore() != null) {
                if (step.faultOnSync()) {
                    storage.failNextSync(step.faultBefore());
                } else {
                    storage.failNextWrite(step.faultBefore());
                }
            }
            final List<byte[]> payloads = new ArrayList<>();
            for (int r = 0; r < step.sizes().size(); r++) {
                final byte[] payload = new byte[step.sizes().get(r)];
                for (int i = 0; i < payload.length; i++) {
                    payload[i] = (byte) (writer * 31 + s * 7 + r + i);
                }
                payloads.add(payload);
            }
            try {
                if (payloads.size() == 1) {
                    ledger.append(wal, payloads.get(0), step.level());
                } else {
                    ledger.appendBatch(wal, payloads, step.level());
                }
            } catch (final WalException ex) {
                if (storage.poweredOff() || (storage.faultsInjected() > 0 && !faultIsBackPressure())) {
                    return;
                }
                throw ex;
            }
        }
    }
}
