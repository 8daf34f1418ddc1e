package io.walden.testkit;

import io.walden.WalConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * One run of a crash test's body ({@link WalCrashTest}, {@link CrashTrials}): a fresh log directory on
 * a fresh {@link SimulatedStorage}, a power failure armed at a crash point drawn from the trial's seed,
 * and a random source for the body's own workload drawn from the same seed, so that the seed replays
 * the whole trial. The body runs its workload until the power fails, calls {@link #crash()} to bring
 * the power back with what the failure kept, reopens and checks. In a method annotated {@link
 * WalCrashTest}:
 *
 * <pre>{@code
 * void everyAcknowledgedPutSurvives(CrashTrial trial) throws Exception {
 *     WalConfig config = trial.configBuilder().build();
 *     Map<String, String> acknowledged = new HashMap<>();
 *     trial.runUntilPowerFails(() -> {
 *         try (KvStore store = KvStore.open(config)) {          // the open may meet the failure too
 *             for (int i = 0; i < 50; i++) {
 *                 String key = "k" + trial.random().nextInt(8);
 *                 store.put(key, "v" + i);
 *                 acknowledged.put(key, "v" + i);                 // only once put returned
 *             }
 *         }
 *     });
 *     trial.crash();
 *     try (KvStore store = KvStore.open(config)) {
 *         acknowledged.forEach((key, value) -> assertEquals(value, store.get(key), key));
 *     }
 * }
 * }</pre>
 *
 * (A put in flight when the power failed may have survived too: a real check allows for it.)
 *
 * <p><b>Threading:</b> used by the body's thread; the storage is thread-safe.
 */
public final class CrashTrial {
    /** A workload that may meet the power failure. */
    @FunctionalInterface
    public interface Workload {
        /**
         * Runs the workload.
         *
         * @throws Exception whatever the workload throws.
         */
        void run() throws Exception;
    }

    private final int number;
    private final long seed;
    private final CrashPoint crashPoint;
    private final SimulatedStorage storage;
    private final SplittableRandom random;
    private final SplittableRandom crashSeeds;
    private int[] countsAtFirstCrash;
    private boolean powerFailedBeforeCrash;

    CrashTrial(final int number, final long seed, final CrashPoint crashPoint, final SimulatedStorage storage) {
        this.number = number;
        this.seed = seed;
        this.crashPoint = crashPoint;
        this.storage = storage;
        final SplittableRandom seeds = new SplittableRandom(seed);
        this.random = seeds.split();
        this.crashSeeds = seeds.split();
        if (crashPoint != null) {
            storage.crashAfter(crashPoint);
        }
    }

    /** @return the trial's number in its run, from 0. */
    public int number() {
        return number;
    }

    /** @return the seed of everything random in the trial. */
    public long seed() {
        return seed;
    }

    /**
     * Where the power fails during the workload; null if only {@link #crash()} cuts it (at the end of
     * the workload, as in the first trial of a run, which counts the workload's operations).
     *
     * @return the crash point, or null.
     */
    public CrashPoint crashPoint() {
        return crashPoint;
    }

    /** @return the trial's log directory, empty at the start. */
    public Path directory() {
        return storage.directory();
    }

    /** @return the simulated storage of the trial's directory. */
    public SimulatedStorage storage() {
        return storage;
    }

    /**
     * A configuration for a log in the trial's directory on its storage, with small sizes ({@link
     * SimulatedStorage#configBuilder()}).
     *
     * @return the builder.
     */
    public WalConfig.Builder configBuilder() {
        return storage.configBuilder();
    }

    /**
     * The random source of the body's workload, seeded from the trial's seed: draw the workload from it
     * and the seed replays it.
     *
     * @return the random source.
     */
    public SplittableRandom random() {
        return random;
    }

    /**
     * Runs a workload until it ends or the power fails. An exception the workload throws after the power
     * failed is what the failure does to the application (appends refused, the log failed) and is
     * swallowed; one thrown before is a real failure and is rethrown, as is every {@link Error} (an
     * assertion of the workload's own).
     *
     * @param workload the workload, which opens the log itself (the failure may strike while it opens).
     * @return whether the power failed during the workload.
     * @throws Exception what the workload threw before the power failed.
     */
    public boolean runUntilPowerFails(final Workload workload) throws Exception {
        try {
            workload.run();
        } catch (final Exception ex) {
            if (!storage.poweredOff()) {
                throw ex;
            }
        }
        return storage.poweredOff();
    }

    /** @return whether the power is off now (the crash point was reached, and {@link #crash()} not yet called). */
    public boolean poweredOff() {
        return storage.poweredOff();
    }

    /**
     * The power fails now, if the crash point has not cut it already, and comes back: the directory then
     * holds what the failure kept ({@link SimulatedStorage#crash}), chosen from the trial's seed. Close
     * the log first, as the crashed process would be gone. May be called again after more work, for a
     * second crash.
     *
     * @return what the crash kept.
     * @throws IOException if the directory cannot be rewritten.
     */
    public CrashReport crash() throws IOException {
        if (countsAtFirstCrash == null) {
            powerFailedBeforeCrash = storage.poweredOff();
            countsAtFirstCrash = new int[CrashPoint.Operation.values().length];
            for (final CrashPoint.Operation operation : CrashPoint.Operation.values()) {
                countsAtFirstCrash[operation.ordinal()] = storage.operationCount(operation);
            }
        }
        return storage.crash(crashSeeds.nextLong());
    }

    /** @return what the last {@link #crash()} kept, or null before the first. */
    public CrashReport lastCrash() {
        return storage.lastCrash();
    }

    /** @return per {@link CrashPoint.Operation}, how many the workload did before the first crash; null before. */
    int[] countsAtFirstCrash() {
        return countsAtFirstCrash;
    }

    /** @return whether the crash point cut the power before the body called {@link #crash()}. */
    boolean powerFailedBeforeCrash() {
        return powerFailedBeforeCrash;
    }

    @Override
    public String toString() {
        return "trial " + number + " (seed " + seed + ", crash point " + (crashPoint == null ? "end" : crashPoint)
                + ")";
    }
}
