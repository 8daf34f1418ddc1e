package io.walden.crash.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.groups.GroupLedger;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupModel;
import io.walden.testkit.CrashPoint;
import io.walden.testkit.CrashTrial;
import io.walden.testkit.CrashTrials;
import io.walden.testkit.WalCrashTest;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;

/**
 * A group log under simulated power loss at every kind of event ({@link WalCrashTest}): each trial runs
 * batches over several groups (entries, suffix truncations inside batches), prefix truncations, resets,
 * removals and key-values at every durability, with a purge every few steps that frees segments and
 * relocates the live entries of a group that never truncates, until the power fails; then reopens and
 * checks with {@link GroupLedger} that every {@code SYNCED} step survived, each step whole or not at
 * all, and every group is exactly what the surviving steps make it; then appends and crashes again (in
 * half the trials during the recovery itself) and checks again.
 */
class GroupLogPowerLossTest {
    private static final int TRIALS = 200;
    private static final int BUSY_GROUPS = 4;
    private static final long LAGGARD = 10;
    private static final long KEYED = 11;
    static final AtomicLong RELOCATED = new AtomicLong();

    @AfterAll
    static void relocationWasExercised() {
        // A run of one replayed trial may not reach a purge; a whole run must.
        if (System.getProperty(CrashTrials.REPLAY_PROPERTY) == null) {
            assertTrue(RELOCATED.get() > 0, "no trial relocated anything: the suite tests too little");
        }
        System.out.println("GROUP LOG POWER LOSS: " + RELOCATED.get() + " records relocated across the trials");
    }

    private static GroupLogConfig config(final CrashTrial trial) {
        final WalConfig wal = trial.configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(16 * 1024)
                .build();
        return GroupLogConfig.builder(wal).relocateAfterRounds(1).readers(1).build();
    }

    @WalCrashTest(trials = TRIALS)
    void everySyncedStepSurvivesWholeAndGroupsAreWhatTheStepsMakeThem(final CrashTrial trial) throws Exception {
        final SplittableRandom random = trial.random();
        final GroupLogConfig config = config(trial);
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
            final GroupModel now = ledger.current();
            final GroupLedger.Step next = new GroupLedger.Step();
            final int kind = random.nextInt(20);
            if (kind < 12) {
                final int groups = 1 + random.nextInt(3);
                for (int i = 0; i < groups; i++) {
                    final long g = random.nextInt(BUSY_GROUPS);
                    if (random.nextInt(6) == 0 && !now.isEmpty(g)) {
                        next.truncateSuffix(g, now.last(g) - 1);
                        now.truncateSuffix(g, now.last(g) - 1);
                    }
                    final long index = now.last(g) + 1;
                    final byte[] entry = bytes(random, 200 + random.nextInt(1800));
                    next.add(g, index, entry);
                    now.append(g, index, entry);
                }
                if (random.nextInt(4) == 0) {
                    next.add(LAGGARD, now.last(LAGGARD) + 1, bytes(random, 100));
                }
            } else if (kind < 16) {
                final long g = random.nextInt(BUSY_GROUPS);
                next.truncatePrefix(g, Math.max(now.first(g), now.last(g) - 3));
            } else if (kind < 17) {
                next.reset(random.nextInt(BUSY_GROUPS), 1 + random.nextInt(100));
            } else if (kind < 18) {
                next.removeGroup(KEYED);
            } else {
                next.put(KEYED, "term", bytes(random, 8)).put(LAGGARD, "vote", bytes(random, 12));
            }
            ledger.append(log, next, durability(random));
            if (step % 8 == 7) {
                RELOCATED.addAndGet(log.purge().relocatedRecords());
            }
        }
    }

    private static Durability durability(final SplittableRandom random) {
        final int d = random.nextInt(3);
        return d == 0 ? Durability.BUFFERED : d == 1 ? Durability.WRITTEN : Durability.SYNCED;
    }

    private static byte[] bytes(final SplittableRandom random, final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }
}
