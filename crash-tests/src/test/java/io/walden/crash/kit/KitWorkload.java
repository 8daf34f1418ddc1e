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
import java.util.concurrent.atomic.AtomicReference;

/**
 * A workload of appender threads, drawn up front from a seed (so that the seed replays it): each
 * thread appends records of every durability level and atomic batches, noting them in an {@link
 * AckLedger}; one step may arm an I/O error on the storage. An append refused because the power
 * failed or because the armed error failed the log ends its thread; any other failure is the
 * workload's.
 *
 * <p><b>Threading:</b> {@link #run} starts and joins the appender threads.
 */
final class KitWorkload {
    /** Largest record: small segments (64 KiB) roll often. */
    static final int MAX_RECORD_BYTES = 6000;

    /** One append: sizes (two or more make a batch), the level, and whether it arms a fault first. */
    private record Step(List<Integer> sizes, Durability level, Errno faultBefore, boolean faultOnSync) {}

    private final List<List<Step>> threads = new ArrayList<>();

    /**
     * Draws a workload.
     *
     * @param random the trial's random source.
     * @param faults whether one step arms an I/O error.
     */
    KitWorkload(final SplittableRandom random, final boolean faults) {
        final int threadCount = 1 + random.nextInt(3);
        final Durability[] levels = Durability.values();
        final int faultThread = random.nextInt(threadCount);
        for (int t = 0; t < threadCount; t++) {
            final List<Step> steps = new ArrayList<>();
            final int stepCount = 3 + random.nextInt(25);
            final int faultStep = faults && t == faultThread ? random.nextInt(stepCount) : -1;
            for (int s = 0; s < stepCount; s++) {
                final List<Integer> sizes = new ArrayList<>();
                final int records = random.nextInt(5) == 0 ? 2 + random.nextInt(3) : 1;
                for (int r = 0; r < records; r++) {
                    sizes.add(1 + random.nextInt(records == 1 ? MAX_RECORD_BYTES : MAX_RECORD_BYTES / 4));
                }
                final Errno fault = s == faultStep ? (random.nextBoolean() ? Errno.EIO : Errno.ENOSPC) : null;
                steps.add(new Step(sizes, levels[random.nextInt(levels.length)], fault, random.nextBoolean()));
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
            started.add(thread);
            thread.start();
        }
        for (final Thread thread : started) {
            thread.join();
        }
        if (failure.get() instanceof Exception ex) {
            throw ex;
        } else if (failure.get() != null) {
            throw new AssertionError("an appender failed: " + failure.get(), failure.get());
        }
    }

    private static void append(
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
                if (storage.poweredOff() || storage.faultsInjected() > 0) {
                    return;
                }
                throw ex;
            }
        }
    }
}
