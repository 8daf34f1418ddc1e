package io.walden.examples.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import io.walden.testkit.CrashReport;
import io.walden.testkit.CrashTrial;
import io.walden.testkit.CrashTrialFailure;
import io.walden.testkit.CrashTrials;
import io.walden.testkit.WalCrashTest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The key-value store under simulated power loss, with the test kit (wal-testkit): every put and
 * delete that returned survives any crash. The same test catches a deliberately broken store that
 * acknowledges a change before it is SYNCED, and prints a key that replays the failure.
 */
final class KvStoreCrashTest {
    /**
     * One trial: random puts and deletes over a few keys until the power fails at the trial's crash
     * point, then a reopen that must hold every change that returned. The change in progress when
     * the power failed may have survived or not; nothing else may differ.
     */
    private static void changesSurviveTheCrash(final CrashTrial trial, final Function<WalConfig, KvStore> opener)
            throws Exception {
        final WalConfig config = trial.configBuilder().build();
        final Map<String, String> acknowledged = new HashMap<>();
        final Map<String, String> inProgress = new HashMap<>();
        final int keys = 2 + trial.random().nextInt(12);
        final int changes = 5 + trial.random().nextInt(60);
        trial.runUntilPowerFails(() -> {
            try (KvStore store = opener.apply(config)) {
                for (int i = 0; i < changes; i++) {
                    final String key = "key-" + trial.random().nextInt(keys);
                    final String value = trial.random().nextInt(6) == 0
                            ? null
                            : i + ":" + "v".repeat(trial.random().nextInt(3000));
                    inProgress.clear();
                    inProgress.put(key, value);
                    if (value == null) {
                        store.delete(key);
                    } else {
                        store.put(key, value);
                    }
                    acknowledged.put(key, value);
                    inProgress.clear();
                }
            }
        });
        final CrashReport crash = trial.crash();
        try (KvStore store = opener.apply(config)) {
            for (int i = 0; i < keys; i++) {
                final String key = "key-" + i;
                final String found = store.get(key);
                final boolean asAcknowledged = Objects.equals(found, acknowledged.get(key));
                final boolean asInProgress = inProgress.containsKey(key) && Objects.equals(found, inProgress.get(key));
                if (!asAcknowledged && !asInProgress) {
                    throw new AssertionError(key + " reads " + describe(found) + " after the crash, but the last change"
                            + " that returned set it to " + describe(acknowledged.get(key))
                            + (inProgress.containsKey(key)
                                    ? " (and the one in progress to " + describe(inProgress.get(key)) + ")"
                                    : "")
                            + "; " + crash);
                }
            }
        }
    }

    private static String describe(final String value) {
        return value == null ? "nothing" : "'" + value.substring(0, Math.min(12, value.length())) + "...'";
    }

    @WalCrashTest
    void everyChangeThatReturnedSurvivesAnyCrash(final CrashTrial trial) throws Exception {
        changesSurviveTheCrash(trial, KvStore::open);
    }

    /**
     * The broken store, run as the kit runs a test by default (200 trials, a new seed each run): it must
     * be caught, and the printed key must replay the failure.
     */
    @Test
    void aStoreThatAcknowledgesBeforeSyncedIsCaughtAndItsKeyReplaysIt() throws Exception {
        // The trials that failed, as seed:crash point: the printed key must name one, and its replay
        // must run that one.
        final Set<String> failed = new HashSet<>();
        final CrashTrials.Body broken = trial -> {
            try {
                changesSurviveTheCrash(trial, KvStore::openAcknowledgingWritten);
            } catch (final AssertionError ex) {
                failed.add(trial.seed() + ":" + (trial.crashPoint() == null ? "end" : trial.crashPoint()));
                throw ex;
            }
        };
        final long startNs = System.nanoTime();
        final CrashTrialFailure failure =
                assertThrows(CrashTrialFailure.class, () -> CrashTrials.named("broken kv store")
                        .run(broken));
        System.out.printf(
                "the broken store was caught in %.1f s; key %s%n",
                (System.nanoTime() - startNs) / 1e9, failure.replayKey());
        // The failing trial's directory is kept for inspection; this failure is on purpose.
        failure.deleteKeptDirectory();
        assertTrue(
                failure.getMessage().contains("-D" + CrashTrials.REPLAY_PROPERTY + "=" + failure.replayKey()),
                failure.getMessage());
        assertTrue(
                String.valueOf(failure.getCause()).contains("after the crash, but the last change"),
                failure.getMessage());
        assertTrue(failed.contains(failure.replayKey()), "the key names no trial that failed: " + failed);
        // Thread timing is not replayed: the replay runs the named trial until it fails again.
        failed.clear();
        final CrashTrialFailure again =
                assertThrows(CrashTrialFailure.class, () -> CrashTrials.named("broken kv store replay")
                        .replay(failure.replayKey())
                        .run(broken));
        again.deleteKeptDirectory();
        assertEquals(failure.replayKey(), again.replayKey());
        assertEquals(Set.of(failure.replayKey()), failed, "the replay ran another trial");
    }
}
