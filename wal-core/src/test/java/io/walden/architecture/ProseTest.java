package io.walden.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The prose guard: Javadoc is at most a quarter of wal-core's non-blank main lines, and no member of
 * the implementation ({@code io.walden.internal..}) carries {@code @param} or {@code @return} (its
 * names say it; class comments, diagrams and threading paragraphs carry the rest). Runs in wal-core's
 * directory, where Maven runs its tests.
 */
class ProseTest {
    static final double JAVADOC_SHARE_MAX = 0.25;
    private static final Path MAIN = Path.of("src/main/java");

    @Test
    void javadocIsAtMostAQuarterOfTheMainLines() {
        final ProseShare share = ProseShare.of(MAIN);
        assertTrue(share.lines() > 10_000, "read wal-core's sources: " + share.lines() + " lines");
        assertTrue(
                share.javadocShare() <= JAVADOC_SHARE_MAX,
                String.format(
                        "Javadoc is %.1f%% of wal-core's non-blank main lines (%d of %d), above %.0f%%: say it"
                                + " in fewer words, in the code's names, or in docs/design",
                        100 * share.javadocShare(), share.javadocLines(), share.lines(), 100 * JAVADOC_SHARE_MAX));
    }

    @Test
    void theImplementationCarriesNoParamOrReturnTags() {
        final ProseShare share = ProseShare.of(MAIN.resolve("io/walden/internal"));
        assertEquals(0, share.tagLines(), "@param/@return lines in io.walden.internal");
    }

    @Test
    void countsJavadocLinesAndTagsAndNothingElse() {
        final ProseShare share = new ProseShare();
        share.add(List.of(
                "/**",
                " * A class.",
                " *",
                " * @param x the x.",
                " */",
                "final class A {",
                "",
                "    /** @return one. */",
                "    int one() { return 1; } // not Javadoc",
                "    /* not Javadoc */",
                "}"));
        assertEquals(10, share.lines());
        assertEquals(6, share.javadocLines());
        assertEquals(2, share.tagLines());
    }
}
