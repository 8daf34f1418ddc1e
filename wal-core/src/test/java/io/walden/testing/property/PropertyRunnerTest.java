package io.walden.testing.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The property runner itself: reproducible seeds, replay of one case, and shrinking by deletion. */
class PropertyRunnerTest {
    private static final Gen<List<Integer>> LISTS = Gen.between(0, 20).listOf(0, 40);

    @AfterEach
    void clearProperties() {
        System.clearProperty(PropertyRunner.SEED_PROPERTY);
        System.clearProperty(PropertyRunner.CASE_PROPERTY);
    }

    @Test
    void theSameBaseSeedDrawsTheSameCasesAndAnotherDrawsOthers() {
        assertEquals(drawn(42), drawn(42));
        assertNotEquals(drawn(42), drawn(43));
    }

    private static List<List<Integer>> drawn(final long seed) {
        System.setProperty(PropertyRunner.SEED_PROPERTY, Long.toString(seed));
        final List<List<Integer>> seen = new ArrayList<>();
        PropertyRunner.forAll("draws", LISTS).tries(20).check((value, statistics) -> seen.add(value));
        return seen;
    }

    @Test
    void aFailingSequenceIsShrunkByDeletionToTheOperationsThatMatterAndItsCaseReplays() {
        // Fails when a list holds both a 3 and a 7: the shortest failing lists are [3, 7] and [7, 3].
        final PropertyRunner<List<Integer>> runner =
                PropertyRunner.forAll("no 3 with a 7", LISTS).tries(500).shrinkWith(Shrink::deletions);
        final PropertyRunner.Property<List<Integer>> property =
                (value, statistics) -> assertTrue(!(value.contains(3) && value.contains(7)), value::toString);
        final AssertionError failure = assertThrows(AssertionError.class, () -> runner.check(property));
        final String message = failure.getMessage();
        assertTrue(message.contains("to: [3, 7]") || message.contains("to: [7, 3]"), message);
        final Matcher seed = Pattern.compile("case seed (-?\\d+)").matcher(message);
        assertTrue(seed.find(), message);
        final Matcher original = Pattern.compile("from: (\\[[^\\]]*\\])").matcher(message);
        assertTrue(original.find(), message);

        System.setProperty(PropertyRunner.CASE_PROPERTY, seed.group(1));
        final AssertionError replayed = assertThrows(AssertionError.class, () -> runner.check(property));
        assertTrue(replayed.getMessage().contains("from: " + original.group(1)), replayed.getMessage());
        assertTrue(replayed.getMessage().contains("failed at case 1 "), replayed.getMessage());
    }

    @Test
    void statisticsCountWhatTheCasesCovered() {
        System.setProperty(PropertyRunner.SEED_PROPERTY, "7");
        final Statistics statistics = PropertyRunner.forAll("sizes", LISTS)
                .tries(200)
                .check((value, stats) -> stats.collect("empty", value.isEmpty()));
        assertEquals(200, statistics.count("empty", true) + statistics.count("empty", false));
        assertTrue(statistics.count("empty", false) > 150, statistics::toString);
    }
}
