package io.walden.testing.property;

import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a property over generated cases: seeded and reproducible, with the failing case shrunk before
 * it is reported. Walden's own, small replacement for a property-testing library, written for its
 * stateful model tests (sequences of operations against a real log and a model) and its power-loss
 * workloads.
 *
 * <ul>
 *   <li><b>Seeds.</b> Each run draws a base seed (or takes {@value #SEED_PROPERTY}), and each case a
 *       case seed from it; a case is drawn from its own seed alone. The base seed is printed after
 *       every run; a failure prints both, and {@code -D}{@value #CASE_PROPERTY}{@code =<case seed>}
 *       replays exactly that case (thread interleavings aside).
 *   <li><b>Shrinking.</b> A failing case is shrunk with the property's shrinker (for sequences,
 *       {@link Shrink#deletions}: deleting operations, halves first, down to single ones), keeping
 *       each smaller case that still fails, within a budget of attempts and time. The report shows
 *       the case before and after.
 *   <li><b>Statistics.</b> What the cases covered, counted by the property, is printed with the seed.
 * </ul>
 *
 * @param <C> a case.
 */
public final class PropertyRunner<C> {
    /** System property: the base seed of a run. */
    public static final String SEED_PROPERTY = "walden.property.seed";
    /** System property: the seed of one case to run alone, as a failure report prints it. */
    public static final String CASE_PROPERTY = "walden.property.case";

    private static final int SHRINK_ATTEMPTS_MAX = 150;
    private static final long SHRINK_NS_MAX = TimeUnit.SECONDS.toNanos(60);

    /** What a property checks of one case. */
    @FunctionalInterface
    public interface Property<C> {
        /**
         * Checks a case; throws (an {@link AssertionError} or any exception) if it does not hold.
         *
         * @param value the case.
         * @param statistics where to count what the case covered.
         * @throws Exception if the property does not hold.
         */
        void check(C value, Statistics statistics) throws Exception;
    }

    private final String name;
    private final Gen<C> cases;
    private final Function<C, List<C>> shrinker;
    private final Function<C, String> describer;
    private final int tries;
    private final long untilNanos;

    private PropertyRunner(
            final String name,
            final Gen<C> cases,
            final Function<C, List<C>> shrinker,
            final Function<C, String> describer,
            final int tries,
            final long untilNanos) {
        this.name = name;
        this.cases = cases;
        this.shrinker = shrinker;
        this.describer = describer;
        this.tries = tries;
        this.untilNanos = untilNanos;
    }

    /**
     * Starts a property over cases that do not shrink; see {@link #shrinkWith}.
     *
     * @param name the property's name, for the report.
     * @param cases the cases' generator.
     * @param <C> a case.
     * @return a runner of 100 tries.
     */
    public static <C> PropertyRunner<C> forAll(final String name, final Gen<C> cases) {
        return new PropertyRunner<>(name, cases, Shrink::none, String::valueOf, 100, Long.MIN_VALUE);
    }

    /**
     * The same runner with a shrinker.
     *
     * @param newShrinker the smaller cases to try for a failing one, most promising first.
     * @return the runner.
     */
    public PropertyRunner<C> shrinkWith(final Function<C, List<C>> newShrinker) {
        return new PropertyRunner<>(name, cases, newShrinker, describer, tries, untilNanos);
    }

    /**
     * The same runner with a description of cases for reports.
     *
     * @param newDescriber describes a case.
     * @return the runner.
     */
    public PropertyRunner<C> describeWith(final Function<C, String> newDescriber) {
        return new PropertyRunner<>(name, cases, shrinker, newDescriber, tries, untilNanos);
    }

    /**
     * The same runner with a number of cases.
     *
     * @param newTries how many cases.
     * @return the runner.
     */
    public PropertyRunner<C> tries(final int newTries) {
        return new PropertyRunner<>(name, cases, shrinker, describer, newTries, untilNanos);
    }

    /**
     * The same runner, which keeps drawing new cases after its tries until a {@link System#nanoTime()}
     * deadline (a soak); {@link Long#MIN_VALUE} for none.
     *
     * @param deadlineNanos the deadline.
     * @return the runner.
     */
    public PropertyRunner<C> until(final long deadlineNanos) {
        return new PropertyRunner<>(name, cases, shrinker, describer, tries, deadlineNanos);
    }

    /**
     * Runs the property, prints one line with the seed and the statistics, and throws an {@link
     * AssertionError} describing the shrunk failing case if any case fails.
     *
     * @param property the property.
     * @return the statistics of the run.
     */
    public Statistics check(final Property<C> property) {
        final long startNs = System.nanoTime();
        final Long replay = Long.getLong(CASE_PROPERTY);
        final long baseSeed = Long.getLong(SEED_PROPERTY, new SecureRandom().nextLong());
        final SplittableRandom seeds = new SplittableRandom(baseSeed);
        final Statistics statistics = new Statistics();
        int count = 0;
        while (replay != null ? count < 1 : count < tries || soakContinues()) {
            final long caseSeed = replay != null ? replay : seeds.nextLong();
            final C value = cases.draw(new SplittableRandom(caseSeed));
            final Throwable failure = failureOf(property, value, statistics);
            count++;
            if (failure != null) {
                throw shrunk(property, value, failure, caseSeed, baseSeed, count);
            }
        }
        System.out.printf(
                "PROPERTY %s: %d case(s) passed in %.1f s; %s%s%n",
                name,
                count,
                (System.nanoTime() - startNs) / 1e9,
                replay != null
                        ? "replayed case seed " + replay
                        : "base seed " + baseSeed + " (-D" + SEED_PROPERTY + "=" + baseSeed + " replays the run)",
                statistics.toString().isEmpty() ? "" : "; " + statistics);
        return statistics;
    }

    private boolean soakContinues() {
        return untilNanos != Long.MIN_VALUE && System.nanoTime() - untilNanos < 0;
    }

    private AssertionError shrunk(
            final Property<C> property,
            final C original,
            final Throwable originalFailure,
            final long caseSeed,
            final long baseSeed,
            final int caseNumber) {
        final long deadlineNs = System.nanoTime() + SHRINK_NS_MAX;
        C current = original;
        Throwable failure = originalFailure;
        int attempts = 0;
        int steps = 0;
        boolean progress = true;
        while (progress && attempts < SHRINK_ATTEMPTS_MAX && System.nanoTime() - deadlineNs < 0) {
            progress = false;
            for (final C candidate : shrinker.apply(current)) {
                if (attempts >= SHRINK_ATTEMPTS_MAX || System.nanoTime() - deadlineNs >= 0) {
                    break;
                }
                attempts++;
                final Throwable candidateFailure = failureOf(property, candidate, new Statistics());
                if (candidateFailure != null) {
                    current = candidate;
                    failure = candidateFailure;
                    steps++;
                    progress = true;
                    break;
                }
            }
        }
        final String message = "PROPERTY " + name + " failed at case " + caseNumber + " (case seed " + caseSeed
                + ", base seed " + baseSeed + "; -D" + CASE_PROPERTY + "=" + caseSeed + " replays it)\n  shrunk in "
                + steps + " step(s), " + attempts + " attempt(s)" + (progress ? " (budget spent)" : "")
                + "\n  to: " + describer.apply(current)
                + "\n  from: " + describer.apply(original)
                + "\n  failure: " + failure;
        System.out.println(message);
        return new AssertionError(message, failure);
    }

    private static <C> Throwable failureOf(final Property<C> property, final C value, final Statistics statistics) {
        try {
            property.check(value, statistics);
            return null;
        } catch (final VirtualMachineError ex) {
            throw ex;
        } catch (final Throwable ex) {
            return ex;
        }
    }
}
