package io.walden.crash.kill;

import io.walden.crash.CrashBudget;
import io.walden.crash.CrashTally;
import io.walden.crash.OnDiskFrames;
import io.walden.format.SegmentNames;
import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Kills child JVMs that append to a log on real files, again and again, and checks what each left
 * ({@link KillLedger}). One campaign covers one backend family: each cycle uses it buffered, or with
 * O_DIRECT one time in four.
 *
 * <p>A directory is reused for {@value #CYCLES_PER_DIRECTORY} cycles, so each child recovers what the
 * previous one left. Every other check reopens a copy of the directory instead of the directory itself,
 * so that the next child's own recovery is what first meets the crashed files (and a kill during that
 * recovery is a crash of a recovery). The first cycle of each directory may be killed while the log is
 * being created.
 *
 * <p>Some cycles ({@link KillTrigger.Kind#TORN_BATCH}, 15%) watch the child's newest segment and
 * kill it as soon as the segment ends inside a batch: a kill at a random moment rarely finds a batch
 * half written, since its frames are written within microseconds of each other.
 *
 * <p><b>Threading:</b> used by the test thread only.
 */
final class KillCampaign {
    /** Kills per backend in a CI run. */
    static final int CI_KILLS = 100;
    /** System property that fixes the campaign's random seed, to replay a run. */
    static final String SEED_PROPERTY = "crash.kill.seed";

    private static final int CYCLES_PER_DIRECTORY = 20;
    private static final int CHILD_THREADS = 3;
    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long TRIGGER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(3);
    /** How long a {@link KillTrigger.Kind#TORN_BATCH} cycle looks for a moment inside a batch. */
    private static final long TORN_BATCH_SEARCH_NS = TimeUnit.SECONDS.toNanos(2);

    private final String family;
    private final Path root;
    private final int killsPerRun;
    private final AtomicLong killCounter;
    private final long seed;
    private final SplittableRandom random;
    private final Map<KillTrigger.Kind, Integer> kindCounts = new EnumMap<>(KillTrigger.Kind.class);
    private int kills;
    private int directKills;
    private int dsyncKills;
    private int fallbackKills;
    private int interruptedPreparations;
    private int interruptedTruncations;
    private int interruptedOpens;
    private long recordsChecked;
    private long acksChecked;
    private long batchesChecked;
    private long batchesTorn;
    private int tornBatchKills;
    private long tornBatchLooks;

    /**
     * Creates a campaign.
     *
     * @param family {@code nio} or {@code uring}.
     * @param root directory under which the log directories go.
     * @param killCounter the {@link CrashTally} counter of this backend.
     */
    KillCampaign(final String family, final Path root, final AtomicLong killCounter) {
        this(family, root, killCounter, CI_KILLS);
    }

    /**
     * Creates a campaign of fewer kills than {@link #CI_KILLS} (the other file systems' runs).
     *
     * @param family {@code nio} or {@code uring}.
     * @param root directory under which the log directories go.
     * @param killCounter the {@link CrashTally} counter of this backend.
     * @param killsPerRun kills in a run outside a soak.
     */
    KillCampaign(final String family, final Path root, final AtomicLong killCounter, final int killsPerRun) {
        this.family = family;
        this.root = root;
        this.killsPerRun = killsPerRun;
        this.killCounter = killCounter;
        final String fixedSeed = System.getProperty(SEED_PROPERTY);
        this.seed = fixedSeed != null ? Long.parseLong(fixedSeed) : System.nanoTime();
        this.random = new SplittableRandom(seed);
    }

    /**
     * Runs its kills ({@link #CI_KILLS} unless given), or under soak until the deadline, whichever is later.
     *
     * @param soakShare share of the soak time for this campaign.
     * @return a summary line.
     * @throws Exception on a harness failure; an {@link AssertionError} on a violation.
     */
    String run(final double soakShare) throws Exception {
        final long deadlineNs = CrashBudget.soakDeadlineNanos(soakShare);
        final long startNs = System.nanoTime();
        TestFiles.deleteRecursively(root);
        Files.createDirectories(root);
        final Path stderrFile = root.resolve("child-stderr.log");
        final Path childClasses = root.resolve("child-classes");
        KillableChild.copyChildClasses(childClasses);
        KillLedger ledger = null;
        Path directory = null;
        for (int cycle = 0;
                kills < killsPerRun || (CrashBudget.soak() && System.nanoTime() - deadlineNs < 0);
                cycle++) {
            if (cycle % CYCLES_PER_DIRECTORY == 0) {
                if (directory != null) {
                    TestFiles.deleteRecursively(directory);
                }
                directory = root.resolve("log-" + cycle / CYCLES_PER_DIRECTORY);
                ledger = new KillLedger();
            }
            runCycle(directory, ledger, cycle, stderrFile, childClasses);
        }
        TestFiles.deleteRecursively(root);
        return String.format(
                "KILL %s: %d kills (%d with O_DIRECT, %d with O_DSYNC) in %.1f s; triggers %s (%d by timeout; %d inside a batch"
                        + " after %d looks); interrupted:"
                        + " %d segment preparations, %d truncations, %d opens; %d records, %d acknowledgements"
                        + " and %d batches checked (%d left torn on disk and given up whole); seed %d (-D%s=%d"
                        + " replays)",
                family,
                kills,
                directKills,
                dsyncKills,
                (System.nanoTime() - startNs) / 1e9,
                kindCounts,
                fallbackKills,
                tornBatchKills,
                tornBatchLooks,
                interruptedPreparations,
                interruptedTruncations,
                interruptedOpens,
                recordsChecked,
                acksChecked,
                batchesChecked,
                batchesTorn,
                seed,
                SEED_PROPERTY,
                seed);
    }

    /** @return segment preparations the kills interrupted (a {@code .wal.tmp} file was left). */
    int interruptedPreparations() {
        return interruptedPreparations;
    }

    /** @return truncations the kills interrupted. */
    int interruptedTruncations() {
        return interruptedTruncations;
    }

    /** @return kills that found the child's files ending inside a batch. */
    int tornBatchKills() {
        return tornBatchKills;
    }

    /** @return batches kills left partly written that recovery gave up whole. */
    long batchesTorn() {
        return batchesTorn;
    }

    /** @return kills that landed after the child started to open its log and before it was open. */
    int interruptedOpens() {
        return interruptedOpens;
    }

    private void runCycle(
            final Path directory,
            final KillLedger ledger,
            final int cycle,
            final Path stderrFile,
            final Path childClasses)
            throws Exception {
        // Of 8 cycles: 3 with O_DIRECT, 2 with O_DSYNC (one of them direct too). With O_DSYNC io_uring
        // keeps several group writes in flight, so a kill may land with later ones done and earlier not.
        final int mode = random.nextInt(8);
        final boolean direct = mode <= 2;
        final boolean dsync = mode == 0 || mode == 3;
        final String backendName = family + (direct ? "-direct" : "") + (dsync ? "-dsync" : "");
        final KillTrigger trigger = KillTrigger.random(random);
        final String context = "cycle " + cycle + " (" + backendName + ", " + trigger + ", seed " + seed + ", "
                + directory + ", child stderr in " + stderrFile + ")";
        final ChildReport report = new ChildReport();
        final KillableChild child = KillableChild.start(
                KillChild.class,
                List.of(
                        directory.toString(),
                        backendName,
                        Integer.toString(cycle),
                        Integer.toString(CHILD_THREADS),
                        Long.toString(random.nextLong())),
                report.listener(trigger),
                stderrFile,
                childClasses);
        try {
            if (!child.awaitReadyOrDead(OPEN_TIMEOUT_NS)) {
                throw new AssertionError("the child did not open its log within 60 s: " + context);
            }
            if (trigger.kind() == KillTrigger.Kind.TIMED) {
                TimeUnit.NANOSECONDS.sleep(trigger.delayNs());
                child.kill();
            } else if (trigger.kind() == KillTrigger.Kind.TORN_BATCH) {
                TimeUnit.NANOSECONDS.sleep(trigger.delayNs());
                if (killInsideABatch(child, directory)) {
                    tornBatchKills++;
                } else {
                    fallbackKills++;
                }
                child.kill();
            } else if (!child.awaitDeath(TRIGGER_TIMEOUT_NS)) {
                fallbackKills++;
                child.kill();
            }
        } finally {
            child.kill();
        }
        child.awaitKilled(report, context);
        final List<String> filesAtKill = listFiles(directory);
        if (filesAtKill.stream().anyMatch(name -> name.endsWith(SegmentNames.TEMPORARY_SUFFIX))) {
            interruptedPreparations++;
        }
        if (report.truncationInterrupted()) {
            interruptedTruncations++;
        }
        if (report.opening() && !report.ready()) {
            interruptedOpens++;
        }

        final Path checked = random.nextBoolean() ? directory : copyOf(directory);
        final KillLedger.Outcome outcome = ledger.check(checked, backendName, cycle, report);
        if (checked != directory) {
            TestFiles.deleteRecursively(checked);
        }
        kills++;
        directKills += direct ? 1 : 0;
        dsyncKills += dsync ? 1 : 0;
        kindCounts.merge(trigger.kind(), 1, Integer::sum);
        killCounter.incrementAndGet();
        recordsChecked += outcome.recordsChecked();
        acksChecked += outcome.acksChecked();
        batchesChecked += outcome.batchesChecked();
        batchesTorn += outcome.batchesTorn();
        CrashTally.BATCHES.addAndGet(outcome.batchesChecked());
        CrashTally.BATCHES_TORN.addAndGet(outcome.batchesTorn());
        if (!outcome.violations().isEmpty()) {
            CrashTally.VIOLATIONS.addAndGet(outcome.violations().size());
            CrashTally.LOST.addAndGet(outcome.lostAcknowledged());
            final List<String> shown = outcome.violations()
                    .subList(0, Math.min(20, outcome.violations().size()));
            throw new AssertionError(
                    "after the kill of " + context + ", " + outcome.violations().size()
                            + " violation(s), " + outcome.lostAcknowledged() + " acknowledged record(s) lost:\n  "
                            + String.join("\n  ", shown) + "\n  child: " + report.summary() + "\n  files at the kill: "
                            + filesAtKill + "\n  checked " + (checked == directory ? "in place" : "on a copy"));
        }
    }

    /**
     * Watches the child's newest segment until it ends inside a batch (the first frames of a batch
     * written, not its last) and kills the child at once: the disk then holds part of a batch, unless
     * the child wrote the rest in the microseconds the kill takes to land (the ledger counts the
     * batches that were torn).
     *
     * @return true if the child was killed on seeing its files inside a batch; false if that was not
     *     seen in time, or the child died first.
     */
    private boolean killInsideABatch(final KillableChild child, final Path directory) throws IOException {
        final long deadlineNs = System.nanoTime() + TORN_BATCH_SEARCH_NS;
        try (OnDiskFrames.Watcher watcher = new OnDiskFrames.Watcher(directory)) {
            while (child.alive() && System.nanoTime() - deadlineNs < 0) {
                tornBatchLooks++;
                if (watcher.endsInsideABatch()) {
                    child.kill();
                    return true;
                }
            }
        }
        return false;
    }

    private static List<String> listFiles(final Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Copies a log directory beside it (as {@code <name>-check}), to check what a kill left without
     * changing the files the next child recovers.
     *
     * @param directory the log directory.
     * @return the copy.
     * @throws IOException if it cannot be copied.
     */
    static Path copyOf(final Path directory) throws IOException {
        final Path copy = directory.resolveSibling(directory.getFileName() + "-check");
        TestFiles.deleteRecursively(copy);
        copyTree(directory, copy);
        return copy;
    }

    /** Copies a directory with its subdirectories (a group log's relocation log lives in one). */
    private static void copyTree(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        if (!Files.isDirectory(from)) {
            return;
        }
        try (Stream<Path> files = Files.list(from)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                if (Files.isDirectory(file)) {
                    copyTree(file, to.resolve(file.getFileName()));
                } else {
                    Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
