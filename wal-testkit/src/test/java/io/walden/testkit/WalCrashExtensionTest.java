package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** {@code @WalCrashTest} as a user's build runs it: through the JUnit Platform launcher. */
final class WalCrashExtensionTest {
    private static TestExecutionSummary run(final Class<?> fixture) {
        final LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(fixture))
                .build();
        final Launcher launcher = LauncherFactory.create();
        final SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        return listener.getSummary();
    }

    @Test
    void aPassingBodyRunsOncePerTrialAsOneTest() {
        ExtensionFixtures.SEEDS.clear();
        ExtensionFixtures.beforeEachRuns = 0;
        final TestExecutionSummary summary = run(ExtensionFixtures.Passing.class);
        assertEquals(1, summary.getTestsSucceededCount(), failures(summary));
        assertEquals(8, ExtensionFixtures.SEEDS.size(), "each of the 8 trials has its own seed");
        assertEquals(1, ExtensionFixtures.beforeEachRuns, "@BeforeEach runs once around the trials");
    }

    @Test
    void aFailingTrialFailsTheTestWithItsReplayKeyAndTheKeyReplaysIt() throws Exception {
        final TestExecutionSummary summary = run(ExtensionFixtures.Failing.class);
        assertEquals(1, summary.getTestsFailedCount(), "the broken application was not caught");
        final CrashTrialFailure failure = assertInstanceOf(
                CrashTrialFailure.class, summary.getFailures().get(0).getException());
        assertTrue(failure.getMessage().contains("-Dwalden.crash.replay=" + failure.replayKey()), failure.getMessage());
        // The system property replays that one trial, until it fails again (thread timing).
        final String previous = System.setProperty(CrashTrials.REPLAY_PROPERTY, failure.replayKey());
        try {
            final TestExecutionSummary replay = run(ExtensionFixtures.Failing.class);
            if (replay.getTestsFailedCount() == 1
                    && replay.getFailures().get(0).getException() instanceof CrashTrialFailure kept) {
                kept.deleteKeptDirectory();
            }
            final boolean replayed = replay.getTestsFailedCount() == 1
                    && replay.getFailures().get(0).getException() instanceof CrashTrialFailure again
                    && again.replayKey().equals(failure.replayKey())
                    && again.getMessage().contains("replay of " + failure.replayKey());
            assertTrue(replayed, "the key " + failure.replayKey() + " did not replay the failure");
        } finally {
            failure.deleteKeptDirectory();
            if (previous == null) {
                System.clearProperty(CrashTrials.REPLAY_PROPERTY);
            } else {
                System.setProperty(CrashTrials.REPLAY_PROPERTY, previous);
            }
        }
    }

    private static String failures(final TestExecutionSummary summary) {
        final List<TestExecutionSummary.Failure> failures = summary.getFailures();
        return failures.isEmpty()
                ? "no failure"
                : String.valueOf(failures.get(0).getException());
    }
}
