package io.walden.crash.power;

import io.walden.crash.CrashTally;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What every directed power-loss suite sets up around its tests: the fail-stop log lines of the logs
 * it crashes are silenced, and crash states are built in a scratch space in memory, kept if a
 * violation was found (for the failure message's paths) and deleted otherwise.
 *
 * <p><b>Threading:</b> JUnit runs a suite's lifecycle methods and tests on one thread.
 */
abstract class PowerLossSuite {
    private static final FailStopLogSilencer SILENCER = new FailStopLogSilencer();
    /** Where the suite builds its logs and crash states. */
    static ScratchSpace scratch;

    @BeforeAll
    static void startSuite() throws Exception {
        SILENCER.silence();
        scratch = ScratchSpace.create();
    }

    @AfterAll
    static void finishSuite() throws Exception {
        SILENCER.restore();
        if (CrashTally.VIOLATIONS.get() == 0) {
            scratch.close();
        }
    }
}
