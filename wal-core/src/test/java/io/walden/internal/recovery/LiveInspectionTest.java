package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.LogInspection;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rule that picks which inspection of a possibly live log to report, against scripted inspections:
 * every row of its table, and, exhaustively, every sequence of outcomes up to the inspection limit.
 */
final class LiveInspectionTest {
    private static final Path DIR = Path.of("/var/lib/app/wal");
    private static final Path SEGMENT_0 = DIR.resolve("00000000000000000000.wal");
    private static final Path SEGMENT_1 = DIR.resolve("00000000000000065536.wal");

    private static final LogInspection CLEAN = new LogInspection(LogInspection.Verdict.CLEAN, null, null);
    private static final LogInspection TORN = new LogInspection(LogInspection.Verdict.TORN_TAIL, null, null);

    private static LogInspection corrupt(final Path file, final long offset) {
        return new LogInspection(
                LogInspection.Verdict.CORRUPTION, null, new WalCorruptionException(file, offset, "bad frame"));
    }

    /** Plays back a script of outcomes: an inspection, or an exception to throw. */
    private static final class Script implements LiveInspection.Inspector {
        private final ArrayDeque<Object> outcomes = new ArrayDeque<>();
        int calls;

        Script(final Object... outcomes) {
            this.outcomes.addAll(List.of(outcomes));
        }

        @Override
        public LogInspection inspect() throws IOException {
            calls++;
            final Object next = outcomes.removeFirst();
            if (next instanceof IOException) {
                throw (IOException) next;
            }
            return (LogInspection) next;
        }
    }

    private static final int MAX_CORRUPT = 3;
    private static final int MAX_VANISHED = 3;

    private static LogInspection inspect(final Script script) {
        return LiveInspection.inspect(DIR, script, MAX_CORRUPT, MAX_VANISHED, 0);
    }

    private static NoSuchFileException vanished() {
        return new NoSuchFileException(SEGMENT_0.toString());
    }

    @Test
    void shouldReportASoundInspectionAtOnce() {
        for (final LogInspection sound : List.of(CLEAN, TORN)) {
            final Script script = new Script(sound);
            assertSame(sound, inspect(script));
            assertEquals(1, script.calls);
        }
    }

    @Test
    void shouldReportCorruptionOnlyWhenTheNextInspectionFindsItInTheSamePlace() {
        final LogInspection first = corrupt(SEGMENT_0, 4096);
        final LogInspection second = corrupt(SEGMENT_0, 4096);
        final Script confirmed = new Script(first, second);
        assertSame(second, inspect(confirmed));
        assertEquals(2, confirmed.calls);

        final Script raced = new Script(corrupt(SEGMENT_0, 4096), TORN);
        assertSame(TORN, inspect(raced), "the writer had moved on: no corruption");

        final LogInspection elsewhere = corrupt(SEGMENT_1, 64);
        final LogInspection again = corrupt(SEGMENT_1, 64);
        final Script moved = new Script(corrupt(SEGMENT_0, 4096), elsewhere, again);
        assertSame(again, inspect(moved));
        assertEquals(3, moved.calls);

        final Script otherOffset = new Script(corrupt(SEGMENT_0, 4096), corrupt(SEGMENT_0, 8192), CLEAN);
        assertSame(CLEAN, inspect(otherOffset), "a different offset confirms nothing");
    }

    @Test
    void shouldInspectAgainWhenASegmentVanishesAndFailClearlyIfItAlwaysDoes() {
        final Script once = new Script(vanished(), CLEAN);
        assertSame(CLEAN, inspect(once));

        final Object[] always = new Object[MAX_VANISHED];
        for (int i = 0; i < always.length; i++) {
            always[i] = vanished();
        }
        final WalException ex = assertThrows(WalException.class, () -> inspect(new Script(always)));
        assertEquals(WalException.ErrorCode.IO, ex.errorCode());
        assertTrue(ex.getMessage().contains(DIR.toString()), ex.getMessage());
        assertTrue(ex.getMessage().contains(SEGMENT_0.toString()), ex.getMessage());
        assertTrue(ex.getMessage().contains("inspect again"), ex.getMessage());
    }

    @Test
    void shouldFailAtOnceOnAnyOtherIoError() {
        final Script script = new Script(new AccessDeniedException(SEGMENT_0.toString()), CLEAN);
        final WalException ex = assertThrows(WalException.class, () -> inspect(script));
        assertEquals(WalException.ErrorCode.IO, ex.errorCode());
        assertTrue(ex.getMessage().contains(DIR.toString()), ex.getMessage());
        assertEquals(1, script.calls);
    }

    /**
     * Every sequence of six outcomes drawn from: clean, torn, vanished, corruption at A, corruption at B
     * (with the limits 3 and 3, no call needs more than five). Checked against a model of the rule: the
     * first sound outcome, or the first corruption that repeats the corruption before it, is reported;
     * the third corruption is reported as it is; at the third vanished segment the last corruption seen is
     * reported, or the call fails. And no inspection is made after the one decided on.
     */
    @Test
    void shouldFollowTheRuleForEverySequenceOfOutcomes() {
        final int kinds = 5;
        final int length = 6;
        int total = 1;
        for (int i = 0; i < length; i++) {
            total *= kinds;
        }
        for (int code = 0; code < total; code++) {
            final List<Object> outcomes = new ArrayList<>();
            int rest = code;
            for (int i = 0; i < length; i++) {
                outcomes.add(outcome(rest % kinds));
                rest /= kinds;
            }
            // The model.
            Object expected = null;
            boolean fails = false;
            int expectedCalls = 0;
            LogInspection lastCorruption = null;
            int corruptions = 0;
            int vanishings = 0;
            for (final Object outcome : outcomes) {
                expectedCalls++;
                if (outcome instanceof IOException) {
                    if (++vanishings == MAX_VANISHED) {
                        expected = lastCorruption;
                        fails = lastCorruption == null;
                        break;
                    }
                    continue;
                }
                final LogInspection inspection = (LogInspection) outcome;
                if (inspection.verdict() != LogInspection.Verdict.CORRUPTION) {
                    expected = inspection;
                    break;
                }
                if (lastCorruption != null
                        && lastCorruption.corruption().fileOffset()
                                == inspection.corruption().fileOffset()) {
                    expected = inspection;
                    break;
                }
                lastCorruption = inspection;
                if (++corruptions == MAX_CORRUPT) {
                    expected = inspection;
                    break;
                }
            }
            assertTrue(expected != null || fails, () -> "the model decided nothing for " + outcomes);
            final Script script = new Script(outcomes.toArray());
            if (fails) {
                assertThrows(WalException.class, () -> inspect(script), outcomes::toString);
            } else {
                assertSame(expected, inspect(script), outcomes::toString);
            }
            assertEquals(expectedCalls, script.calls, outcomes::toString);
        }
    }

    private static Object outcome(final int kind) {
        switch (kind) {
            case 0:
                return new LogInspection(LogInspection.Verdict.CLEAN, null, null);
            case 1:
                return new LogInspection(LogInspection.Verdict.TORN_TAIL, null, null);
            case 2:
                return vanished();
            case 3:
                return corrupt(SEGMENT_0, 4096);
            default:
                return corrupt(SEGMENT_0, 8192);
        }
    }
}
