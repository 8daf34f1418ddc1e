package io.walden.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One scenario's measured figures: one row of {@code results.csv}. The first fourteen columns are
 * the stable ones the README names; more may be added after them, never renamed or reordered.
 * Figures that do not apply or were not measured are {@link Double#NaN} (an empty CSV cell).
 *
 * @param system {@code walden} or the baseline's name.
 * @param backend backend or engine; {@code -} for none.
 * @param durability what an acknowledgement means: {@code BUFFERED}, {@code WRITTEN}, {@code SYNCED}.
 * @param writers writer threads (fio: jobs).
 * @param recordBytes payload bytes per record (fio: block size).
 * @param recordsPerS acknowledged records per second.
 * @param mbPerS payload megabytes (10^6 B) per second.
 * @param p50Us median append-to-acknowledgement latency in microseconds.
 * @param p99Us 99th percentile latency.
 * @param p999Us 99.9th percentile latency.
 * @param maxUs largest latency.
 * @param syncsPerS data syncs per second (fdatasync, force, fsync); 0 when none.
 * @param recordsPerSync records acknowledged per sync.
 * @param peakHeapMb largest heap in use during the measurement, in MiB.
 * @param variant what else distinguishes the scenario; {@code -} for none.
 * @param groupWindowUs Walden's group window; 0 for none.
 * @param cpuCores process CPU time divided by wall time during the measurement.
 * @param allocBytesPerRecord heap bytes allocated by all threads of the process per record.
 * @param peakThreads most live threads during the measurement.
 * @param measuredS measured seconds.
 * @param records acknowledged records in the measurement.
 * @param note failure or remark; empty for none.
 */
public record ResultRow(
        String system,
        String backend,
        String durability,
        int writers,
        int recordBytes,
        double recordsPerS,
        double mbPerS,
        double p50Us,
        double p99Us,
        double p999Us,
        double maxUs,
        double syncsPerS,
        double recordsPerSync,
        double peakHeapMb,
        String variant,
        long groupWindowUs,
        double cpuCores,
        double allocBytesPerRecord,
        double peakThreads,
        double measuredS,
        double records,
        String note) {

    /** The CSV header; its first fourteen names are stable. */
    public static final String CSV_HEADER = "system,backend,durability,writers,record_bytes,records_per_s,mb_per_s,"
            + "p50_us,p99_us,p999_us,max_us,syncs_per_s,records_per_sync,peak_heap_mb,"
            + "variant,group_window_us,cpu_cores,alloc_bytes_per_record,peak_threads,measured_s,records,note";

    /**
     * A row for a scenario that produced no figures.
     *
     * @param scenario the scenario.
     * @param note why.
     * @return the row.
     */
    public static ResultRow failed(final Scenario scenario, final String note) {
        final double nan = Double.NaN;
        return new ResultRow(
                scenario.system(),
                scenario.backend(),
                scenario.durability(),
                scenario.writers(),
                scenario.recordBytes(),
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                scenario.variant(),
                scenario.groupWindowUs(),
                nan,
                nan,
                nan,
                nan,
                nan,
                note);
    }

    /**
     * Whether this row has a throughput figure.
     *
     * @return true if measured.
     */
    public boolean measured() {
        return !Double.isNaN(recordsPerS);
    }

    /**
     * The same row with another note.
     *
     * @param newNote the note.
     * @return the row.
     */
    public ResultRow withNote(final String newNote) {
        return new ResultRow(
                system,
                backend,
                durability,
                writers,
                recordBytes,
                recordsPerS,
                mbPerS,
                p50Us,
                p99Us,
                p999Us,
                maxUs,
                syncsPerS,
                recordsPerSync,
                peakHeapMb,
                variant,
                groupWindowUs,
                cpuCores,
                allocBytesPerRecord,
                peakThreads,
                measuredS,
                records,
                newNote);
    }

    /**
     * Whether this row describes a scenario.
     *
     * @param scenario the scenario.
     * @return true if system, backend, variant, durability, writers, size and window match.
     */
    public boolean matches(final Scenario scenario) {
        return system.equals(scenario.system())
                && backend.equals(scenario.backend())
                && variant.equals(scenario.variant())
                && durability.equals(scenario.durability())
                && writers == scenario.writers()
                && recordBytes == scenario.recordBytes()
                && groupWindowUs == scenario.groupWindowUs();
    }

    /**
     * The row as a CSV line (no line terminator).
     *
     * @return the line.
     */
    public String toCsv() {
        final List<String> cells = new ArrayList<>();
        cells.add(text(system));
        cells.add(text(backend));
        cells.add(text(durability));
        cells.add(Integer.toString(writers));
        cells.add(Integer.toString(recordBytes));
        cells.add(number(recordsPerS, 1));
        cells.add(number(mbPerS, 3));
        cells.add(number(p50Us, 2));
        cells.add(number(p99Us, 2));
        cells.add(number(p999Us, 2));
        cells.add(number(maxUs, 2));
        cells.add(number(syncsPerS, 1));
        cells.add(number(recordsPerSync, 2));
        cells.add(number(peakHeapMb, 1));
        cells.add(text(variant));
        cells.add(Long.toString(groupWindowUs));
        cells.add(number(cpuCores, 3));
        cells.add(number(allocBytesPerRecord, 3));
        cells.add(number(peakThreads, 0));
        cells.add(number(measuredS, 3));
        cells.add(number(records, 0));
        cells.add(text(note));
        return String.join(",", cells);
    }

    /**
     * Parses a line written by {@link #toCsv()}.
     *
     * @param line the line.
     * @return the row.
     * @throws IllegalArgumentException if the line does not have the columns of {@link #CSV_HEADER}.
     */
    public static ResultRow fromCsv(final String line) {
        final List<String> cells = splitCsv(line);
        final int columns = CSV_HEADER.split(",").length;
        if (cells.size() != columns) {
            throw new IllegalArgumentException(
                    "expected " + columns + " CSV cells, found " + cells.size() + ": " + line);
        }
        int i = 0;
        return new ResultRow(
                cells.get(i++),
                cells.get(i++),
                cells.get(i++),
                Integer.parseInt(cells.get(i++)),
                Integer.parseInt(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                cells.get(i++),
                Long.parseLong(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                parse(cells.get(i++)),
                cells.get(i));
    }

    private static String number(final double value, final int decimals) {
        if (Double.isNaN(value)) {
            return "";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static double parse(final String cell) {
        return cell.isEmpty() ? Double.NaN : Double.parseDouble(cell);
    }

    private static String text(final String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0) {
            return value;
        }
        return '"' + value.replace("\n", " ").replace("\"", "\"\"") + '"';
    }

    private static List<String> splitCsv(final String line) {
        final List<String> cells = new ArrayList<>();
        final StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            final char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
