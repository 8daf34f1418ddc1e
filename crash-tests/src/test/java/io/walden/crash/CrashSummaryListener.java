package io.walden.crash;

import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints {@link CrashTally#summaryLine()} to standard output when the module's test plan has run.
 * Registered through {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 *
 * <p><b>Threading:</b> called by the JUnit launcher.
 */
public final class CrashSummaryListener implements TestExecutionListener {
    /** Creates the listener; the launcher does this through the service loader. */
    public CrashSummaryListener() {}

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        // A line of its own: other output may not end with a newline.
        System.out.println();
        System.out.println(CrashTally.summaryLine());
        System.out.flush();
    }
}
