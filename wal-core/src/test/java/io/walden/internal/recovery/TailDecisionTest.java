package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.internal.recovery.RecoveryRule.Verdict;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The tail decision over every input: exactly one row of the table matches each (decide throws
 * otherwise), every outcome is reachable, and each outcome holds the rule it stands for.
 */
class TailDecisionTest {
    private static final boolean[] BOTH = {false, true};

    @Test
    void everyInputHasExactlyOneOutcomeThatKeepsTheRules() {
        final Set<TailOutcome> reached = EnumSet.noneOf(TailOutcome.class);
        int cases = 0;
        for (final Verdict verdict : Verdict.values()) {
            for (final boolean clean : BOTH) {
                for (final RecoveryPolicy policy : RecoveryPolicy.values()) {
                    for (final boolean damageAtEnd : BOTH) {
                        for (final boolean nextRun : BOTH) {
                            for (final boolean laterData : BOTH) {
                                final TailOutcome outcome =
                                        TailDecision.decide(verdict, clean, policy, damageAtEnd, nextRun, laterData);
                                reached.add(outcome);
                                cases++;
                                checkRules(verdict, clean, policy, damageAtEnd, nextRun, laterData, outcome);
                            }
                        }
                    }
                }
            }
        }
        assertEquals(Verdict.values().length * 2 * RecoveryPolicy.values().length * 2 * 2 * 2, cases);
        assertEquals(EnumSet.allOf(TailOutcome.class), reached, "every outcome is reachable");
    }

    private static void checkRules(
            final Verdict verdict,
            final boolean clean,
            final RecoveryPolicy policy,
            final boolean damageAtEnd,
            final boolean nextRun,
            final boolean laterData,
            final TailOutcome outcome) {
        final String input = "verdict=" + verdict + " clean=" + clean + " policy=" + policy + " damageAtEnd="
                + damageAtEnd + " nextRun=" + nextRun + " laterData=" + laterData + " -> " + outcome;
        // A torn write or an end is never refused, skipped or discarded, whatever the policy; only a
        // clean close continues where it ended.
        if (!verdict.corrupt()) {
            assertEquals(
                    verdict == Verdict.END && clean ? TailOutcome.CLEAN_END : TailOutcome.CUT_TORN_TAIL,
                    outcome,
                    input);
            return;
        }
        switch (policy) {
            case FAIL -> assertEquals(TailOutcome.REFUSE, outcome, input);
            case TRUNCATE -> assertEquals(TailOutcome.DISCARD_LATER_TOO, outcome, input);
            case SKIP -> {
                // SKIP skips only what it can skip past (damage at the valid end), goes on to valid
                // frames where there are any, and ends the log only where nothing valid follows.
                final TailOutcome expected = !damageAtEnd
                        ? TailOutcome.DISCARD
                        : nextRun
                                ? TailOutcome.SKIP_TO_NEXT_RUN
                                : laterData ? TailOutcome.SKIP_TO_LATER_SEGMENT : TailOutcome.SKIP_END;
                assertEquals(expected, outcome, input);
            }
            default -> assertTrue(false, "unknown policy " + policy);
        }
    }
}
