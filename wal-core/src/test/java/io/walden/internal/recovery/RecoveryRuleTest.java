package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.internal.recovery.RecoveryRule.Verdict;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every combination of the rule's inputs (valid end at the first frame, inside, at the capacity; data
 * after it or not; the proven durable offset below, at and above the valid end; no clean end, and one
 * below, at and above the valid end; a later segment with data or not; no batch left open at the valid
 * end, or one that starts at the first frame or just before the valid end) is judged, and each verdict
 * is checked against the safety properties that together pin the rule down.
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
                            for (final long openBatch : openBatches(validEnd)) {
                                final Verdict verdict = RecoveryRule.judge(
                                        validEnd, CAPACITY, dataAfter, proven, cleanEnd, later, openBatch);
                                seen.merge(verdict, 1, Integer::sum);
                                cases++;
                                final String where = "validEnd=" + validEnd + " dataAfter=" + dataAfter + " proven="
                                        + proven + " cleanEnd=" + cleanEnd + " later=" + later + " openBatch="
                                        + openBatch + " -> " + verdict;
                                check(validEnd, dataAfter, proven, cleanEnd, later, openBatch, verdict, where);
                            }
                        }
                    }
                }
            }
        }
        assertEquals(Verdict.values().length, seen.size(), "every verdict is reached: " + seen);
        assertTrue(cases >= 350, "cases " + cases);
    }

    private static void check(
            final long validEnd,
            final boolean dataAfter,
            final long proven,
            final long cleanEnd,
            final boolean later,
            final long openBatch,
            final Verdict verdict,
            final String where) {
        // Nothing a frame proves synced is ever cut or taken for the end of the log, but for the
        // records of a batch left open, which were never acknowledged.
        if (!verdict.corrupt()) {
            assertTrue(validEnd >= proven || cleanEnd >= 0, where);
            final long end = RecoveryRule.endOffset(validEnd, openBatch);
            assertEquals(openBatch >= 0 ? openBatch : validEnd, end, where);
            if (end < proven && cleanEnd < 0) {
                assertEquals(openBatch, end, where);
            }
        }
        // Ending the log loses no byte, and keeps no part of a batch.
        if (verdict == Verdict.END) {
            assertTrue(!dataAfter, where);
            assertEquals(-1, openBatch, where);
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
            // A clean close leaves no batch open.
            assertEquals(
                    validEnd == cleanEnd && !dataAfter && openBatch < 0
                            ? Verdict.END
                            : Verdict.CORRUPT_AFTER_CLEAN_CLOSE,
                    verdict,
                    where);
            return;
        }
        if (validEnd < proven) {
            assertEquals(Verdict.CORRUPT_BELOW_DURABLE, verdict, where);
            return;
        }
        // Past everything proven, after a crash, a tear of any shape is cut and never refused; so is a
        // batch the crash left open.
        assertEquals(dataAfter || openBatch >= 0 ? Verdict.TORN_TAIL : Verdict.END, verdict, where);
    }

    @Test
    void aBatchLeftOpenIsCutWholeEvenBelowWhatASyncProved() {
        // Records 4096..6000 of a batch were written and synced (a later frame of the batch proves it),
        // the batch's last frame never reached the disk: nothing of it was acknowledged.
        assertEquals(Verdict.TORN_TAIL, RecoveryRule.judge(8000, CAPACITY, false, 6000, -1, false, 4096));
        assertEquals(4096, RecoveryRule.endOffset(8000, 4096));
        // The same after a clean close cannot happen: corruption.
        assertEquals(
                Verdict.CORRUPT_AFTER_CLEAN_CLOSE, RecoveryRule.judge(8000, CAPACITY, false, 6000, 8000, false, 4096));
        // Damage below the proven offset stays corruption, batch or not.
        assertEquals(Verdict.CORRUPT_BELOW_DURABLE, RecoveryRule.judge(5000, CAPACITY, true, 6000, -1, false, 4096));
    }

    @Test
    void theExamplesOfTheIssueAreDecidedByGroundTruth() {
        // A flipped bit in the last of 20 synced records after a clean close: corruption.
        assertEquals(
                Verdict.CORRUPT_AFTER_CLEAN_CLOSE,
                RecoveryRule.judge(20_000, CAPACITY, true, 19_000, 21_000, false, -1));
        // The same after a crash, below what the last valid frame proves: corruption.
        assertEquals(Verdict.CORRUPT_BELOW_DURABLE, RecoveryRule.judge(18_000, CAPACITY, true, 19_000, -1, false, -1));
        // A tear past it: cut, whatever its shape.
        assertEquals(Verdict.TORN_TAIL, RecoveryRule.judge(19_000, CAPACITY, true, 19_000, -1, false, -1));
        // A clean close with nothing after it: the end.
        assertEquals(Verdict.END, RecoveryRule.judge(21_000, CAPACITY, false, 19_000, 21_000, false, -1));
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
        assertThrows(
                AssertionError.class, () -> RecoveryRule.judge(CAPACITY + 8, CAPACITY, false, FIRST, -1, false, -1));
    }

    private static long[] around(final long value, final long floor) {
        return new long[] {floor, Math.max(floor, value - 8), value, value + 8};
    }

    private static long[] openBatches(final long validEnd) {
        return validEnd > FIRST + 8 ? new long[] {-1, FIRST, validEnd - 8} : new long[] {-1};
    }

    private static long[] cleanEnds(final long validEnd) {
        return new long[] {-1, Math.max(FIRST, validEnd - 8), validEnd, Math.min(CAPACITY, validEnd + 8)};
    }
}
