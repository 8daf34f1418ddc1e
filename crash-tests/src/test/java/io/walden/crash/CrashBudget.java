package io.walden.crash;

import java.util.concurrent.TimeUnit;

/**
 * How long the crash suites run. In a normal build ({@code mvn verify}) each suite runs its fixed CI
 * amount; under the soak profile ({@code -Pcrash-soak -Dcrash.soak.minutes=N}) each suite keeps going
 * until its share of the deadline has passed.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CrashBudget {
    /** System property holding the soak duration in minutes; absent or zero means a normal CI run. */
    public static final String SOAK_MINUTES_PROPERTY = "crash.soak.minutes";

    private CrashBudget() {}

    /**
     * Whether this is a soak run.
     *
     * @return true under {@code -Pcrash-soak}.
     */
    public static boolean soak() {
        return soakMinutes() > 0;
    }

    /**
     * The soak duration.
     *
     * @return minutes, zero for a normal run.
     */
    public static long soakMinutes() {
        final String value = System.getProperty(SOAK_MINUTES_PROPERTY, "0").trim();
        try {
            return Math.max(0, Long.parseLong(value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "-D" + SOAK_MINUTES_PROPERTY + "=" + value + " is not a whole number of minutes", e);
        }
    }

    /**
     * The deadline for one suite that gets {@code share} of the soak time, as a {@link System#nanoTime()}
     * value; in a normal run, {@link Long#MIN_VALUE} (already passed, so a suite runs only its CI amount).
     *
     * @param share fraction of the soak time for this suite, in (0, 1].
     * @return the deadline.
     */
    public static long soakDeadlineNanos(double share) {
        if (!soak()) {
            return Long.MIN_VALUE;
        }
        return System.nanoTime() + (long) (TimeUnit.MINUTES.toNanos(soakMinutes()) * share);
    }
}
