package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import java.util.List;

/**
 * What recovery does at the end of the valid frames of the tail segment, as a table: from {@link
 * RecoveryRule}'s verdict there and the {@link RecoveryPolicy} to an {@link Action}. A pure decision,
 * held as data and checked over every input by its test (in the manner of TigerBeetle's {@code
 * recovery_cases}).
 *
 * <pre>
 *  corrupt clean policy   damage@end nextRun laterData | action
 *  ------- ----- -------- ---------- ------- --------- | ---------------------
 *  no      yes   *        *          *       *         | CONTINUE
 *  no      no    *        *          *       *         | CUT_TORN_TAIL
 *  yes     *     FAIL     *          *       *         | REFUSE
 *  yes     *     SKIP     yes        yes     *         | SKIP_TO_NEXT_RUN
 *  yes     *     SKIP     yes        no      yes       | SKIP_TO_LATER_SEGMENT
 *  yes     *     SKIP     yes        no      no        | SKIP_END
 *  yes     *     SKIP     no         *       *         | DISCARD
 *  yes     *     TRUNCATE *          *       *         | DISCARD_LATER_TOO
 * </pre>
 *
 * <ul>
 *   <li>corrupt: the rule judged the damage at the end of the valid frames corruption, not a torn
 *       write.
 *   <li>clean: the segment header records a clean close.
 *   <li>damage@end: the damage starts where the valid frames end (it may start earlier: bytes after a
 *       recorded clean end), so there is something to skip past.
 *   <li>nextRun: valid frames follow the damage in this segment.
 *   <li>laterData: a later segment holds data.
 * </ul>
 *
 * <p><b>Threading:</b> stateless; any thread.
 */
final class TailDecision {
    /** What recovery does. */
    enum Action {
        /** The log continues where it ended (a clean close). */
        CONTINUE,
        /**
         * A crash: what follows the kept frames is a torn tail, cut; the log continues at the segment's
         * write limit, or in the next segment.
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
        /** The rest of this segment is discarded (SKIP, when the damage lies before the valid end). */
        DISCARD,
        /** TRUNCATE: the rest of this segment and every later segment are discarded. */
        DISCARD_LATER_TOO
    }

    /** A row of the table; a null input matches either value. */
    private record Row(
            boolean corrupt,
            Boolean clean,
            RecoveryPolicy policy,
            Boolean damageAtEnd,
            Boolean nextRun,
            Boolean laterData,
            Action action) {
        boolean matches(
                final boolean isCorrupt,
                final boolean isClean,
                final RecoveryPolicy withPolicy,
                final boolean isDamageAtEnd,
                final boolean hasNextRun,
                final boolean hasLaterData) {
            return corrupt == isCorrupt
                    && (clean == null || clean == isClean)
                    && (policy == null || policy == withPolicy)
                    && (damageAtEnd == null || damageAtEnd == isDamageAtEnd)
                    && (nextRun == null || nextRun == hasNextRun)
                    && (laterData == null || laterData == hasLaterData);
        }
    }

    private static final Boolean ANY = null;
    private static final RecoveryPolicy ANY_POLICY = null;

    /** The table of the class comment, row for row. */
    private static final List<Row> ROWS = List.of(
            new Row(false, true, ANY_POLICY, ANY, ANY, ANY, Action.CONTINUE),
            new Row(false, false, ANY_POLICY, ANY, ANY, ANY, Action.CUT_TORN_TAIL),
            new Row(true, ANY, RecoveryPolicy.FAIL, ANY, ANY, ANY, Action.REFUSE),
            new Row(true, ANY, RecoveryPolicy.SKIP, true, true, ANY, Action.SKIP_TO_NEXT_RUN),
            new Row(true, ANY, RecoveryPolicy.SKIP, true, false, true, Action.SKIP_TO_LATER_SEGMENT),
            new Row(true, ANY, RecoveryPolicy.SKIP, true, false, false, Action.SKIP_END),
            new Row(true, ANY, RecoveryPolicy.SKIP, false, ANY, ANY, Action.DISCARD),
            new Row(true, ANY, RecoveryPolicy.TRUNCATE, ANY, ANY, ANY, Action.DISCARD_LATER_TOO));

    private TailDecision() {}

    /**
     * Decides.
     *
     * @param corrupt whether the rule judged corruption.
     * @param clean whether the header records a clean close.
     * @param policy the recovery policy.
     * @param damageAtEnd whether the damage starts where the valid frames end.
     * @param nextRun whether valid frames follow the damage in this segment.
     * @param laterData whether a later segment holds data.
     * @return the action of the one row that matches.
     * @throws IllegalStateException if no row, or more than one, matches (the table's test rules it out).
     */
    static Action decide(
            final boolean corrupt,
            final boolean clean,
            final RecoveryPolicy policy,
            final boolean damageAtEnd,
            final boolean nextRun,
            final boolean laterData) {
        Action action = null;
        for (final Row row : ROWS) {
            if (row.matches(corrupt, clean, policy, damageAtEnd, nextRun, laterData)) {
                if (action != null) {
                    throw new IllegalStateException("two rows match: " + action + " and " + row.action());
                }
                action = row.action();
            }
        }
        if (action == null) {
            throw new IllegalStateException("no row matches corrupt=" + corrupt + " clean=" + clean + " policy="
                    + policy + " damageAtEnd=" + damageAtEnd + " nextRun=" + nextRun + " laterData=" + laterData);
        }
        return action;
    }
}
