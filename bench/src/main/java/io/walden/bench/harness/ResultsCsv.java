package io.walden.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes and reads {@code results.csv}: the {@link ResultRow#CSV_HEADER} line, then one row per
 * scenario.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class ResultsCsv {
    /** File name of the CSV in the results directory. */
    public static final String FILE_NAME = "results.csv";

    private ResultsCsv() {}

    /**
     * Writes rows.
     *
     * @param file the file, replaced.
     * @param rows the rows.
     * @throws IOException if writing fails.
     */
    public static void write(final Path file, final List<ResultRow> rows) throws IOException {
        final List<String> lines = new ArrayList<>();
        lines.add(ResultRow.CSV_HEADER);
        for (final ResultRow row : rows) {
            lines.add(row.toCsv());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * Reads rows.
     *
     * @param file a file written by {@link #write}.
     * @return the rows.
     * @throws IOException if reading fails.
     * @throws IllegalArgumentException if the header differs or a row is malformed.
     */
    public static List<ResultRow> read(final Path file) throws IOException {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(ResultRow.CSV_HEADER)) {
            throw new IllegalArgumentException(file + " does not start with the header " + ResultRow.CSV_HEADER);
        }
        final List<ResultRow> rows = new ArrayList<>();
        for (final String line : lines.subList(1, lines.size())) {
            if (!line.isBlank()) {
                rows.add(ResultRow.fromCsv(line));
            }
        }
        return rows;
    }
}
