package io.walden.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test whose body runs over many seeded crash points: give the method a {@link CrashTrial}
 * parameter, run the workload with {@link CrashTrial#runUntilPowerFails}, call {@link
 * CrashTrial#crash()}, reopen and check. Each trial gets a fresh directory and {@link SimulatedStorage};
 * a failing trial is shrunk to the earliest crash point that still fails, and the test fails with the
 * key that replays it ({@code -Dwalden.crash.replay=<seed>:<point>}). See {@link CrashTrials} for how
 * crash points and seeds are drawn.
 *
 * <p>{@code @BeforeEach} and {@code @AfterEach} methods run once around all the trials, not around
 * each: per-trial state belongs in the body. System properties override the attributes: {@value
 * CrashTrials#TRIALS_PROPERTY} (for a longer soak), {@value CrashTrials#SEED_PROPERTY} and {@value
 * CrashTrials#REPLAY_PROPERTY}.
 *
 * <p><b>Threading:</b> the trials run one after another on the test's thread.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Test
@ExtendWith(WalCrashExtension.class)
public @interface WalCrashTest {
    /**
     * How many trials to run.
     *
     * @return the number, at least 1.
     */
    int trials() default CrashTrials.DEFAULT_TRIALS;

    /**
     * The base seed of the run; 0 draws a new one each run.
     *
     * @return the seed.
     */
    long seed() default 0;

    /**
     * A failing trial to run alone, as its report printed the key ({@code <seed>:<point>}); empty for
     * none.
     *
     * @return the key.
     */
    String replay() default "";

    /**
     * Whether the storage simulates O_DIRECT writes (aligned, still made durable by fdatasync).
     *
     * @return true for O_DIRECT.
     */
    boolean directIo() default false;

    /**
     * Whether the storage simulates O_DSYNC writes (durable when they complete).
     *
     * @return true for O_DSYNC.
     */
    boolean dsync() default false;

    /**
     * Most extra runs of a failing trial spent moving its crash point earlier.
     *
     * @return the budget; 0 for no shrinking.
     */
    int shrinkAttempts() default CrashTrials.DEFAULT_SHRINK_ATTEMPTS;
}
