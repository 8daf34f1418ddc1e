package io.walden.crash.corruption;

import io.walden.crash.CrashTally;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Adds every failed assertion of a test class to {@link CrashTally#VIOLATIONS}, so that the
 * {@code CRASH-SUMMARY} line tells the truth for a red run of the structural and policy suites, where
 * each failed assertion is a contract the recovery broke. (The bit-flip campaigns count their
 * violations themselves, one per flip.)
 *
 * <p><b>Threading:</b> called by JUnit; the tally is atomic.
 */
final class ViolationCounter implements TestWatcher {
    /** Created by JUnit through {@code @ExtendWith}. */
    ViolationCounter() {}

    @Override
    public void testFailed(final ExtensionContext context, final Throwable cause) {
        if (cause instanceof AssertionError) {
            CrashTally.VIOLATIONS.incrementAndGet();
        }
    }
}
