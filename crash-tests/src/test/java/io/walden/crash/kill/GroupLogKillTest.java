package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.crash.CrashBudget;
import io.walden.crash.CrashTally;
import io.walden.groups.GroupLedger;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupModel;
import io.walden.groups.GroupWorkload;
import io.walden.testing.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL of a child JVM ({@link GroupKillChild}) that appends the steps of {@link GroupWorkload} to a
 * group log on real files (FileChannel, 64 KiB segments): batches over several groups with suffix
 * truncations inside them, prefix truncations, resets, key-values and removals at every durability,
 * and a purge every {@value GroupKillChild#PURGE_EVERY} steps that frees segments and relocates the
 * group that never truncates after one round of pinning. The kills land at random moments and around
 * the open, the purges (while they free, copy and wait for the copies) and the appends ({@link
 * GroupKillTrigger}).
 *
 * <p>A crash loop: {@value #CYCLES_PER_DIRECTORY} children in turn recover the same directory and go on
 * where the last one was killed. After each kill the parent draws the child's steps again from its seed
 * and checks with {@link GroupLedger}, on the directory or on a copy of it (so that the next child's own
 * recovery is then the first to meet the crashed files): every step acknowledged {@code WRITTEN} or
 * {@code SYNCED} survived, each step is there whole or not at all (the last one, whose append had not
 * returned, too), and every group is exactly what the surviving steps make it; and the child's own open
 * found the groups' bounds the parent expected. {@value #CI_KILLS} kills per CI run, counted as {@code
 * kills.groups}; {@link KillCampaign#SEED_PROPERTY} replays a run.
 */
final class GroupLogKillTest {
    /** Kills in a CI run. */
    static final int CI_KILLS = 40;

    private static final int CYCLES_PER_DIRECTORY = 10;
    private static final double SOAK_SHARE = 0.05;
    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long TRIGGER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    private final long seed;
    private final SplittableRandom random;
    private final Map<GroupKillTrigger.Kind, Integer> kindCounts = new EnumMap<>(GroupKillTrigger.Kind.class);
    private int kills;
    private int fallbackKills;
    private int killsAfterRelocation;
    private int interruptedOpens;
    private int interruptedPurges;
    private int purges;
    private int relocatingPurges;
    private long relocatedRecords;
    private long segmentsFreed;
    private long stepsChecked;
    private long stepsKept;
    private long acknowledgementsChecked;
    private int unacknowledgedKept;
    private int unacknowledgedLost;

    GroupLogKillTest() {
        final String fixedSeed = System.getProperty(KillCampaign.SEED_PROPERTY);
        this.seed = fixedSeed != null ? Long.parseLong(fixedSeed) : System.nanoTime();
        this.random = new SplittableRandom(seed);
    }

    @Test
    void everyWrittenAndSyncedStepSurvivesWholeAndEveryGroupIsWhatTheStepsMakeIt() throws Exception {
        final long deadlineNs = CrashBudget.soakDeadlineNanos(SOAK_SHARE);
        final long startNs = System.nanoTime();
        final Path root = Path.of("target", "kill", "groups").toAbsolutePath();
        TestFiles.deleteRecursively(root);
        Files.createDirectories(root);
        final Path stderrFile = root.resolve("child-stderr.log");
        final Path childClasses = root.resolve("child-classes");
        KillableChild.copyChildClasses(childClasses);
        GroupLedger ledger = null;
        Path directory = null;
        for (int cycle = 0; kills < CI_KILLS || (CrashBudget.soak() && System.nanoTime() - deadlineNs < 0); cycle++) {
            if (cycle % CYCLES_PER_DIRECTORY == 0) {
                if (directory != null) {
                    TestFiles.deleteRecursively(directory);
                }
                directory = root.resolve("log-" + cycle / CYCLES_PER_DIRECTORY);
                ledger = new GroupLedger();
            }
            runCycle(directory, ledger, cycle, stderrFile, childClasses);
        }
        TestFiles.deleteRecursively(root);
        System.out.println(summary(System.nanoTime() - startNs));
        assertTrue(interruptedPurges > 0, "no kill interrupted a purge");
        assertTrue(killsAfterRelocation > 0, "no kill landed right after a purge that relocated");
        assertTrue(interruptedOpens > 0, "no kill interrupted the opening of a log");
        assertTrue(unacknowledgedKept + unacknowledgedLost > 0, "no kill interrupted an append");
    }

    private void runCycle(
            final Path directory,
            final GroupLedger ledger,
            final int cycle,
            final Path stderrFile,
            final Path childClasses)
            throws Exception {
        final GroupKillTrigger trigger = GroupKillTrigger.random(random);
        final long childSeed = random.nextLong();
        final String context = "cycle " + cycle + " (" + trigger + ", child seed " + childSeed + ", seed " + seed + ", "
                + directory + ", child stderr in " + stderrFile + ")";
        final GroupChildReport report = new GroupChildReport();
        final KillableChild child = KillableChild.start(
                GroupKillChild.class,
                List.of(directory.toString(), Long.toString(childSeed)),
                report.listener(trigger),
                stderrFile,
                childClasses);
        try {
            if (!child.awaitReadyOrDead(OPEN_TIMEOUT_NS)) {
                throw new AssertionError("the child did not open its log within 60 s: " + context);
            }
            if (trigger.kind() == GroupKillTrigger.Kind.TIMED) {
                // The child never exits by itself: this waits out the delay, then it is killed.
                child.awaitDeath(trigger.delayNs());
            } else if (!child.awaitDeath(TRIGGER_TIMEOUT_NS)) {
                fallbackKills++;
            } else if (trigger.kind() == GroupKillTrigger.Kind.AFTER_RELOCATION) {
                killsAfterRelocation++;
            }
        } finally {
            child.kill();
        }
        child.awaitKilled(report, context);
        interruptedOpens += report.opening() && !report.ready() ? 1 : 0;
        interruptedPurges += report.purgeInterrupted() ? 1 : 0;
        purges += report.purges();
        relocatingPurges += report.relocatingPurges();
        relocatedRecords += report.relocatedRecords();
        segmentsFreed += report.segmentsFreed();
        final Path checked = random.nextBoolean() ? directory : KillCampaign.copyOf(directory);
        check(checked, ledger, report, childSeed, context);
        if (checked != directory) {
            TestFiles.deleteRecursively(checked);
        }
        kills++;
        kindCounts.merge(trigger.kind(), 1, Integer::sum);
        CrashTally.KILLS_GROUPS.incrementAndGet();
    }

    /**
     * Checks what a killed child left: notes its steps, drawn again from its seed, in the ledger and
     * verifies the reopened log with it.
     */
    private void check(
            final Path checked,
            final GroupLedger ledger,
            final GroupChildReport report,
            final long childSeed,
            final String context) {
        final String where = "after the kill of " + context + ", child: " + report.summary() + ", checked "
                + (checked.getFileName().toString().endsWith("-check") ? "on a copy" : "in place");
        try {
            checkOpenedBounds(ledger.current(), report);
            final SplittableRandom steps = new SplittableRandom(childSeed);
            for (int n = 0; n < report.steps(); n++) {
                final GroupWorkload.Next next = GroupWorkload.next(ledger.current(), steps);
                final GroupChildReport.Ack ack = report.ack(n);
                if (ack == null) {
                    ledger.noteUnacknowledged(next.step());
                } else if (ack.level() != next.durability().name().charAt(0)) {
                    throw new AssertionError("step " + n + " was appended at " + ack.level() + ", drawn again at "
                            + next.durability() + ": the child drew other steps");
                } else {
                    ledger.noteAcknowledged(next.step(), ack.lsn(), ack.promisesSurvival());
                }
            }
            final int held;
            try (GroupLog log = GroupLog.open(GroupKillChild.config(checked))) {
                held = ledger.verifyRecovered(log);
            }
            stepsChecked += report.steps();
            stepsKept += held;
            acknowledgementsChecked += report.acknowledged();
            if (report.steps() > report.acknowledged()) {
                unacknowledgedKept += held == report.steps() ? 1 : 0;
                unacknowledgedLost += held == report.steps() ? 0 : 1;
            }
        } catch (final GroupLedger.AcknowledgedStepsLost ex) {
            CrashTally.LOST.addAndGet(ex.lostSteps());
            CrashTally.VIOLATIONS.incrementAndGet();
            throw new AssertionError("GROUP LOG KILL VIOLATION " + where + ": " + ex.getMessage(), ex);
        } catch (final AssertionError | RuntimeException ex) {
            CrashTally.VIOLATIONS.incrementAndGet();
            throw new AssertionError("GROUP LOG KILL VIOLATION " + where + ": " + ex, ex);
        }
        CrashTally.BATCHES.addAndGet(report.steps());
    }

    /** The child's open must have found each group as the checks before left it. */
    private static void checkOpenedBounds(final GroupModel expected, final GroupChildReport report) {
        for (final Map.Entry<Long, long[]> group : report.bounds().entrySet()) {
            final long g = group.getKey();
            final long[] found = group.getValue();
            if (found[0] != expected.first(g) || found[1] != expected.last(g)) {
                throw new AssertionError("the child's open found group " + g + " at [" + found[0] + ", " + found[1]
                        + "], expected [" + expected.first(g) + ", " + expected.last(g) + "]");
            }
        }
    }

    private String summary(final long elapsedNs) {
        return String.format(
                "KILL groups: %d kills in %.1f s; triggers %s (%d by timeout, %d right after a relocation); interrupted: %d opens, %d purges (of"
                        + " %d; %d records relocated by %d and %d segments freed by those that returned); %d steps checked"
                        + " (%d kept, %d acknowledged), %d appends cut by the kill (%d found whole, %d absent);"
                        + " seed %d (-D%s=%d replays)",
                kills,
                elapsedNs / 1e9,
                kindCounts,
                fallbackKills,
                killsAfterRelocation,
                interruptedOpens,
                interruptedPurges,
                purges,
                relocatedRecords,
                relocatingPurges,
                segmentsFreed,
                stepsChecked,
                stepsKept,
                acknowledgementsChecked,
                unacknowledgedKept + unacknowledgedLost,
                unacknowledgedKept,
                unacknowledgedLost,
                seed,
                KillCampaign.SEED_PROPERTY,
                seed);
    }
}
