package io.walden.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.internal.RecoveryRule.Verdict;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every combination of the rule's inputs (valid end at the first frame, inside, at the capacity; data
 * after it or not; the proven durable offset below, at and above the valid end; no clean end, and one
 * below, at and above the valid end; a later segment with data or not) is judged, and each verdict is
 * checked against the safety properties that together pin the rule down.
 */
class RecoveryRuleTest {
    private static final long FIRST = 4096;
    private static final long CAPACITY = 1 << 20;

    @Test
    void everyCombinationKeepsTheSafetyProperties() {
        final long[] validEnds = {FIRST, 50_000, CAPACITY};
        final Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
        int cases = 0;
        for (final long validEnd : validEnds) {
            for (final boolean dataAfter : new boolean[] {false, true}) {
                if (validEnd == CAPACITY && dataAfter) {
                    continue; // nothing lies after the capacity
                }
                for (final long proven : around(validEnd, FIRST)) {
                    for (final long cleanEnd : cleanEnds(validEnd)) {
                        for (final boolean later : new boolean[] {false, true}) {
                            final Verdict verdict =
                                    RecoveryRule.judge(validEnd, CAPACITY, dataAfter, proven, cleanEnd, later);
                            seen.merge(verdict, 1, Integer::sum);
                            cases++;
                            final String where = "validEnd=" + validEnd + " dataAfter=" + dataAfter + " proven="
                                    + proven + " cleanEnd=" + cleanEnd + " later=" + later + " -> " + verdict;
                            check(validEnd, dataAfter, proven, cleanEnd, later, verdict, where);
                        }
                    }
                }
            }
        }
        assertEquals(Verdict.values().length, seen.size(), "every verdict is reached: " + seen);
        assertTrue(cases >= 150, "cases " + cases);
    }

    private static void check(
            final long validEnd,
            final boolean dataAfter,
            final long proven,
            final long cleanEnd,
            final boolean later,
            final Verdict verdict,
            final String where) {
        // Nothing a frame proves synced is ever cut or taken for the end of the log.
        if (!verdict.corrupt()) {
            assertTrue(validEnd >= proven || cleanEnd >= 0, where);
        }
        // Ending the log loses no byte.
        if (verdict == Verdict.END) {
            assertTrue(!dataAfter, where);
        }
        // After a clean close no write can be torn.
        if (cleanEnd >= 0) {
            assertTrue(verdict != Verdict.TORN_TAIL, where);
        }
        // The roll fence: a segment that ends early before a later segment with data is damaged.
        if (later && validEnd < CAPACITY) {
            assertEquals(Verdict.CORRUPT_BEFORE_LATER_SEGMENT, verdict, where);
            return;
        }
        if (cleanEnd >= 0) {
            assertEquals(
                    validEnd == cleanEnd && !dataAfter ? Verdict.END : Verdict.CORRUPT_AFTER_CLEAN_CLOSE,
                    verdict,
                    where);
            return;
        }
        if (validEnd < proven) {
            assertEquals(Verdict.CORRUPT_BELOW_DURABLE, verdict, where);
            return;
        }
        // Past everything proven, after a crash, a tear of any shape is cut and never refused.
        assertEquals(dataAfter ? Verdict.TORN_TAIL : Verdict.END, verdict, where);
    }

    @Test
    void theExamplesOfTheIssueAreDecidedByGroundTruth() {
        // A flipped bit in the last of 20 synced records after a clean close: corruption.
        assertEquals(
                Verdict.CORRUPT_AFTER_CLEAN_CLOSE, RecoveryRule.judge(20_000, CAPACITY, true, 19_000, 21_000, false));
        // The same after a crash, below what the last valid frame proves: corruption.
        assertEquals(Verdict.CORRUPT_BELOW_DURABLE, RecoveryRule.judge(18_000, CAPACITY, true, 19_000, -1, false));
        // A tear past it: cut, whatever its shape.
        assertEquals(Verdict.TORN_TAIL, RecoveryRule.judge(19_000, CAPACITY, true, 19_000, -1, false));
        // A clean close with nothing after it: the end.
        assertEquals(Verdict.END, RecoveryRule.judge(21_000, CAPACITY, false, 19_000, 21_000, false));
    }

    @Test
    void damageIsNamedAtTheValidEndOrAtAnEarlierCleanEnd() {
        assertEquals(5000, RecoveryRule.damageOffset(Verdict.CORRUPT_BELOW_DURABLE, 5000, -1));
        assertEquals(5000, RecoveryRule.damageOffset(Verdict.CORRUPT_AFTER_CLEAN_CLOSE, 5000, 7000));
        assertEquals(4200, RecoveryRule.damageOffset(Verdict.CORRUPT_AFTER_CLEAN_CLOSE, 5000, 4200));
        assertEquals(5000, RecoveryRule.damageOffset(Verdict.CORRUPT_BEFORE_LATER_SEGMENT, 5000, 4200));
    }

    @Test
    void aValidEndPastTheCapacityIsABug() {
        assertThrows(AssertionError.class, () -> RecoveryRule.judge(CAPACITY + 8, CAPACITY, false, FIRST, -1, false));
    }

    private static long[] around(final long value, final long floor) {
        return new long[] {floor, Math.max(floor, value - 8), value, value + 8};
    }

    private static long[] cleanEnds(final long validEnd) {
        return new long[] {-1, Math.max(FIRST, validEnd - 8), validEnd, Math.min(CAPACITY, validEnd + 8)};
    }
}
