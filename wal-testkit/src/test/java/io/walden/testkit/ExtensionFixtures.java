package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.walden.Durability;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * Test classes that {@link WalCrashExtensionTest} runs through the JUnit launcher, as a user's build
 * would run them. Not run on their own (nested classes are not picked up by the build's test run).
 */
final class ExtensionFixtures {
    /** Seeds of the trials the last run of {@link Passing} saw. */
    static final Set<Long> SEEDS = new HashSet<>();
    /** How often {@link Passing}'s {@code @BeforeEach} ran. */
    static int beforeEachRuns;

    private ExtensionFixtures() {}

    /** A log that keeps its promises: every trial passes. */
    static final class Passing {
        @BeforeEach
        void countSetUp() {
            beforeEachRuns++;
        }

        @WalCrashTest(trials = 8, seed = 11)
        void syncedAppendsSurvive(final TestInfo info, final CrashTrial trial) throws Exception {
            assertNotNull(info.getTestMethod().orElse(null), "the other parameters are resolved as usual");
            SEEDS.add(trial.seed());
            assertEquals(0, trial.storage().eventCount(), "each trial starts on a fresh storage");
            LedgerWorkload.appendCrashVerify(trial, Durability.SYNCED);
        }
    }

    /** An application that acknowledges WRITTEN records as durable: some trial fails. */
    static final class Failing {
        @WalCrashTest(seed = 11)
        void writtenTakenForSynced(final CrashTrial trial) throws Exception {
            LedgerWorkload.appendCrashVerify(trial, Durability.WRITTEN);
        }
    }
}
