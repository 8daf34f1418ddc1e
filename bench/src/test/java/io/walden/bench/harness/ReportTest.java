package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The start-up row in the report: labelled, judged as start-up / steady state, and never taken for
 * the steady-state row by the lookups that find Walden's rows by backend, level, writers and size.
 */
final class ReportTest {
    private static final Plan PLAN = Plan.of(new Plan.Settings(
            true,
            List.of("nio", "uring"),
            List.of("SYNCED"),
            List.of(1),
            List.of(128),
            List.of(),
            List.of(Systems.FILECHANNEL_FORCE),
            1000,
            1500,
            1,
            1));

    private static RunResults results(final double startUpRate) {
        // The start-up row comes first, so that a lookup blind to the variant would find it.
        return new RunResults(
                PLAN,
                List.of(
                        ResultsFilesTest.row(
                                Systems.WALDEN, "nio", Systems.VARIANT_START_UP, "SYNCED", 1, 128, startUpRate),
                        ResultsFilesTest.row(Systems.WALDEN, "nio", Scenario.NONE, "SYNCED", 1, 128, 10_000),
                        ResultsFilesTest.row(Systems.WALDEN, "uring", Scenario.NONE, "SYNCED", 1, 128, 9_000),
                        ResultsFilesTest.row(
                                Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", 1, 128, 8_000)),
                Map.of(),
                List.of(),
                Map.of(),
                null,
                "java -jar walden-bench.jar run --quick",
                "2026-11-26T00:00:00Z",
                1000);
    }

    private static BarItem item(final List<BarItem> items, final String startsWith) {
        return items.stream()
                .filter(i -> i.bar().startsWith(startsWith))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no bar item " + startsWith + " in " + items));
    }

    @Test
    void startUpRowIsLabelledAndJudgedAgainstTheSteadyRow() {
        final String md = new Report(results(7_000), List.of()).markdown();
        assertTrue(md.contains("## A new log's first second"), md);
        assertTrue(md.contains("| start-up (new log, 250 ms warm-up) | 7,000 | 100 | 200 | 300 | 400 |"), md);
        assertTrue(md.contains("| steady state | 10,000 | 100 | 200 | 300 | 400 |"), md);
        assertTrue(md.contains("1000 ms warm-up, 1500 ms measured"), md);
        // 7,000 / 10,000 = 0.70x against 0.85x: short by 1 - 0.70 / 0.85 = 18 %.
        assertTrue(md.contains("Start-up / steady state: **0.70x** (needs 0.85x): **MISS by 18 %**."), md);
        assertTrue(
                md.contains("| 1 writer, SYNCED, 128 B on a new log, 600 ms measured after 250 ms of warm-up >= 0.85x"
                        + " the same at steady state | 7,000/s | 10,000/s"),
                md);
        assertTrue(md.contains("| 0.70x | 0.85x | **MISS by 18 %** |"), md);
        assertTrue(md.contains("| walden | nio | start-up | SYNCED | 1 | 128 | 7,000 |"), "listed in every row: " + md);
    }

    @Test
    void startUpRowPassesAtEightyFivePercent() {
        final BarItem startUp = Bar.startUp(results(8_500));
        assertEquals(0.85, startUp.ratio(), 1e-9);
        assertEquals("PASS", startUp.verdict());
    }

    @Test
    void steadyLookupsAreNotAnsweredByTheStartUpRow() {
        final RunResults results = results(7_000);
        assertEquals(
                10_000,
                results.walden("nio", "SYNCED", 1, 128).orElseThrow().recordsPerS(),
                1e-9,
                "the steady row, not the start-up row listed before it");
        final List<BarItem> items = Bar.judge(results);
        assertEquals(
                1.25, item(items, "1 writer, SYNCED, 128 B >= 1.2x FileChannel").ratio(), 1e-9);
        assertEquals(0.9, item(items, "io_uring at least as fast").ratio(), 1e-9, "uring 9,000 / steady nio 10,000");
        final String md = new Report(results, List.of()).markdown();
        assertTrue(md.contains("| 128 B, 1 | 10,000/s | 1.25x |"), md);
    }
}
