package io.walden.testkit;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Moves a failing crash trial's crash point to one that replays well and fails as early as it can.
 * The trial's seed stays; only the crash point changes:
 *
 * <ol>
 *   <li>the point is re-expressed as the same progress of the log's data path, {@code data#N} where N
 *       data events had happened when the power failed; kept if it fails twice in a row, since the
 *       data path follows the application's appends while segment preparation runs at its own pace;
 *   <li>earlier data points are bisected, each kept only if it fails twice in a row;
 *   <li>if no data point failed twice, the original point stays, and is run once more so that the
 *       report can say whether it failed again.
 * </ol>
 *
 * Every run counts against the budget. Thread interleavings are not replayed, so "fails" is
 * statistical: the double runs keep points that fail only now and then out of the report.
 *
 * <p><b>Threading:</b> one thread.
 */
final class Shrinker {
    /** Runs the failing trial's seed with another crash point. */
    @FunctionalInterface
    interface Rerun {
        /**
         * Runs the trial.
         *
         * @param point the crash point.
         * @param directoryName a name for its directory, new each time.
         * @return the outcome.
         */
        CrashTrials.Outcome run(CrashPoint point, String directoryName);
    }

    private final int budget;
    private final Rerun rerun;
    private final Consumer<Path> discard;
    private CrashTrials.Outcome failing;
    private int attempts;
    private int steps;
    private Boolean originalFailedAgain;

    /**
     * Prepares to shrink a failure.
     *
     * @param failing the failing trial's outcome.
     * @param budget most reruns.
     * @param rerun runs the trial with another crash point.
     * @param discard deletes the directory of an outcome no longer needed.
     */
    Shrinker(final CrashTrials.Outcome failing, final int budget, final Rerun rerun, final Consumer<Path> discard) {
        this.failing = failing;
        this.budget = budget;
        this.rerun = rerun;
        this.discard = discard;
    }

    /**
     * Shrinks.
     *
     * @param dataEvents how many data events the failing trial had done when the power failed.
     */
    void shrink(final int dataEvents) {
        if (dataEvents > 0 && failsTwice(CrashPoint.afterDataEvents(dataEvents))) {
            int low = 1;
            int high = dataEvents;
            while (low < high && attempts < budget) {
                final int middle = (low + high) >>> 1;
                if (failsTwice(CrashPoint.afterDataEvents(middle))) {
                    high = middle;
                } else {
                    low = middle + 1;
                }
            }
            return;
        }
        if (attempts < budget) {
            final CrashTrials.Outcome again = run(failing.trial().crashPoint());
            originalFailedAgain = again.failure() != null;
            if (originalFailedAgain) {
                discard.accept(failing.directory());
                failing = again;
            }
        }
    }

    /** Runs a point twice (the second time only if the first failed); keeps it if both failed. */
    private boolean failsTwice(final CrashPoint point) {
        if (attempts + 2 > budget) {
            attempts = budget;
            return false;
        }
        final CrashTrials.Outcome first = run(point);
        if (first.failure() == null) {
            return false;
        }
        discard.accept(first.directory());
        final CrashTrials.Outcome second = run(point);
        if (second.failure() == null) {
            return false;
        }
        discard.accept(failing.directory());
        failing = second;
        steps++;
        return true;
    }

    private CrashTrials.Outcome run(final CrashPoint point) {
        attempts++;
        final CrashTrials.Outcome outcome = rerun.run(point, "shrink-" + attempts);
        if (outcome.failure() == null) {
            discard.accept(outcome.directory());
        }
        return outcome;
    }

    /** @return the failure to report: the original, or a rerun that failed at a better point. */
    CrashTrials.Outcome failing() {
        return failing;
    }

    /** @return how many reruns were made. */
    int attempts() {
        return attempts;
    }

    /** @return how many better points were kept. */
    int steps() {
        return steps;
    }

    /** @return whether the original point failed again when rerun; null if it was not rerun. */
    Boolean originalFailedAgain() {
        return originalFailedAgain;
    }
}
