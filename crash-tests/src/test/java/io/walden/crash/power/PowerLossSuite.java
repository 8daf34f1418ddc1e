package io.walden.crash.power;

import io.walden.crash.CrashTally;
import io.walden.format.SegmentNames;
import io.walden.testkit.DiskHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
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

    /**
     * The segment after the one a record is in: the one the log prepares next.
     *
     * @param directory the log's directory.
     * @param lastLsn the LSN of the log's last record.
     * @param segmentBytes the segment capacity.
     * @return the path.
     */
    static Path nextSegment(final Path directory, final long lastLsn, final int segmentBytes) {
        return SegmentNames.segmentPath(directory, lastLsn - lastLsn % segmentBytes + segmentBytes);
    }

    /**
     * Checks a crash after every event of a workload's run, each with several random survival
     * choices, in the run's directory.
     *
     * @param spec the workload.
     * @param run its run.
     * @param tryDirectory the directory the run's log is in, where the crash states are built.
     * @param checker the checks of each state.
     * @param choicesPerPoint random survival choices per event.
     * @param random the source of every choice.
     * @return how many events the run had.
     * @throws Exception if a state cannot be built or a check fails.
     */
    static int checkEveryEvent(
            final WorkloadSpec spec,
            final WorkloadRunner.Run run,
            final Path tryDirectory,
            final CrashStateChecker checker,
            final int choicesPerPoint,
            final SplittableRandom random)
            throws Exception {
        final DiskHistory history = run.disk().history();
        final int eventTotal = history.events().size();
        int image = 0;
        for (int eventCount = 0; eventCount <= eventTotal; eventCount++) {
            for (int choice = 0; choice < choicesPerPoint; choice++) {
                final Path imageDirectory = Files.createDirectory(tryDirectory.resolve("crash-" + image++));
                checker.check(
                        history.crash(eventCount, random, imageDirectory),
                        run.acks().at(eventCount),
                        spec + "\n  the power failed after event " + eventCount + " of " + eventTotal
                                + history.lastEvents(eventCount),
                        0,
                        random);
            }
        }
        return eventTotal;
    }

    /**
     * Counts a violation and describes it.
     *
     * @param suite what the suite calls its violations, e.g. "REPAIR POWER LOSS".
     * @param where the crash state.
     * @param what what is wrong.
     * @param cause the failure that shows it, or null.
     * @return the error to throw.
     */
    static AssertionError violation(final String suite, final String where, final String what, final Throwable cause) {
        CrashTally.VIOLATIONS.incrementAndGet();
        return new AssertionError(suite + " VIOLATION: " + what + "\n  " + where, cause);
    }
}
