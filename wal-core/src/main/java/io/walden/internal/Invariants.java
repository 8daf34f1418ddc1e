package io.walden.internal;

/**
 * Checks of programmer errors: a broken invariant throws {@link AssertionError} with the values
 * involved. {@link #check} is always on and belongs on cold paths; hot paths guard their checks with
 * {@link #ENABLED}, a constant the JIT folds away when {@code -Dwalden.checks=false}.
 */
public final class Invariants {
    /** Whether hot-path checks run; on unless {@code -Dwalden.checks=false}. */
    public static final boolean ENABLED = !"false".equals(System.getProperty("walden.checks"));

    private Invariants() {}

    /**
     * Throws if a condition does not hold.
     *
     * @param condition the invariant.
     * @param format message format, with the values involved.
     * @param args the values.
     */
    public static void check(final boolean condition, final String format, final Object... args) {
        if (!condition) {
            throw new AssertionError("invariant broken: " + String.format(format, args));
        }
    }
}
