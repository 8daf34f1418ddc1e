package io.walden.architecture.broken.internal.recovery;

/** A second class in recovery: with a limit of one class a package, recovery holds too many. */
public final class Tail {
    /** The tail's length. */
    public int lengthBytes() {
        return 0;
    }
}
