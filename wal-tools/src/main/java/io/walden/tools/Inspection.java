package io.walden.tools;

import io.walden.LogInspection;
import io.walden.Wal;
import java.nio.file.Path;

/**
 * {@link Wal#inspect} and the wall-clock time it took. On a live log {@code Wal.inspect} itself
 * inspects again where the writer met it half-way (a segment deleted by retention, a roll seen out of
 * order) and reports corruption only once two inspections in a row find it in the same place, so the
 * tool needs no rule of its own.
 *
 * @param inspection the inspection.
 * @param wallNs wall-clock time of the call, every inspection it made included.
 */
record Inspection(LogInspection inspection, long wallNs) {
    /**
     * Inspects a log directory read-only.
     *
     * @param directory the log directory.
     * @return the inspection.
     */
    static Inspection of(final Path directory) {
        final long startNs = System.nanoTime();
        final LogInspection inspection = Wal.inspect(directory);
        return new Inspection(inspection, System.nanoTime() - startNs);
    }
}
