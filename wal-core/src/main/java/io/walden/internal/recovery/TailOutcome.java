package io.walden.internal.recovery;

/**
 * What recovery does at the end of the valid frames of the tail segment: the outcome of {@link
 * TailDecision}'s table, which {@link TailRepair} carries out.
 */
enum TailOutcome {
    /** The log was closed cleanly there: it continues where it ended. */
    CLEAN_END,
    /**
     * A crash ended the log there: what follows the kept frames is a torn tail, cut; the log continues
     * at the segment's write limit, or in the next segment.
     */
    CUT_TORN_TAIL,
    /** The open is refused with the corruption (FAIL). */
    REFUSE,
    /** SKIP: the damage is skipped and the next run of valid frames in this segment is judged. */
    SKIP_TO_NEXT_RUN,
    /** SKIP: the rest of this segment is skipped; a later segment continues the log. */
    SKIP_TO_LATER_SEGMENT,
    /** SKIP: the corrupt end of the log is skipped; nothing valid follows it. */
    SKIP_END,
    /** SKIP, where the damage lies before the valid end (after a clean close): the rest of this segment is discarded. */
    DISCARD,
    /** TRUNCATE: the rest of this segment and every later segment are discarded. */
    DISCARD_LATER_TOO
}
