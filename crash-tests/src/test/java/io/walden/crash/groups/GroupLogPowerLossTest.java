package io.walden.crash.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.groups.GroupLedger;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupWorkload;
import io.walden.groups.RelocatedRecordDescriptor;
import io.walden.testkit.CrashPoint;
import io.walden.testkit.CrashTrial;
import io.walden.testkit.CrashTrials;
import io.walden.testkit.SimulatedStorage;
import io.walden.testkit.WalCrashTest;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;

/**
 * A group log under simulated power loss at every kind of event ({@link WalCrashTest}): each trial runs
 * the steps of {@link GroupWorkload}, batches over several groups (entries, suffix truncations inside
 * batches), prefix truncations, resets, removals and key-values at every durability, with a purge
 * every few steps that frees segments and relocates the live entries of a group that never truncates (to
 * the relocation log, a second directory on the same simulated power supply, whose own events are crash
 * points in half the trials), until the power fails; then reopens and checks with {@link GroupLedger} that every {@code SYNCED} step survived, each step whole or not at
 * all, and every group is exactly what the surviving steps make it; then appends and crashes again (in
 * half the trials during the recovery itself) and checks again.
 */
class GroupLogPowerLossTest {
    private static final int TRIALS = 200;
    static final AtomicLong RELOCATED = new AtomicLong();

    @AfterAll
    static void relocationWasExercised() {
        // A run of one replayed trial may not reach a purge; a whole run must.
        if (System.getProperty(CrashTrials.REPLAY_PROPERTY) == null) {
            assertTrue(RELOCATED.get() > 0, "no trial relocated anything: the suite tests too little");
        }
        System.out.println("GROUP LOG POWER LOSS: " + RELOCATED.get() + " records relocated across the trials");
    }

    private static GroupLogConfig config(final CrashTrial trial, final SimulatedStorage relocation) {
        final WalConfig wal = trial.configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(16 * 1024)
                .build();
        final WalConfig relocated = relocation
                .configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(16 * 1024 + RelocatedRecordDescriptor.HEADER_LENGTH)
                .build();
        return GroupLogConfig.builder(wal)
                .relocationWalConfig(relocated)
                .relocateAfterRounds(1)
                .readers(1)
                .build();
    }

    @WalCrashTest(trials = TRIALS)
    void everySyncedStepSurvivesWholeAndGroupsAreWhatTheStepsMakeThem(final CrashTrial trial) throws Exception {
        final SplittableRandom random = trial.random();
        final SimulatedStorage relocation = SimulatedStorage.builder(
                        trial.directory().resolve(GroupLogConfig.RELOCATION_DIRECTORY_NAME))
                .seed(random.nextLong())
                .sharingPowerWith(trial.storage())
                .build();
        // Not in the first trial: it runs to its end to count the events the others' crash points are drawn from.
        if (random.nextBoolean() && trial.crashPoint() != null) {
            relocation.crashAfter(CrashPoint.afterEvents(1 + random.nextInt(120)));
        }
        final GroupLogConfig config = config(trial, relocation);
        final GroupLedger ledger = new GroupLedger();
        final int steps = 40 + random.nextInt(60);
        final boolean crashDuringRecovery = random.nextBoolean();
        try {
            trial.runUntilPowerFails(() -> {
                try (GroupLog log = GroupLog.open(config)) {
                    run(log, ledger, random, steps);
                }
            });
            trial.crash();
            relocation.crash(random.nextLong());
            if (crashDuringRecovery) {
                trial.storage().crashAfter(CrashPoint.afterEvents(1 + random.nextInt(40)));
            }
            trial.runUntilPowerFails(() -> {
                try (GroupLog log = GroupLog.open(config)) {
                    ledger.verifyRecovered(log);
                    run(log, ledger, random, 10);
                }
            });
            trial.crash();
            relocation.crash(random.nextLong());
            try (GroupLog log = GroupLog.open(config)) {
                ledger.verifyRecovered(log);
            }
        } catch (final AssertionError ex) {
            CrashTally.VIOLATIONS.incrementAndGet();
            throw ex;
        }
        CrashTally.SIMULATED.addAndGet(2);
    }

    private static void run(
            final GroupLog log, final GroupLedger ledger, final SplittableRandom random, final int steps) {
        for (int step = 0; step < steps; step++) {
            final GroupWorkload.Next next = GroupWorkload.next(ledger.current(), random);
            ledger.append(log, next.step(), next.durability());
            if (step % 8 == 7) {
                RELOCATED.addAndGet(log.purge().relocatedRecords());
            }
        }
    }
}
