package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.internal.recovery.TailDecision.Action;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The tail decision over every input: exactly one row of the table matches each (decide throws
 * otherwise), every action is reachable, and each action holds the rule it stands for.
 */
class TailDecisionTest {
    @Test
    void everyInputHasExactlyOneActionThatKeepsTheRules() {
        final Set<Action> reached = EnumSet.noneOf(Action.class);
        int cases = 0;
        for (final boolean corrupt : new boolean[] {false, true}) {
            for (final boolean clean : new boolean[] {false, true}) {
                for (final RecoveryPolicy policy : RecoveryPolicy.values()) {
                    for (final boolean damageAtEnd : new boolean[] {false, true}) {
                        for (final boolean nextRun : new boolean[] {false, true}) {
                            for (final boolean laterData : new boolean[] {false, true}) {
                                final Action action =
                                        TailDecision.decide(corrupt, clean, policy, damageAtEnd, nextRun, laterData);
                                reached.add(action);
                                cases++;
                                final String input = "corrupt=" + corrupt + " clean=" + clean + " policy=" + policy
                                        + " damageAtEnd=" + damageAtEnd + " nextRun=" + nextRun + " laterData="
                                        + laterData + " -> " + action;
                                // A torn write or a clean end is never refused, skipped or discarded,
                                // whatever the policy; only a clean close continues where it ended.
                                if (!corrupt) {
                                    assertEquals(clean ? Action.CONTINUE : Action.CUT_TORN_TAIL, action, input);
                                    continue;
                                }
                                switch (policy) {
                                    case FAIL -> assertEquals(Action.REFUSE, action, input);
                                    case TRUNCATE -> assertEquals(Action.DISCARD_LATER_TOO, action, input);
                                    case SKIP -> {
                                        // SKIP skips only what it can skip past: damage at the valid end.
                                        assertTrue(
                                                damageAtEnd
                                                        ? EnumSet.of(
                                                                        Action.SKIP_TO_NEXT_RUN,
                                                                        Action.SKIP_TO_LATER_SEGMENT,
                                                                        Action.SKIP_END)
                                                                .contains(action)
                                                        : action == Action.DISCARD,
                                                input);
                                        // It goes on to valid frames where there are any, and ends the log
                                        // only where nothing valid follows.
                                        if (damageAtEnd && nextRun) {
                                            assertEquals(Action.SKIP_TO_NEXT_RUN, action, input);
                                        }
                                        if (damageAtEnd && !nextRun) {
                                            assertEquals(
                                                    laterData ? Action.SKIP_TO_LATER_SEGMENT : Action.SKIP_END,
                                                    action,
                                                    input);
                                        }
                                    }
                                    default -> throw new AssertionError("unknown policy " + policy);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertEquals(2 * 2 * RecoveryPolicy.values().length * 2 * 2 * 2, cases);
        assertEquals(EnumSet.allOf(Action.class), reached, "every action is reachable");
    }
}
