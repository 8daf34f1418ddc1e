package io.walden.crash.power;

import io.walden.crash.CrashBudget;
import io.walden.crash.CrashTally;
import io.walden.testing.TestFiles;
import io.walden.testing.property.PropertyRunner;
import io.walden.testing.property.Statistics;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskEvent;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Simulated power loss: a random workload runs on a {@link SimulatedStorage} (several appender threads,
 * every durability level, records that cross pages and roll 64 KiB segments, atomic batches among
 * them, open-loop producers whose acknowledgements come from an {@code AsyncAppender}'s poll, truncations, clean close and reopen, and often a power failure that freezes the disk in the
 * middle of the last session). Then the power fails, in turn, after each of {@value #CRASH_POINTS_PER_RUN} random points
 * of the disk's event log (and at its very end); each time a random post-crash directory is built (a
 * random subset of unsynced pages in random versions, torn sectors, forgotten directory operations,
 * sizes reverted) and {@link CrashStateChecker} reopens it and checks every promise: each {@code
 * SYNCED} acknowledgement and observed durable position survives, the log is exactly a contiguous run
 * of the appended sequence, each batch is in it whole or not at all (one the crash left partly on disk
 * is counted as {@code batchesTorn}), opening never fails, appends work afterwards, and a second power
 * failure during that recovery or after those appends is survived too.
 *
 * <p>A failure message names the workload, the crash seed, the crash point with the last events
 * before it, and every survival choice; Walden's {@link PropertyRunner} draws the workloads, shrinks
 * a failing one by deleting sessions, threads and steps, and prints the case seed that replays it
 * ({@code -Dwalden.property.case=<seed>}). Thread interleavings are not replayed exactly, so a replay
 * may need a few runs.
 *
 * <p>Each try checks about {@code 3 * }{@value #CRASH_POINTS_PER_RUN} states; {@value #TRIES} tries
 * check more than {@value #STATES_PER_RUN_MIN}, which the test checks at the end. Under {@code
 * -Pcrash-soak} it keeps drawing workloads for {@value #SOAK_SHARE} of the soak time.
 */
// A log that stops making progress (a lost wake, a duty never let go) fails the test, with the stack
// traces in the report, rather than hold up the build: a run takes about a minute.
@Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PowerLossPropertyTest {
    private static final int TRIES = 150;
    private static final int CRASH_POINTS_PER_RUN = 45;
    private static final long STATES_PER_RUN_MIN = 20_000;
    /** This suite's share of the soak time. */
    static final double SOAK_SHARE = 0.4;

    private static final AtomicLong STATES_CHECKED = new AtomicLong();
    private static final AtomicLong WORKLOADS_RUN = new AtomicLong();
    private static final AtomicLong POWER_FAILED_RUNS = new AtomicLong();
    private static final AtomicLong APPENDS = new AtomicLong();
    private static final AtomicLong BATCH_APPENDS = new AtomicLong();
    private static final AtomicLong OPEN_LOOP_APPENDS = new AtomicLong();
    private static final AtomicLong BATCH_RECORDS = new AtomicLong();
    private static final FailStopLogSilencer SILENCER = new FailStopLogSilencer();
    private static ScratchSpace scratch;
    private static long startNs;

    /**
     * One case: a workload and the seed of its crash points and survival choices.
     *
     * @param spec the workload.
     * @param crashSeed the crash seed.
     */
    record PowerLossCase(WorkloadSpec spec, long crashSeed) {
        @Override
        public String toString() {
            return spec + ", crash seed " + crashSeed;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        SILENCER.silence();
        scratch = ScratchSpace.create();
        startNs = System.nanoTime();
    }

    @AfterAll
    static void finish() throws Exception {
        SILENCER.restore();
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs);
        System.out.println("power-loss: " + STATES_CHECKED.get() + " crash states checked from " + WORKLOADS_RUN.get()
                + " workloads (" + POWER_FAILED_RUNS.get() + " froze mid-session; " + APPENDS.get()
                + " appends planned, "
                + BATCH_APPENDS.get() + " of them batches of " + BATCH_RECORDS.get() + " records, "
                + OPEN_LOOP_APPENDS.get() + " open-loop through an AsyncAppender) in " + seconds
                + " s; "
                + PowerLossStatistics.summary());
        if (CrashTally.VIOLATIONS.get() == 0) {
            scratch.close();
        }
    }

    @Test
    void everyCrashStateKeepsEveryPromise() {
        final long statesBefore = STATES_CHECKED.get();
        final long compressedBefore = CrashTally.COMPRESSED_RECORDS.get();
        PropertyRunner.forAll(
                        "power loss",
                        random -> new PowerLossCase(WorkloadGen.workloads().draw(random), random.nextLong()))
                .tries(TRIES)
                .until(CrashBudget.soakDeadlineNanos(SOAK_SHARE))
                .shrinkWith(failing -> WorkloadGen.shrink(failing.spec()).stream()
                        .map(spec -> new PowerLossCase(spec, failing.crashSeed()))
                        .collect(Collectors.toList()))
                .check(PowerLossPropertyTest::checkEveryCrashState);
        final long states = STATES_CHECKED.get() - statesBefore;
        if (CrashTally.COMPRESSED_RECORDS.get() == compressedBefore) {
            throw new AssertionError("no workload stored a record compressed: the crash states held no encoded frame");
        }
        if (!CrashBudget.soak() && states < STATES_PER_RUN_MIN) {
            throw new AssertionError("only " + states + " power-loss crash states were checked, fewer than the "
                    + STATES_PER_RUN_MIN + " a run must check");
        }
    }

    private static void checkEveryCrashState(final PowerLossCase powerLossCase, final Statistics statistics)
            throws Exception {
        final WorkloadSpec spec = powerLossCase.spec();
        final long crashSeed = powerLossCase.crashSeed();
        final Path tryDirectory = scratch.newTryDirectory();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        WORKLOADS_RUN.incrementAndGet();
        if (run.powerFailed()) {
            POWER_FAILED_RUNS.incrementAndGet();
        }
        statistics.collect("froze mid-session", run.powerFailed());
        statistics.collect("sessions", spec.phases().size());
        for (final WorkloadSpec.Phase phase : spec.phases()) {
            for (final List<WorkloadSpec.Step> steps : phase.threads()) {
                for (final WorkloadSpec.Step step : steps) {
                    APPENDS.incrementAndGet();
                    if (step.openLoop()) {
                        OPEN_LOOP_APPENDS.incrementAndGet();
                    }
                    if (step.batch()) {
                        BATCH_APPENDS.incrementAndGet();
                        BATCH_RECORDS.addAndGet(step.sizes().size());
                    }
                }
            }
        }
        final DiskHistory diskHistory = run.disk().history();
        final List<DiskEvent> events = diskHistory.events();
        final SplittableRandom random = new SplittableRandom(crashSeed);
        final int[] crashPoints = crashPoints(events, random);
        final CrashStateChecker checker = new CrashStateChecker(spec);
        try {
            for (int i = 0; i < crashPoints.length; i++) {
                final int eventCount = crashPoints[i];
                final Path imageDirectory = Files.createDirectory(tryDirectory.resolve("crash-" + i));
                final CrashState image = diskHistory.crash(eventCount, random, imageDirectory);
                final String history = spec + "\n  crash seed " + crashSeed + ": the power failed after event "
                        + eventCount + " of " + events.size()
                        + (run.powerFailed() && eventCount == events.size() ? " (where the disk froze)" : "")
                        + diskHistory.lastEvents(eventCount);
                checker.check(image, run.acks().at(eventCount), history, 0, random);
            }
        } finally {
            STATES_CHECKED.addAndGet(checker.checkedCount());
        }
        TestFiles.deleteRecursively(tryDirectory);
    }

    /**
     * Crash points, ascending, always including the end of the log: half uniform over the log, half
     * right after a directory operation or a sync, where the windows that metadata ordering and sync
     * coverage depend on are.
     */
    private static int[] crashPoints(final List<DiskEvent> events, final SplittableRandom random) {
        final List<Integer> afterMetadata = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            final DiskEvent event = events.get(i);
            if (!(event instanceof DiskEvent.Write) && !(event instanceof DiskEvent.WriteDone)) {
                afterMetadata.add(i + 1);
            }
        }
        final int[] points = new int[CRASH_POINTS_PER_RUN + 1];
        for (int i = 0; i < CRASH_POINTS_PER_RUN; i++) {
            points[i] = afterMetadata.isEmpty() || random.nextBoolean()
                    ? random.nextInt(events.size() + 1)
                    : afterMetadata.get(random.nextInt(afterMetadata.size()));
        }
        points[CRASH_POINTS_PER_RUN] = events.size();
        Arrays.sort(points);
        return points;
    }
}
