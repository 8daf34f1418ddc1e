package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFilesTest {
    @TempDir
    Path out;

    static ResultRow row(
            final String system,
            final String backend,
            final String variant,
            final String durability,
            final int writers,
            final int size,
            final double rate) {
        return new ResultRow(
                system,
                backend,
                durability,
                writers,
                size,
                rate,
                rate * size / 1e6,
                100,
                200,
                300,
                400,
                rate,
                1.0,
                12.5,
                variant,
                0,
                0.5,
                0.0,
                20,
                2.5,
                rate * 2.5,
                "");
    }

    @Test
    void csvHeaderStartsWithTheStableColumns() {
        assertTrue(ResultRow.CSV_HEADER.startsWith("system,backend,durability,writers,record_bytes,records_per_s,"
                + "mb_per_s,p50_us,p99_us,p999_us,max_us,syncs_per_s,records_per_sync,peak_heap_mb"));
    }

    @Test
    void csvRoundTrip() throws IOException {
        final List<ResultRow> rows = List.of(
                row("walden", "nio", "-", "SYNCED", 16, 128, 12345.5),
                ResultRow.failed(
                        new Scenario("rocksdb", "wal", "-", "SYNCED", 64, 128, 0, 1, 1), "exit 1: a, \"quoted\" note"));
        final Path file = out.resolve(ResultsCsv.FILE_NAME);
        ResultsCsv.write(file, rows);
        final List<ResultRow> read = ResultsCsv.read(file);
        assertEquals(2, read.size());
        assertEquals(rows.get(0).toCsv(), read.get(0).toCsv());
        assertEquals("exit 1: a, \"quoted\" note", read.get(1).note());
        assertTrue(Double.isNaN(read.get(1).recordsPerS()));
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(ResultRow.CSV_HEADER, lines.get(0));
        assertTrue(lines.get(2).contains(",,"), "missing figures are empty cells: " + lines.get(2));
    }

    @Test
    void fioTerseLineParses() throws IOException {
        final String terse;
        try (var in = getClass().getResourceAsStream("/fio-terse-v3.txt")) {
            terse = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        final Fio.Job job = Fio.Job.sequential(false, 4096, 4, 1);
        final Scenario scenario = new Scenario("fio", "psync", "seq-buffered", "WRITTEN", 1, 4096, 0, 0, 1000);
        final ResultRow row = Fio.parse(scenario, job, terse);
        assertEquals(256000, row.recordsPerS(), 0.1);
        assertEquals(1024000 * 1024 / 1e6, row.mbPerS(), 0.01);
        assertEquals(3, row.p50Us(), 0.01);
        assertEquals(36, row.maxUs(), 0.01);
    }

    @Test
    void blowupStatusParses() {
        final BlowupResult result = BlowupResult.parse(
                "asyncfilechannel-force",
                "fixed-pool-4",
                "elapsed_ms=700 submitted=90000 completed=1200 heap_peak_mb=63.5 direct_peak_mb=0.1 threads_peak=9"
                        + " heap_max_mb=64 outcome=running",
                -1,
                "Terminating due to java.lang.OutOfMemoryError: Java heap space",
                3);
        assertEquals("java.lang.OutOfMemoryError: Java heap space", result.outcome());
        assertEquals(90000, result.submitted());
        assertEquals(63.5, result.heapPeakMb(), 0.01);
        assertEquals(9, result.threadsPeak());
    }

    @Test
    void reportJudgesTheBarFromRatiosAndWritesCharts() throws IOException {
        final List<ResultRow> rows = new ArrayList<>();
        final Map<String, Histogram> histograms = new LinkedHashMap<>();
        rows.add(row("fio", "psync", "append", "SYNCED", 1, 128, 5000));
        rows.add(row("fio", "psync", "seq-buffered", "WRITTEN", 1, 4096, 100_000));
        for (final int writers : List.of(1, 16, 64)) {
            rows.add(row("walden", "nio", "-", "SYNCED", writers, 128, 6000.0 * Math.min(writers, 6)));
            rows.add(row("walden", "uring", "-", "SYNCED", writers, 128, 5000.0 * Math.min(writers, 6)));
            rows.add(row("rocksdb", "wal", "-", "SYNCED", writers, 128, 4000.0 * Math.min(writers, 8)));
            rows.add(row("filechannel-force-every", "buffered", "every-100", "WRITTEN", writers, 128, 50_000));
            final Histogram histogram = Measurement.newHistogram();
            for (int i = 1; i <= 1000; i++) {
                histogram.recordValue(100_000L + i * 100L);
            }
            histograms.put(new Scenario("walden", "nio", "-", "SYNCED", writers, 128, 0, 0, 0).id(), histogram);
        }
        rows.add(row("walden", "nio", "async-ack", "WRITTEN", 1, 128, 1_200_000));
        rows.add(row("walden", "nio", "-", "WRITTEN", 16, 4096, 90_000));
        final Plan plan = Plan.of(new Plan.Settings(
                true,
                List.of("nio", "uring"),
                List.of("SYNCED"),
                List.of(1, 16, 64),
                List.of(128),
                List.of(),
                List.of(),
                1,
                1,
                1,
                1));
        final RunResults results = new RunResults(
                plan,
                rows,
                histograms,
                List.of(),
                MachineInfo.describe(out, null),
                "fio-3.33",
                "java -jar walden-bench.jar run --quick",
                "2026-11-21T00:00:00Z",
                1000);
        final List<String> images = Charts.write(results, out);
        for (final String image : images) {
            assertTrue(Files.size(out.resolve(image)) > 1000, image);
        }
        final String md = new Report(results, images).markdown();
        Files.writeString(out.resolve(Report.FILE_NAME), md);
        assertTrue(md.contains("| kernel |"), md);
        // 1 writer: 6000 vs fio 5000 = 1.20x, PASS; 16 writers: 36000 / 6000 = 6x of 8x, MISS by 25 %.
        assertTrue(md.contains("| 1.20x | 1.00x | **PASS** |"), md);
        assertTrue(md.contains("| 6.00x | 8.00x | **MISS by 25 %** |"), md);
        // io_uring is slower than nio in all three pairs.
        assertTrue(md.contains("MISS in 3 of 3 scenarios"), md);
        assertTrue(md.contains("up to 99"), md);
    }
}
