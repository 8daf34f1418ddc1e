package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The runner: a log that keeps its promises passes every trial, one whose application acknowledges
 * before SYNCED is caught, with a key that replays the failure and a crash point moved earlier.
 */
final class CrashTrialsTest {
    private static final long SEED = 20_261_126L;

    @Test
    void aLogThatKeepsItsPromisesPassesEveryTrial() {
        final CrashTrials.Summary summary = CrashTrials.named("synced appends")
                .trials(60)
                .seed(SEED)
                .run(trial -> LedgerWorkload.appendCrashVerify(trial, Durability.SYNCED));
        assertEquals(60, summary.trials());
        assertTrue(
                summary.cutMidWorkload() >= 20,
                "only " + summary.cutMidWorkload() + " of 60 trials cut the power during the workload");
    }

    @Test
    void acknowledgingBeforeSyncedIsCaughtAndTheKeyReplaysIt() throws Exception {
        final CrashTrials trials = CrashTrials.named("written taken for synced").seed(SEED);
        // Which trials failed, and with which crash points: the key must name one of them.
        final Set<String> failedTrials = new HashSet<>();
        final CrashTrials.Body body = trial -> {
            try {
                LedgerWorkload.appendCrashVerify(trial, Durability.WRITTEN);
            } catch (final AssertionError ex) {
                failedTrials.add(trial.seed() + ":" + (trial.crashPoint() == null ? "end" : trial.crashPoint()));
                throw ex;
            }
        };
        final CrashTrialFailure failure = assertThrows(CrashTrialFailure.class, () -> trials.run(body));
        failure.deleteKeptDirectory();
        assertTrue(
                failure.getMessage().contains("-D" + CrashTrials.REPLAY_PROPERTY + "=" + failure.replayKey()),
                failure.getMessage());
        assertTrue(String.valueOf(failure.getCause()).contains("acknowledged SYNCED were lost"), failure.getMessage());
        assertTrue(
                failedTrials.contains(failure.replayKey()),
                "the key " + failure.replayKey() + " names no trial that failed: " + failedTrials);
        if (!failure.replayKey().equals(failure.originalKey())) {
            // Moved: to the data path's progress, the steadiest key.
            assertEquals(
                    CrashPoint.Operation.DATA,
                    CrashPoint.parse(point(failure.replayKey())).operation(),
                    failure.getMessage());
        }
        // Thread timing is not replayed: a replay may need a few runs. It runs the named trial.
        failedTrials.clear();
        int replayed = 0;
        for (int run = 0; run < 3 && replayed == 0; run++) {
            try {
                trials.replay(failure.replayKey()).run(body);
            } catch (final CrashTrialFailure again) {
                again.deleteKeptDirectory();
                assertEquals(failure.replayKey(), again.replayKey());
                replayed++;
            }
        }
        assertEquals(1, replayed, "the key " + failure.replayKey() + " did not replay the failure in 3 runs");
        assertEquals(Set.of(failure.replayKey()), failedTrials, "the replay ran another trial");
    }

    private static String point(final String key) {
        return key.substring(key.lastIndexOf(':') + 1);
    }

    @Test
    void aBodyThatNeverCrashesIsRefused() throws Exception {
        final CrashTrialFailure failure = assertThrows(
                CrashTrialFailure.class,
                () -> CrashTrials.named("no crash").trials(3).run(trial -> {
                    try (Wal wal = Wal.open(trial.configBuilder().build())) {
                        wal.append(new byte[10], Durability.SYNCED);
                    }
                }));
        failure.deleteKeptDirectory();
        assertTrue(String.valueOf(failure.getCause()).contains("never called trial.crash()"), failure.getMessage());
    }

    @Test
    void crashPointsFollowWhatTheWorkloadDoes() {
        final int[] counts = new int[CrashPoint.Operation.values().length];
        counts[CrashPoint.Operation.EVENT.ordinal()] = 100;
        counts[CrashPoint.Operation.SYNC.ordinal()] = 4;
        final SplittableRandom random = new SplittableRandom(1);
        int events = 0;
        int syncs = 0;
        for (int i = 0; i < 1000; i++) {
            final CrashPoint point = CrashTrials.drawPoint(random, counts);
            if (point.operation() == CrashPoint.Operation.EVENT) {
                assertTrue(point.count() <= 100, point.toString());
                events++;
            } else {
                assertEquals(CrashPoint.Operation.SYNC, point.operation(), "the workload does no other operation");
                assertTrue(point.count() >= 1 && point.count() <= 4, point.toString());
                syncs++;
            }
        }
        assertTrue(events > 400 && syncs > 400, events + " event points, " + syncs + " sync points");
    }
}
