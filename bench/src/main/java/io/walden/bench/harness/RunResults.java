package io.walden.bench.harness;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Everything one run produced, for the report and the charts.
 *
 * @param plan what was planned.
 * @param rows one row per scenario and fio job, in the order they ran.
 * @param histograms latency histograms by scenario id.
 * @param blowups the memory blow-up runs.
 * @param machine the machine description.
 * @param fioVersion fio's version, or null if not installed.
 * @param command the command line of the run.
 * @param startedAt when the run started (ISO-8601).
 * @param elapsedMs how long it took.
 */
public record RunResults(
        Plan plan,
        List<ResultRow> rows,
        Map<String, Histogram> histograms,
        List<BlowupResult> blowups,
        Map<String, String> machine,
        String fioVersion,
        String command,
        String startedAt,
        long elapsedMs) {

    /**
     * Finds a measured row.
     *
     * @param system system.
     * @param backend backend.
     * @param variant variant.
     * @param durability level.
     * @param writers writers.
     * @param recordBytes record size.
     * @return the row without a group window, if measured.
     */
    public Optional<ResultRow> find(
            final String system,
            final String backend,
            final String variant,
            final String durability,
            final int writers,
            final int recordBytes) {
        return rows.stream()
                .filter(row -> row.system().equals(system)
                        && row.backend().equals(backend)
                        && row.variant().equals(variant)
                        && row.durability().equals(durability)
                        && row.writers() == writers
                        && row.recordBytes() == recordBytes
                        && row.groupWindowUs() == 0
                        && row.measured())
                .findFirst();
    }

    /**
     * A Walden row of the default variant.
     *
     * @param backend backend.
     * @param durability level.
     * @param writers writers.
     * @param recordBytes size.
     * @return the row, if measured.
     */
    public Optional<ResultRow> walden(
            final String backend, final String durability, final int writers, final int recordBytes) {
        return find(Systems.WALDEN, backend, Scenario.NONE, durability, writers, recordBytes);
    }
}
