package io.walden.testkit;

import io.walden.spi.StorageOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Runs a crash test's body over many seeded trials ({@link CrashTrial}), the engine behind {@link
 * WalCrashTest} and usable without JUnit:
 *
 * <pre>{@code
 * CrashTrials.Summary summary = CrashTrials.named("puts survive").trials(200).run(trial -> { ... });
 * }</pre>
 *
 * <ul>
 *   <li><b>Crash points.</b> The first trial lets the workload run to its end and counts its
 *       operations; each later trial arms a power failure at a point drawn from its seed: after any
 *       event (half the trials), or after the Nth write, sync, rename, delete or directory sync.
 *   <li><b>Seeds.</b> A run draws a base seed (or takes {@value #SEED_PROPERTY}), each trial its own
 *       seed from it; the trial's seed drives the simulated completions, the body's {@link
 *       CrashTrial#random()} and the survival choices. A failure prints the key that replays the trial,
 *       {@code -D}{@value #REPLAY_PROPERTY}{@code =<seed>:<point>}; thread interleavings are not
 *       replayed exactly, so a replay runs the trial until it fails again, up to {@value
 *       #REPLAY_RUNS_MAX} times.
 *   <li><b>Shrinking.</b> A failing trial is run again with the same seed: first with its crash point
 *       moved to the same progress of the log's data path ({@code data#N}, which follows the appends
 *       and not the segment preparation beside them, so it replays best), then with earlier data
 *       points (a bisection, a few attempts). A point is kept only if it fails twice in a row: one
 *       that fails now and then would make a poor replay key. See {@link Shrinker}.
 * </ul>
 *
 * <p>A passing trial's directory is deleted; a failing trial's is kept and named in the report. While
 * trials run, the error each simulated power failure makes the log log is silenced.
 *
 * <p><b>Threading:</b> immutable; {@link #run} runs every trial on the calling thread.
 */
public final class CrashTrials {
    /** System property: the base seed of a run. */
    public static final String SEED_PROPERTY = "walden.crash.seed";
    /** System property: one trial to run alone, as a failure report prints it ({@code seed:point}). */
    public static final String REPLAY_PROPERTY = "walden.crash.replay";
    /**
     * Most runs of a replayed trial: it runs until it fails again. Thread interleavings are not
     * replayed exactly, and a key may fail on only some of its runs (one in four, for the worst seen).
     */
    public static final int REPLAY_RUNS_MAX = 20;
    /** System property: how many trials each run makes, overriding the test's own number. */
    public static final String TRIALS_PROPERTY = "walden.crash.trials";
    /** Trials of a run unless told otherwise. */
    public static final int DEFAULT_TRIALS = 200;
    /** Most extra runs a failing trial's shrinking makes (a point is kept only if it fails twice). */
    public static final int DEFAULT_SHRINK_ATTEMPTS = 16;

    private static final String END = "end";
    /** Keeps the draw of a trial's crash point apart from the random sources the trial draws from its seed. */
    private static final long POINT_SEED_MIX = 0x9E3779B97F4A7C15L;

    /** A crash test's body. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs one trial: a workload that meets the power failure, {@link CrashTrial#crash()}, and checks.
         *
         * @param trial the trial.
         * @throws Exception if the check fails (or an {@link AssertionError}).
         */
        void run(CrashTrial trial) throws Exception;
    }

    /**
     * What a passing run did.
     *
     * @param name the run's name.
     * @param trials how many trials passed.
     * @param cutMidWorkload in how many the crash point cut the power before the body called crash.
     * @param baseSeed the base seed ({@value #SEED_PROPERTY} replays the run).
     * @param elapsedNs how long the run took.
     */
    public record Summary(String name, int trials, int cutMidWorkload, long baseSeed, long elapsedNs) {
        @Override
        public String toString() {
            return "CRASH TRIALS " + name + ": " + trials + " trial(s) passed (" + cutMidWorkload
                    + " cut the power mid-workload) in " + String.format("%.1f", elapsedNs / 1e9) + " s; base seed "
                    + baseSeed + " (-D" + SEED_PROPERTY + "=" + baseSeed + " replays the run)";
        }
    }

    /**
     * The result of one trial.
     *
     * @param trial the trial; null if its storage could not be created.
     * @param failure what the body threw, or null.
     * @param directory the trial's log directory.
     */
    record Outcome(CrashTrial trial, Throwable failure, Path directory) {}

    private final String name;
    private final int trials;
    private final Long baseSeed;
    private final String replay;
    private final StorageOptions options;
    private final int shrinkAttempts;

    private CrashTrials(
            final String name,
            final int trials,
            final Long baseSeed,
            final String replay,
            final StorageOptions options,
            final int shrinkAttempts) {
        this.name = name;
        this.trials = trials;
        this.baseSeed = baseSeed;
        this.replay = replay;
        this.options = options;
        this.shrinkAttempts = shrinkAttempts;
    }

    /**
     * Starts a run of {@value #DEFAULT_TRIALS} trials on buffered storage, with a random base seed.
     *
     * @param name the run's name, for reports.
     * @return the runner.
     */
    public static CrashTrials named(final String name) {
        return new CrashTrials(
                Objects.requireNonNull(name, "name"),
                DEFAULT_TRIALS,
                null,
                null,
                StorageOptions.BUFFERED,
                DEFAULT_SHRINK_ATTEMPTS);
    }

    /**
     * The same runner with another number of trials ({@value #TRIALS_PROPERTY} overrides it).
     *
     * @param count how many, at least 1.
     * @return the runner.
     */
    public CrashTrials trials(final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a run needs at least one trial, not " + count);
        }
        return new CrashTrials(name, count, baseSeed, replay, options, shrinkAttempts);
    }

    /**
     * The same runner with a fixed base seed ({@value #SEED_PROPERTY} overrides it).
     *
     * @param seed the base seed.
     * @return the runner.
     */
    public CrashTrials seed(final long seed) {
        return new CrashTrials(name, trials, seed, replay, options, shrinkAttempts);
    }

    /**
     * The same runner replaying one trial ({@value #REPLAY_PROPERTY} overrides it).
     *
     * @param key the key a failure printed ({@link CrashTrialFailure#replayKey()}); null for none.
     * @return the runner.
     */
    public CrashTrials replay(final String key) {
        return new CrashTrials(name, trials, baseSeed, key, options, shrinkAttempts);
    }

    /**
     * The same runner on other storage semantics.
     *
     * @param storageOptions buffered (the default), O_DIRECT and/or O_DSYNC.
     * @return the runner.
     */
    public CrashTrials storageOptions(final StorageOptions storageOptions) {
        return new CrashTrials(
                name, trials, baseSeed, replay, Objects.requireNonNull(storageOptions, "options"), shrinkAttempts);
    }

    /**
     * The same runner with another shrinking budget.
     *
     * @param attempts most extra runs of a failing trial; 0 for no shrinking.
     * @return the runner.
     */
    public CrashTrials shrinkAttempts(final int attempts) {
        return new CrashTrials(name, trials, baseSeed, replay, options, Math.max(0, attempts));
    }

    /**
     * Runs the trials, or the one trial to replay, and prints a line with the base seed.
     *
     * @param body the test's body.
     * @return what the run did.
     * @throws CrashTrialFailure if a trial fails, describing the shrunk trial and how to replay it.
     */
    public Summary run(final Body body) {
        final long startNs = System.nanoTime();
        final String replayKey = System.getProperty(REPLAY_PROPERTY, replay);
        final long base = Long.getLong(SEED_PROPERTY, baseSeed != null ? baseSeed : new SecureRandom().nextLong());
        final int count = Integer.getInteger(TRIALS_PROPERTY, trials);
        final QuietLogs quiet = QuietLogs.silence();
        final Path root;
        try {
            root = Directories.newScratch("walden-crash-");
        } catch (final IOException ex) {
            quiet.restore();
            throw new UncheckedIOException("cannot create the crash trials' directory", ex);
        }
        try {
            if (replayKey != null && !replayKey.isBlank()) {
                final long seed = replaySeed(replayKey);
                final CrashPoint point = replayPoint(replayKey);
                // Thread interleavings are not replayed exactly: the trial runs until it fails again,
                // a bounded number of times.
                Outcome outcome = null;
                for (int run = 1; run <= REPLAY_RUNS_MAX; run++) {
                    outcome = runTrial(body, root, 0, seed, point, "replay-" + run);
                    if (outcome.failure() != null) {
                        throw failure("replay of " + replayKey, outcome, base, outcome, "; failed again on run " + run);
                    }
                }
                System.out.println("CRASH TRIALS " + name + ": replayed " + replayKey + " " + REPLAY_RUNS_MAX
                        + " times, and it passed every time");
                return new Summary(
                        name,
                        REPLAY_RUNS_MAX,
                        outcome.trial().powerFailedBeforeCrash() ? 1 : 0,
                        base,
                        elapsed(startNs));
            }
            final SplittableRandom seeds = new SplittableRandom(base);
            final int[] counts = new int[CrashPoint.Operation.values().length];
            int cutMidWorkload = 0;
            for (int number = 0; number < count; number++) {
                final long seed = seeds.nextLong();
                final CrashPoint point =
                        number == 0 ? null : drawPoint(new SplittableRandom(seed ^ POINT_SEED_MIX), counts);
                final Outcome outcome = runTrial(body, root, number, seed, point, "trial-" + number);
                if (outcome.failure() != null) {
                    throw shrink(body, root, outcome, base, count);
                }
                final int[] seen = outcome.trial().countsAtFirstCrash();
                for (int i = 0; i < counts.length; i++) {
                    counts[i] = Math.max(counts[i], seen[i]);
                }
                cutMidWorkload += outcome.trial().powerFailedBeforeCrash() ? 1 : 0;
            }
            final Summary summary = new Summary(name, count, cutMidWorkload, base, elapsed(startNs));
            System.out.println(summary);
            return summary;
        } finally {
            quiet.restore();
            deleteQuietly(root, true);
        }
    }

    private static long elapsed(final long startNs) {
        return System.nanoTime() - startNs;
    }

    /**
     * A crash point for a trial, given the most operations of each kind a trial's workload did so far:
     * after any event in half the draws, else after the Nth operation of a kind the workload does.
     */
    static CrashPoint drawPoint(final SplittableRandom random, final int[] counts) {
        final List<CrashPoint.Operation> kinds = new ArrayList<>();
        for (final CrashPoint.Operation operation : CrashPoint.Operation.values()) {
            if (operation != CrashPoint.Operation.EVENT && counts[operation.ordinal()] > 0) {
                kinds.add(operation);
            }
        }
        if (kinds.isEmpty() || random.nextBoolean()) {
            return CrashPoint.afterEvents(random.nextInt(counts[CrashPoint.Operation.EVENT.ordinal()] + 1));
        }
        final CrashPoint.Operation kind = kinds.get(random.nextInt(kinds.size()));
        return CrashPoint.after(kind, 1 + random.nextInt(counts[kind.ordinal()]));
    }

    private Outcome runTrial(
            final Body body,
            final Path root,
            final int number,
            final long seed,
            final CrashPoint point,
            final String directoryName) {
        final Path directory = root.resolve(directoryName).resolve("log");
        CrashTrial trial = null;
        Throwable failure = null;
        try {
            final SimulatedStorage storage = SimulatedStorage.builder(directory)
                    .options(options)
                    .seed(seed)
                    .build();
            trial = new CrashTrial(number, seed, point, storage);
            body.run(trial);
            if (storage.crashCount() == 0) {
                failure = new IllegalStateException("the crash test's body never called trial.crash(): a trial"
                        + " must crash the storage and check what the log recovered");
            }
        } catch (final VirtualMachineError ex) {
            throw ex;
        } catch (final Throwable ex) {
            failure = ex;
        }
        if (failure == null) {
            deleteQuietly(directory.getParent(), false);
        }
        return new Outcome(trial, failure, directory);
    }

    /** Moves a failing trial's crash point to the steadiest and earliest that still fails, and describes it. */
    private CrashTrialFailure shrink(
            final Body body, final Path root, final Outcome original, final long base, final int count) {
        final CrashTrial trial = original.trial();
        final Shrinker shrinker = new Shrinker(
                original,
                shrinkAttempts,
                (point, directoryName) -> runTrial(body, root, trial.number(), trial.seed(), point, directoryName),
                directory -> deleteQuietly(directory.getParent(), false));
        if (trial != null && trial.countsAtFirstCrash() != null) {
            shrinker.shrink(trial.countsAtFirstCrash()[CrashPoint.Operation.DATA.ordinal()]);
        }
        final Boolean failedAgain = shrinker.originalFailedAgain();
        return failure(
                "trial " + (trial == null ? 0 : trial.number()) + " of " + count,
                shrinker.failing(),
                base,
                original,
                shrinker.steps() > 0
                        ? "; moved to crash point {point} in " + shrinker.steps() + " step(s), " + shrinker.attempts()
                                + " rerun(s)"
                        : failedAgain == null
                                ? ""
                                : failedAgain
                                        ? "; it failed again when rerun"
                                        : "; it did not fail again when rerun once (timing): replay it a few times");
    }

    private CrashTrialFailure failure(
            final String which, final Outcome failing, final long base, final Outcome original, final String shrunk) {
        final CrashTrial trial = failing.trial();
        final long seed = trial == null ? 0 : trial.seed();
        final String key = seed + ":" + (trial == null || trial.crashPoint() == null ? END : trial.crashPoint());
        final String originalKey = original.trial() == null
                ? key
                : original.trial().seed() + ":"
                        + (original.trial().crashPoint() == null
                                ? END
                                : original.trial().crashPoint());
        final CrashReport crash = trial == null ? null : trial.lastCrash();
        final String message = "CRASH TRIALS " + name + " failed at " + which + " (seed " + seed + ", crash point "
                + originalKey.substring(originalKey.indexOf(':') + 1) + ")"
                + shrunk.replace("{point}", key.substring(key.indexOf(':') + 1))
                + "\n  replay: -D" + REPLAY_PROPERTY + "=" + key + " (thread interleavings are not replayed"
                + " exactly: a replay runs the trial until it fails, up to " + REPLAY_RUNS_MAX + " times); base seed "
                + base
                + "\n  crash: " + (crash == null ? "none (the body failed before crashing)" : crash)
                + "\n  directory kept: " + failing.directory()
                + "\n  failure: " + failing.failure();
        System.out.println(message);
        return new CrashTrialFailure(message, key, originalKey, runDirectoryOf(failing), failing.failure());
    }

    /** The run's scratch directory: the parent of the trial's directory, which holds its log. */
    private static Path runDirectoryOf(final Outcome outcome) {
        return outcome.directory().getParent().getParent();
    }

    private static long replaySeed(final String key) {
        final int colon = key.lastIndexOf(':');
        try {
            return Long.parseLong(
                    colon < 0 ? key.trim() : key.substring(0, colon).trim());
        } catch (final NumberFormatException ex) {
            throw new IllegalArgumentException(
                    "not a replay key: '" + key + "' (expected <seed>:<crash point>, as a failure prints it)", ex);
        }
    }

    private static CrashPoint replayPoint(final String key) {
        final int colon = key.lastIndexOf(':');
        final String point = colon < 0 ? END : key.substring(colon + 1).trim();
        return END.equals(point) ? null : CrashPoint.parse(point);
    }

    private static void deleteQuietly(final Path directory, final boolean onlyIfEmpty) {
        try {
            if (onlyIfEmpty) {
                // The root goes only if every trial's directory went: a failing one is kept.
                try (Stream<Path> entries = Files.list(directory)) {
                    if (entries.findAny().isPresent()) {
                        return;
                    }
                }
            }
            Directories.deleteTree(directory);
        } catch (final IOException ex) {
            System.err.println("CRASH TRIALS: cannot delete " + directory + ": " + ex);
        }
    }
}
