package io.walden.crash.power;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.crash.CrashTally;
import io.walden.crash.OnDiskFrames;
import io.walden.format.FrameDescriptor;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Checks one post-crash directory: reopens it on a fresh {@link SimulatedStorage} under the default
 * recovery policy, reads everything back against an {@link Expectation}, appends a few records and
 * reads them back, and closes. Every state checked adds one to {@link CrashTally#SIMULATED}; a failed
 * check adds to {@link CrashTally#VIOLATIONS} (and {@link CrashTally#LOST}) and throws with the whole
 * history of crashes that led to it, and keeps the directory for inspection.
 *
 * <p>The reopen is itself recorded, so each checked state yields two more crash states: one during
 * its recovery (while it deletes leftovers, cuts, zeroes and syncs the torn tail, or prepares a
 * segment) and one after the appends that followed. Those are checked the same way, once.
 *
 * <p><b>Threading:</b> used by one thread.
 */
final class CrashStateChecker {
    private static final int DERIVED_DEPTH_MAX = 1;
    private static final int WRITER_BASE = 1000;
    private static final int APPENDS_AFTER_MAX = 4;
    /** One in this many reopened logs appends its records after recovery as one batch. */
    private static final int BATCH_AFTER_ONE_IN = 3;

    private final WorkloadSpec spec;
    private final int choicesPerRecoveryEvent;
    private int checkedCount;
    private int cutsBelowProven;

    /**
     * Prepares checks for the logs of one workload.
     *
     * @param spec the workload, for its configuration.
     */
    CrashStateChecker(final WorkloadSpec spec) {
        this(spec, 0);
    }

    /**
     * Prepares checks for the logs of one workload, crashing every recovery that cuts below the
     * proven durable position at each of its events.
     *
     * @param spec the workload, for its configuration.
     * @param choicesPerRecoveryEvent for a crash state whose recovery cuts the log below the position
     *     it proved durable (it gave up a batch the crash left open), how many crash states to check
     *     after each event of that recovery; 0 checks one random point, as for every other state.
     */
    CrashStateChecker(final WorkloadSpec spec, final int choicesPerRecoveryEvent) {
        this.spec = spec;
        this.choicesPerRecoveryEvent = choicesPerRecoveryEvent;
    }

    /**
     * @return how many checked states (of the workload, not derived) recovery cut below the position it
     *     proved durable.
     */
    int cutsBelowProven() {
        return cutsBelowProven;
    }

    /** @return how many crash states this checker checked. */
    int checkedCount() {
        return checkedCount;
    }

    /**
     * Checks a crash state and the states derived from its recovery, then deletes its directory.
     *
     * @param image the post-crash directory.
     * @param expectation what it must hold.
     * @param history how it came about, for failure messages.
     * @param depth 0 for a crash of the workload, 1 for a crash while checking another state.
     * @param random the source of every choice.
     * @throws IOException if a directory cannot be written or removed.
     */
    void check(
            final CrashState image,
            final Expectation expectation,
            final String history,
            final int depth,
            final SplittableRandom random)
            throws IOException {
        final String where = history + "\n  choices: " + image.report() + "\n  expected: " + expectation;
        // Before the reopen changes anything: the batches the crash left partly on disk.
        final Set<AppendedBatch> partlyWritten = partlyWritten(image.directory(), expectation.batches());
        final SimulatedStorage disk = image.newStorage(spec.storage(), random.nextLong());
        final Wal wal;
        try {
            wal = Wal.open(spec.config(image.directory(), disk));
        } catch (final RuntimeException ex) {
            throw violation(where, "reopening failed under the default policy: " + ex, 0, image, ex);
        }
        final int recoveryEventCount = disk.eventCount();
        if (wal.tailPosition() < expectation.writtenEnd()) {
            final long tail = wal.tailPosition();
            wal.close();
            throw violation(
                    where + "\n  recovery: " + wal.recoveryReport(),
                    "the reopened log continues at " + tail + ", below " + expectation.writtenEnd()
                            + ", which was written before the crash (a reader may have seen it): a position"
                            + " would be given to another record",
                    0,
                    image,
                    null);
        }
        final boolean cutBelowProven = wal.recoveryReport().recoveredEndPosition()
                < wal.recoveryReport().provenDurablePosition();
        final AckLog acks;
        try {
            final List<TestRecords.Read> recovered = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
            final Expectation.Outcome outcome = expectation.check(recovered);
            PowerLossStatistics.record(
                    wal.recoveryReport(),
                    recovered.size(),
                    expectation.sequence().size());
            if (!outcome.ok()) {
                throw violation(
                        where + "\n  recovery: " + wal.recoveryReport(),
                        String.join("; ", outcome.violations()),
                        outcome.lostCount(),
                        image,
                        null);
            }
            int torn = 0;
            for (final AppendedBatch batch : outcome.absentBatches()) {
                torn += partlyWritten.contains(batch) ? 1 : 0;
            }
            CrashTally.BATCHES.addAndGet(
                    outcome.presentBatches().size() + outcome.absentBatches().size());
            CrashTally.BATCHES_TORN.addAndGet(torn);
            PowerLossStatistics.recordBatches(
                    outcome.presentBatches().size(), outcome.absentBatches().size(), torn);
            final List<Appended> base = new ArrayList<>(recovered.size());
            for (final TestRecords.Read read : recovered) {
                base.add(Appended.of(read));
            }
            acks = new AckLog(base, outcome.presentBatches(), expectation.writtenEnd());
            try {
                appendAfterRecovery(wal, disk, acks, depth, random);
            } catch (final RuntimeException ex) {
                throw violation(where, "appending after recovery failed: " + ex, 0, image, ex);
            }
            final Expectation.Outcome readBack = acks.at(Integer.MAX_VALUE)
                    .check(TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED));
            if (!readBack.ok() || readBack.lostCount() > 0) {
                throw violation(
                        where,
                        "after recovery, appends did not read back: " + String.join("; ", readBack.violations()),
                        readBack.lostCount(),
                        image,
                        null);
            }
        } finally {
            wal.close();
        }
        disk.powerOff();
        checkedCount++;
        CrashTally.SIMULATED.incrementAndGet();
        if (depth < DERIVED_DEPTH_MAX) {
            final DiskHistory events = disk.history();
            if (cutBelowProven && choicesPerRecoveryEvent > 0) {
                cutsBelowProven++;
                for (int eventCount = 0; eventCount <= recoveryEventCount; eventCount++) {
                    for (int choice = 0; choice < choicesPerRecoveryEvent; choice++) {
                        PowerLossStatistics.STATES_DURING_RECOVERY.incrementAndGet();
                        checkDerived(image, disk, events, eventCount, acks, where, "during recovery", depth, random);
                    }
                }
            } else {
                final int duringRecovery = random.nextInt(recoveryEventCount + 1);
                PowerLossStatistics.STATES_DURING_RECOVERY.incrementAndGet();
                checkDerived(image, disk, events, duringRecovery, acks, where, "during recovery", depth, random);
            }
            if (events.size() > recoveryEventCount) {
                final int later = recoveryEventCount + 1 + random.nextInt(events.size() - recoveryEventCount);
                checkDerived(image, disk, events, later, acks, where, "after recovery", depth, random);
            }
        }
        TestFiles.deleteRecursively(image.directory());
    }

    private void checkDerived(
            final CrashState parent,
            final SimulatedStorage disk,
            final DiskHistory events,
            final int eventCount,
            final AckLog acks,
            final String where,
            final String when,
            final int depth,
            final SplittableRandom random)
            throws IOException {
        // The disk's initial files are the post-crash directory as it was before the reopen changed it.
        final Path target = Files.createDirectory(parent.directory()
                .resolveSibling(parent.directory().getFileName() + (when.startsWith("during") ? "-r" : "-l")));
        final CrashState image = events.crash(eventCount, random, target);
        check(
                image,
                acks.at(eventCount),
                where + "\n then the power failed again " + when + ", after event " + eventCount + " of "
                        + events.size() + events.lastEvents(eventCount),
                depth + 1,
                random);
    }

    private static void appendAfterRecovery(
            final Wal wal,
            final SimulatedStorage disk,
            final AckLog acks,
            final int depth,
            final SplittableRandom random) {
        final int count = 1 + random.nextInt(APPENDS_AFTER_MAX);
        final int writer = WRITER_BASE + depth;
        if (count >= 2 && random.nextInt(BATCH_AFTER_ONE_IN) == 0) {
            // The same records as one batch, which must be whole in the crashes that follow.
            final WalBatch batch = new WalBatch();
            int framedLeft = WorkloadSpec.BATCH_FRAMED_BYTES_MAX;
            for (int sequence = 0; sequence < count; sequence++) {
                final int size = Math.min(
                        appendAfterSize(random),
                        framedLeft / (count - sequence)
                                - FrameDescriptor.HEADER_LENGTH
                                - FrameDescriptor.FRAME_ALIGNMENT);
                batch.add(TestRecords.tagged(writer, sequence, size));
                framedLeft -= FrameDescriptor.alignedLength(FrameDescriptor.frameLength(size));
            }
            wal.append(batch, Durability.SYNCED);
            final List<Appended> records = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                records.add(new Appended(batch.lsn(i), writer, i, batch.length(i)));
            }
            acks.batch(new AppendedBatch(records));
            acks.durable(disk.eventCount(), batch.lsn(count - 1) + 1);
            acks.written(disk.eventCount(), batch.lsn(count - 1) + 1);
            acks.durable(disk.eventCount(), wal.durablePosition());
            return;
        }
        final Durability[] levels = Durability.values();
        for (int sequence = 0; sequence < count; sequence++) {
            final int size = appendAfterSize(random);
            final Durability durability =
                    sequence == count - 1 ? Durability.SYNCED : levels[random.nextInt(levels.length)];
            final long lsn = wal.append(TestRecords.tagged(writer, sequence, size), durability);
            acks.appended(new Appended(lsn, writer, sequence, size));
            if (durability == Durability.SYNCED) {
                acks.durable(disk.eventCount(), lsn + 1);
            }
            if (durability != Durability.BUFFERED) {
                acks.written(disk.eventCount(), lsn + 1);
            }
            final long durablePosition = wal.durablePosition();
            acks.durable(disk.eventCount(), durablePosition);
            // The position first, then the event count: the events that wrote it are among those counted
            // (the other order would stamp a position with fewer events than wrote it).
            final long writtenPosition = wal.writtenPosition();
            acks.written(disk.eventCount(), writtenPosition);
        }
    }

    private static int appendAfterSize(final SplittableRandom random) {
        return TestRecords.TAG_LENGTH
                + random.nextInt(random.nextBoolean() ? 200 : WorkloadSpec.MAX_RECORD_BYTES - TestRecords.TAG_LENGTH);
    }

    /**
     * The batches of which a crashed directory holds some frames whole and some not: those recovery
     * must give up whole.
     */
    private Set<AppendedBatch> partlyWritten(final Path directory, final List<AppendedBatch> batches)
            throws IOException {
        final Set<AppendedBatch> partly = new HashSet<>();
        final Map<Long, byte[]> segments = new HashMap<>();
        final long segmentMask = spec.segmentCapacityBytes() - 1L;
        for (final AppendedBatch batch : batches) {
            final long base = batch.firstLsn() & ~segmentMask;
            if (!segments.containsKey(base)) {
                segments.put(base, OnDiskFrames.readSegment(directory, base));
            }
            final byte[] segment = segments.get(base);
            int whole = 0;
            for (final Appended record : batch.records()) {
                if (OnDiskFrames.holds(
                        segment, record.lsn() - base, record.writer(), record.sequence(), record.lengthBytes())) {
                    whole++;
                }
            }
            if (whole > 0 && whole < batch.records().size()) {
                partly.add(batch);
            }
        }
        return partly;
    }

    private static AssertionError violation(
            final String where, final String what, final int lostCount, final CrashState image, final Throwable cause) {
        CrashTally.VIOLATIONS.incrementAndGet();
        CrashTally.LOST.addAndGet(lostCount);
        return new AssertionError(
                "power-loss violation: " + what + "\n  " + where + "\n  post-crash directory kept at "
                        + image.directory(),
                cause);
    }
}
