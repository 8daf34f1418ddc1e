package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-writer bars against hand-written code: each judged from the rows it names, and only those. */
final class BarTest {
    private static ResultRow row(
            final String system,
            final String backend,
            final String variant,
            final String durability,
            final int recordBytes,
            final double recordsPerS) {
        final double nan = Double.NaN;
        return new ResultRow(
                system,
                backend,
                durability,
                1,
                recordBytes,
                recordsPerS,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                variant,
                0,
                nan,
                nan,
                nan,
                3.0,
                recordsPerS * 3,
                "");
    }

    private static BarItem item(final List<BarItem> items, final String startsWith) {
        return items.stream()
                .filter(i -> i.bar().startsWith(startsWith))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no bar item " + startsWith + " in " + items));
    }

    @Test
    void shouldJudgeOneWriterAgainstHandWrittenFileChannelCodeAndFio() {
        final List<ResultRow> rows = List.of(
                row(Systems.WALDEN, "nio", Scenario.NONE, "SYNCED", 128, 6_000),
                row(Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", 128, 6_000),
                row(Systems.WALDEN, "nio", Scenario.NONE, "SYNCED", 4096, 5_000),
                row(Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", 4096, 4_000),
                row(Systems.FIO, "psync", "append", "SYNCED", 4096, 4_000),
                row(Systems.WALDEN, "nio", Scenario.NONE, "WRITTEN", 128, 300_000),
                row(Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-100", "WRITTEN", 128, 100_000),
                row(Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-1000", "WRITTEN", 128, 400_000));
        final List<BarItem> items =
                Bar.judge(new RunResults(null, rows, Map.of(), List.of(), Map.of(), "fio-3.33", "run", "now", 0));

        final BarItem small = item(items, "1 writer, SYNCED, 128 B >= 1.2x FileChannel");
        assertEquals(1.0, small.ratio(), 1e-9);
        assertTrue(small.verdict().startsWith("MISS"), small::toString);
        final BarItem page = item(items, "1 writer, SYNCED, 4 KiB >= 1.2x FileChannel");
        assertEquals(1.25, page.ratio(), 1e-9);
        assertEquals("PASS", page.verdict());
        final BarItem fio = item(items, "1 writer, SYNCED, 4 KiB >= 1.0x fio");
        assertEquals(1.25, fio.ratio(), 1e-9);
        assertEquals("PASS", fio.verdict());
        final BarItem written = item(items, "1 writer, WRITTEN (blocking)");
        assertEquals(0.75, written.ratio(), 1e-9, "against every-1000, not every-100");
        assertEquals("MISS by 25 %", written.verdict());
    }

    @Test
    void shouldSayWhatIsMissingRatherThanJudge() {
        final List<BarItem> items = Bar.judge(new RunResults(
                null,
                List.of(row(Systems.WALDEN, "nio", Scenario.NONE, "SYNCED", 128, 6_000)),
                Map.of(),
                List.of(),
                Map.of(),
                null,
                "run --quick",
                "now",
                0));
        final BarItem page = item(items, "1 writer, SYNCED, 4 KiB >= 1.2x FileChannel");
        assertTrue(Double.isNaN(page.ratio()));
        assertTrue(page.verdict().startsWith("not measured"), page::toString);
        assertTrue(item(items, "1 writer, SYNCED, 4 KiB >= 1.0x fio").verdict().contains("fio is not installed"));
    }
}
