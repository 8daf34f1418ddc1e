package io.walden.crash.power;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.crash.CrashTally;
import io.walden.testing.TestRecords;
import io.walden.testkit.CrashPoint;
import io.walden.testkit.SimulatedStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a {@link WorkloadSpec} against a log on a fresh {@link SimulatedStorage} and notes every promise the
 * log made in an {@link AckLog}. Appender threads append tagged payloads ({@code writer} = phase and
 * thread, {@code sequence} = the thread's record count), one record or one atomic batch ({@link WalBatch})
 * per step, and note each LSN, which records form each batch, each {@code SYNCED} acknowledgement (of
 * a batch: of its last record, which covers the whole batch) and the durable position after each step.
 * An open-loop step appends without waiting ({@link OpenLoopProducer}); its acknowledgement is noted when
 * a poll delivers it. In the last phase the disk may freeze: appends then fail (the log fails-stop),
 * which is expected there and nowhere else.
 *
 * <p><b>Threading:</b> {@link #run} is called by one thread, which starts and joins the appenders.
 */
final class WorkloadRunner {
    /**
     * The outcome of a run.
     *
     * @param disk the disk, frozen at the end.
     * @param acks what the log promised.
     * @param powerFailed whether the power failed during the run (rather than after a clean close).
     */
    record Run(SimulatedStorage disk, AckLog acks, boolean powerFailed) {}

    private final WorkloadSpec spec;

    /**
     * Prepares a run.
     *
     * @param spec the workload.
     */
    WorkloadRunner(final WorkloadSpec spec) {
        this.spec = spec;
    }

    /**
     * Runs the workload in a new directory.
     *
     * @param directory the log directory, which must not exist.
     * @return the disk and the promises.
     * @throws IOException if the directory cannot be created.
     * @throws InterruptedException if interrupted while joining appenders.
     */
    Run run(final Path directory) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        final SimulatedStorage disk = SimulatedStorage.builder(directory)
                .options(spec.storage())
                .seed(spec.backendSeed())
                .build();
        final AckLog acks = new AckLog(List.of(), List.of(), Long.MIN_VALUE);
        final List<WorkloadSpec.Phase> phases = spec.phases();
        for (int p = 0; p < phases.size(); p++) {
            final boolean mayFreeze = p == phases.size() - 1 && spec.freezeAfterEvents() >= 0;
            if (mayFreeze) {
                disk.crashAfter(CrashPoint.afterEvents(spec.freezeAfterEvents()));
            }
            final Wal wal;
            try {
                wal = Wal.open(spec.config(directory, disk));
            } catch (final WalException ex) {
                if (mayFreeze && disk.poweredOff()) {
                    break;
                }
                throw new AssertionError("opening the log for phase " + p + " failed: " + ex, ex);
            }
            try {
                runPhase(wal, disk, acks, p, phases.get(p), mayFreeze);
            } finally {
                CrashTally.RECYCLED_SEGMENTS.addAndGet(wal.stats().segmentsRecycled());
                CrashTally.COMPRESSED_RECORDS.addAndGet(wal.stats().recordsCompressed());
                if (wal.stats().writesInFlightPeak() > 1) {
                    CrashTally.PIPELINED_SESSIONS.incrementAndGet();
                }
                wal.close();
            }
        }
        final boolean powerFailed = disk.poweredOff();
        disk.powerOff();
        return new Run(disk, acks, powerFailed);
    }

    private void runPhase(
            final Wal wal,
            final SimulatedStorage disk,
            final AckLog acks,
            final int phaseIndex,
            final WorkloadSpec.Phase phase,
            final boolean mayFreeze)
            throws InterruptedException {
        final AtomicReference<Throwable> unexpected = new AtomicReference<>();
        final AtomicInteger stepsDone = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < phase.threads().size(); t++) {
            final int writer = phaseIndex * 16 + t + 1;
            final List<WorkloadSpec.Step> steps = phase.threads().get(t);
            final Thread thread = new Thread(
                    () -> {
                        try {
                            appendSteps(wal, disk, acks, writer, steps, stepsDone, mayFreeze);
                        } catch (final Throwable ex) {
                            unexpected.compareAndSet(null, ex);
                        }
                    },
                    "power-appender-" + writer);
            threads.add(thread);
            thread.start();
        }
        if (phase.truncate()) {
            truncateHalfway(wal, disk, acks, phase, stepsDone, threads, mayFreeze, unexpected);
        }
        for (final Thread thread : threads) {
            thread.join();
        }
        if (unexpected.get() != null) {
            throw new AssertionError(
                    "phase " + phaseIndex + " of " + spec + " failed without a power failure: " + unexpected.get(),
                    unexpected.get());
        }
    }

    private static void truncateHalfway(
            final Wal wal,
            final SimulatedStorage disk,
            final AckLog acks,
            final WorkloadSpec.Phase phase,
            final AtomicInteger stepsDone,
            final List<Thread> threads,
            final boolean mayFreeze,
            final AtomicReference<Throwable> unexpected) {
        while (stepsDone.get() < phase.stepCount() / 2 && threads.stream().anyMatch(Thread::isAlive)) {
            Thread.onSpinWait();
        }
        final long below = acks.maxLsn();
        if (below < 0) {
            return;
        }
        acks.truncation(disk.eventCount(), below & -(long) wal.config().segmentCapacityBytes());
        try {
            wal.truncateBefore(below);
        } catch (final WalException ex) {
            if (!(mayFreeze && disk.poweredOff())) {
                unexpected.compareAndSet(null, ex);
            }
        }
    }

    private static void appendSteps(
            final Wal wal,
            final SimulatedStorage disk,
            final AckLog acks,
            final int writer,
            final List<WorkloadSpec.Step> steps,
            final AtomicInteger stepsDone,
            final boolean mayFreeze) {
        final WalBatch batch = new WalBatch();
        OpenLoopProducer openLoop = null;
        int sequence = 0;
        for (final WorkloadSpec.Step step : steps) {
            try {
                if (step.openLoop()) {
                    if (openLoop == null) {
                        openLoop = new OpenLoopProducer(wal, disk, acks, mayFreeze);
                    }
                    final byte[] payload =
                            TestRecords.tagged(writer, sequence, step.sizes().get(0));
                    final long lsn = openLoop.append(payload, step.durability());
                    acks.appended(new Appended(lsn, writer, sequence, payload.length));
                    openLoop.poll();
                    noteSyncAndPositions(wal, disk, acks, step);
                    continue;
                }
                if (openLoop != null) {
                    // A producer that waits settles what it left pending first.
                    openLoop.drain();
                }
                final long lastLsn;
                if (step.batch()) {
                    lastLsn = appendBatch(wal, acks, writer, sequence, step, batch, mayFreeze);
                } else {
                    lastLsn = appendRecord(wal, acks, writer, sequence, step, mayFreeze);
                }
                if (step.durability() == Durability.SYNCED) {
                    acks.durable(disk.eventCount(), lastLsn + 1);
                }
                if (step.durability() != Durability.BUFFERED) {
                    acks.written(disk.eventCount(), lastLsn + 1);
                }
                noteSyncAndPositions(wal, disk, acks, step);
            } catch (final WalException ex) {
                if (mayFreeze && disk.poweredOff()) {
                    break;
                }
                throw ex;
            } finally {
                sequence += step.sizes().size();
                stepsDone.incrementAndGet();
            }
        }
        if (openLoop != null) {
            openLoop.drain();
        }
    }

    /** Syncs if the step asks, then notes the durable and written positions observed. */
    private static void noteSyncAndPositions(
            final Wal wal, final SimulatedStorage disk, final AckLog acks, final WorkloadSpec.Step step) {
        if (step.syncAfter()) {
            wal.sync();
        }
        final long durablePosition = wal.durablePosition();
        acks.durable(disk.eventCount(), durablePosition);
        // The position first, then the event count: the events that wrote it are among those counted
        // (the other order would stamp a position with fewer events than wrote it).
        final long writtenPosition = wal.writtenPosition();
        acks.written(disk.eventCount(), writtenPosition);
    }

    /** Appends one record and waits for its level; returns its LSN. */
    private static long appendRecord(
            final Wal wal,
            final AckLog acks,
            final int writer,
            final int sequence,
            final WorkloadSpec.Step step,
            final boolean mayFreeze) {
        final byte[] payload = TestRecords.tagged(writer, sequence, step.sizes().get(0));
        final long lsn;
        if (mayFreeze) {
            // In two steps, so that the LSN of a record whose acknowledgement fails is known.
            lsn = wal.append(payload, Durability.BUFFERED);
            acks.appended(new Appended(lsn, writer, sequence, payload.length));
            wal.await(lsn, step.durability());
        } else {
            lsn = wal.append(payload, step.durability());
            acks.appended(new Appended(lsn, writer, sequence, payload.length));
        }
        return lsn;
    }

    /**
     * Appends the records of a batch step, tagged with consecutive sequence numbers, as one batch and
     * waits for its level; returns the LSN of its last record, whose level acknowledges the batch.
     */
    private static long appendBatch(
            final Wal wal,
            final AckLog acks,
            final int writer,
            final int firstSequence,
            final WorkloadSpec.Step step,
            final WalBatch batch,
            final boolean mayFreeze) {
        batch.clear();
        for (int i = 0; i < step.sizes().size(); i++) {
            batch.add(TestRecords.tagged(writer, firstSequence + i, step.sizes().get(i)));
        }
        // Under a possible freeze in two steps, as for a record: the LSNs of a batch whose
        // acknowledgement fails are known.
        wal.append(batch, mayFreeze ? Durability.BUFFERED : step.durability());
        final List<Appended> records = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            records.add(new Appended(batch.lsn(i), writer, firstSequence + i, batch.length(i)));
        }
        acks.batch(new AppendedBatch(records));
        final long lastLsn = batch.lsn(batch.size() - 1);
        if (mayFreeze) {
            wal.await(lastLsn, step.durability());
        }
        return lastLsn;
    }
}
