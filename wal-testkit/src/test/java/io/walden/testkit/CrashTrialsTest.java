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
        // Thread timing is not replayed: the replay runs the named trial until it fails again.
        failedTrials.clear();
        final CrashTrialFailure again = assertThrows(CrashTrialFailure.class, () -> trials.replay(failure.replayKey())
                .run(body));
        again.deleteKeptDirectory();
        assertEquals(failure.replayKey(), again.replayKey());
        assertEquals(Set.of(failure.replayKey()), failedTrials, "the replay ran another trial");
    }

    @Test
    void aReplayRunsTheTrialUntilItFailsAgainUpToTheBound() throws Exception {
        // A trial that fails only on its third run, as one whose failure needs a thread interleaving.
        final int[] runs = {0};
        final CrashTrialFailure failure =
                assertThrows(CrashTrialFailure.class, () -> CrashTrials.named("fails on the third run")
                        .replay("42:data#3")
                        .run(trial -> {
                            trial.crash();
                            if (++runs[0] == 3) {
                                throw new AssertionError("the third run");
                            }
                        }));
        failure.deleteKeptDirectory();
        assertEquals(3, runs[0]);
        assertEquals("42:data#3", failure.replayKey());
        assertTrue(failure.getMessage().contains("failed again on run 3"), failure.getMessage());

        runs[0] = 0;
        final CrashTrials.Summary summary = CrashTrials.named("never fails")
                .replay("42:data#3")
                .run(trial -> {
                    trial.crash();
                    runs[0]++;
                });
        assertEquals(CrashTrials.REPLAY_RUNS_MAX, runs[0], "a replay that never fails runs the bound");
        assertEquals(CrashTrials.REPLAY_RUNS_MAX, summary.trials());
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
