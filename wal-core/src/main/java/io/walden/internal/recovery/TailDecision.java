package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.internal.recovery.RecoveryRule.Verdict;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What recovery does at the end of the valid frames of the tail segment: from {@link RecoveryRule}'s
 * verdict there and the {@link RecoveryPolicy} to a {@link TailOutcome}, a pure decision held as data
 * and checked over every input by its test.
 *
 * <pre>
 *  verdict    clean policy   damage@end nextRun laterData | outcome
 *  ---------- ----- -------- ---------- ------- --------- | ---------------------
 *  END        yes   *        *          *       *         | CLEAN_END
 *  END        no    *        *          *       *         | CUT_TORN_TAIL
 *  TORN_TAIL  *     *        *          *       *         | CUT_TORN_TAIL
 *  CORRUPT_*  *     FAIL     *          *       *         | REFUSE
 *  CORRUPT_*  *     SKIP     yes        yes     *         | SKIP_TO_NEXT_RUN
 *  CORRUPT_*  *     SKIP     yes        no      yes       | SKIP_TO_LATER_SEGMENT
 *  CORRUPT_*  *     SKIP     yes        no      no        | SKIP_END
 *  CORRUPT_*  *     SKIP     no         *       *         | DISCARD
 *  CORRUPT_*  *     TRUNCATE *          *       *         | DISCARD_LATER_TOO
 * </pre>
 *
 * <ul>
 *   <li>verdict: {@link RecoveryRule}'s, CORRUPT_* standing for its three kinds of corruption.
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
    private static final Set<Verdict> ANY_CORRUPTION = EnumSet.of(
            Verdict.CORRUPT_BELOW_DURABLE, Verdict.CORRUPT_AFTER_CLEAN_CLOSE, Verdict.CORRUPT_BEFORE_LATER_SEGMENT);
    private static final Boolean ANY = null;
    private static final RecoveryPolicy ANY_POLICY = null;

    private record Row(
            Set<Verdict> verdicts,
            Boolean clean,
            RecoveryPolicy policy,
            Boolean damageAtEnd,
            Boolean nextRun,
            Boolean laterData,
            TailOutcome outcome) {
        boolean matches(
                final Verdict verdict,
                final boolean isClean,
                final RecoveryPolicy withPolicy,
                final boolean isDamageAtEnd,
                final boolean hasNextRun,
                final boolean hasLaterData) {
            return verdicts.contains(verdict)
                    && (clean == null || clean == isClean)
                    && (policy == null || policy == withPolicy)
                    && (damageAtEnd == null || damageAtEnd == isDamageAtEnd)
                    && (nextRun == null || nextRun == hasNextRun)
                    && (laterData == null || laterData == hasLaterData);
        }
    }

    private static final List<Row> ROWS = List.of(
            new Row(EnumSet.of(Verdict.END), true, ANY_POLICY, ANY, ANY, ANY, TailOutcome.CLEAN_END),
            new Row(EnumSet.of(Verdict.END), false, ANY_POLICY, ANY, ANY, ANY, TailOutcome.CUT_TORN_TAIL),
            new Row(EnumSet.of(Verdict.TORN_TAIL), ANY, ANY_POLICY, ANY, ANY, ANY, TailOutcome.CUT_TORN_TAIL),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.FAIL, ANY, ANY, ANY, TailOutcome.REFUSE),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.SKIP, true, true, ANY, TailOutcome.SKIP_TO_NEXT_RUN),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.SKIP, true, false, true, TailOutcome.SKIP_TO_LATER_SEGMENT),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.SKIP, true, false, false, TailOutcome.SKIP_END),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.SKIP, false, ANY, ANY, TailOutcome.DISCARD),
            new Row(ANY_CORRUPTION, ANY, RecoveryPolicy.TRUNCATE, ANY, ANY, ANY, TailOutcome.DISCARD_LATER_TOO));

    private TailDecision() {}

    /** The outcome for one input; exactly one row matches each (the test checks every input). */
    static TailOutcome decide(
            final Verdict verdict,
            final boolean clean,
            final RecoveryPolicy policy,
            final boolean damageAtEnd,
            final boolean nextRun,
            final boolean laterData) {
        TailOutcome outcome = null;
        for (final Row row : ROWS) {
            if (row.matches(verdict, clean, policy, damageAtEnd, nextRun, laterData)) {
                if (outcome != null) {
                    throw new IllegalStateException("two rows match: " + outcome + " and " + row.outcome());
                }
                outcome = row.outcome();
            }
        }
        if (outcome == null) {
            throw new IllegalStateException("no row matches verdict=" + verdict + " clean=" + clean + " policy="
                    + policy + " damageAtEnd=" + damageAtEnd + " nextRun=" + nextRun + " laterData=" + laterData);
        }
        return outcome;
    }
}
