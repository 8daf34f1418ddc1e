package io.walden.crash.kit;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.testkit.AckLedger;
import io.walden.testkit.CrashPoint;
import io.walden.testkit.CrashTrial;
import io.walden.testkit.WalCrashTest;
import java.util.SplittableRandom;

/**
 * The published kit's {@link WalCrashTest} on Walden itself, as an application would run it: each
 * trial runs concurrent appenders (every durability level, atomic batches, 64 KiB segments that
 * roll; in a quarter of the trials an EIO or ENOSPC injected into a segment write or sync: ENOSPC on a
 * write must leave the log working and the write retried, anything else must fail it) until the
 * power fails at the trial's crash point, then recovers and checks with {@link AckLedger} that every
 * {@code SYNCED} acknowledgement survived, the log is a prefix of what was appended and nothing was
 * invented; then appends again, crashes again, in half the trials during the recovery itself, and
 * checks again. Each trial checks two crash states.
 */
class KitCrashTrialTest {
    private static final int TRIALS = 300;

    private static WalConfig config(final CrashTrial trial) {
        return trial.configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(8 * 1024)
                .build();
    }

    @WalCrashTest(trials = TRIALS)
    void everyAcknowledgementSurvivesTwoCrashes(final CrashTrial trial) throws Exception {
        final SplittableRandom random = trial.random();
        final WalConfig config = config(trial);
        final AckLedger ledger = new AckLedger(trial.storage());
        final KitWorkload workload =
                new KitWorkload(random, random.nextInt(4) == 0 ? KitWorkload.Faults.ANY : KitWorkload.Faults.NONE);
        final boolean crashDuringRecovery = random.nextBoolean();
        final int recoveryEvents = 1 + random.nextInt(40);
        try {
            trial.runUntilPowerFails(() -> {
                try (Wal wal = Wal.open(config)) {
                    workload.run(wal, trial.storage(), ledger);
                }
            });
            // A fault the workload armed and no operation took would hit the recovery: disarmed.
            trial.storage().failNextWrite(null);
            trial.storage().failNextSync(null);
            trial.crash();
            if (crashDuringRecovery) {
                // The power fails again while the log recovers (or soon after): nothing the first
                // recovery kept may be lost by the second.
                trial.storage().crashAfter(CrashPoint.afterEvents(recoveryEvents));
            }
            trial.runUntilPowerFails(() -> {
                try (Wal wal = Wal.open(config)) {
                    ledger.verifyRecovered(wal);
                    for (int i = 0; i < 3; i++) {
                        ledger.append(wal, new byte[100 + i], Durability.SYNCED);
                    }
                }
            });
            trial.crash();
            try (Wal wal = Wal.open(config)) {
                ledger.verifyRecovered(wal);
            }
        } catch (final AssertionError ex) {
            CrashTally.VIOLATIONS.incrementAndGet();
            throw ex;
        }
        CrashTally.SIMULATED.addAndGet(2);
    }
}
