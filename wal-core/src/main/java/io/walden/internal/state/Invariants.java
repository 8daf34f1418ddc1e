package io.walden.internal.state;

/**
 * Checks of programmer errors: a broken invariant throws {@link AssertionError} with the values
 * involved. {@link #check} is always on and belongs on cold paths; hot paths guard their checks with
 * {@link #ENABLED}, a constant the JIT folds away when {@code -Dwalden.checks=false}. The {@code
 * long} overloads allocate nothing unless they throw; the {@code Object...} one boxes (cold paths).
 */
public final class Invariants {
    /** Whether hot-path checks run; on unless {@code -Dwalden.checks=false}. */
    public static final boolean ENABLED = !"false".equals(System.getProperty("walden.checks"));

    private Invariants() {}

    public static void check(final boolean condition, final String format, final long value) {
        if (!condition) {
            fail(format, value);
        }
    }

    public static void check(final boolean condition, final String format, final long first, final long second) {
        if (!condition) {
            fail(format, first, second);
        }
    }

    public static void check(
            final boolean condition, final String format, final long first, final long second, final long third) {
        if (!condition) {
            fail(format, first, second, third);
        }
    }

    private static void fail(final String format, final Object... args) {
        throw new AssertionError("invariant broken: " + String.format(format, args));
    }

    public static void check(final boolean condition, final String format, final Object... args) {
        if (!condition) {
            throw new AssertionError("invariant broken: " + String.format(format, args));
        }
    }
}
