package io.walden.groups.internal;

/**
 * Which log a position in a {@link GroupIndex} names: the main log, or the relocation log that purge
 * moves the live entries of lagging groups to ({@link RelocationLog}). A relocation log position is kept
 * with {@link #RELOCATED_BIT} set; {@link GroupIndex#ABSENT} (-1) is neither.
 *
 * <pre>
 *   63  62  61                                                   0
 *  +---+---+------------------------------------------------------+
 *  | 0 | R |          position in the main log (R = 0)            |
 *  |   |   |       or in the relocation log (R = 1)               |
 *  +---+---+------------------------------------------------------+
 * </pre>
 *
 * <p><b>Threading:</b> stateless.
 */
public final class LogPlaces {
    /** Set on a position in the relocation log. */
    public static final long RELOCATED_BIT = 1L << 62;

    private LogPlaces() {}

    /** The index form of a relocation log position. */
    public static long relocated(final long relocationPosition) {
        return relocationPosition | RELOCATED_BIT;
    }

    public static boolean inRelocationLog(final long lsn) {
        return lsn >= 0 && (lsn & RELOCATED_BIT) != 0;
    }

    public static boolean inMainLog(final long lsn) {
        return lsn >= 0 && (lsn & RELOCATED_BIT) == 0;
    }

    /** The position within its own log. */
    public static long positionOf(final long lsn) {
        return lsn & ~RELOCATED_BIT;
    }
}
