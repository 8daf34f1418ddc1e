package io.walden.bench.harness;

import java.util.Locale;

/**
 * One store's figures in the {@code groups} command, printed as a line {@value #PREFIX} followed by
 * its fields (comma-separated, in the order of the components, the note last) and read back by the
 * {@code run} command. Figures not measured are {@link Double#NaN}.
 *
 * @param store the store's id, e.g. {@code walden-groups}.
 * @param groups groups.
 * @param writers writer threads.
 * @param entryBytes payload bytes per entry.
 * @param entriesPerBatch entries per batch.
 * @param groupsPerBatch groups per batch.
 * @param entriesPerS durable entries per second in the window.
 * @param batchesPerS durable batches per second.
 * @param p50Us median latency of a batch, append to durable, microseconds.
 * @param p99Us its 99th percentile.
 * @param p999Us its 99.9th percentile.
 * @param maxUs its largest.
 * @param deviceBytesPerPayloadByte device bytes written per payload byte appended.
 * @param heapBytesPerGroup heap in use after a full GC, store open and idle after the run, above the
 *     heap before it was opened, per group.
 * @param residentBytesPerGroup the same for the process's resident memory (native memory included).
 * @param jvmThreads most live JVM threads in the window.
 * @param osThreads most threads of the process in the window, native ones included.
 * @param openMs time to open the empty store.
 * @param reopenMs time to open it again after the run.
 * @param openScannedMib the MiB of log the reopen scanned (walden-groups), or NaN.
 * @param openScanMs how long that scan took, or NaN.
 * @param cpuCores process CPU time over wall time in the window.
 * @param heapPeakMib most heap in use in the window, MiB.
 * @param allocBytesPerEntry heap bytes allocated per durable entry.
 * @param entries durable entries in the window.
 * @param measuredS the window, seconds.
 * @param note a failure or a remark; empty for none.
 */
record GroupsResult(
        String store,
        int groups,
        int writers,
        int entryBytes,
        int entriesPerBatch,
        int groupsPerBatch,
        double entriesPerS,
        double batchesPerS,
        double p50Us,
        double p99Us,
        double p999Us,
        double maxUs,
        double deviceBytesPerPayloadByte,
        double heapBytesPerGroup,
        double residentBytesPerGroup,
        double jvmThreads,
        double osThreads,
        double openMs,
        double reopenMs,
        double openScannedMib,
        double openScanMs,
        double cpuCores,
        double heapPeakMib,
        double allocBytesPerEntry,
        double entries,
        double measuredS,
        String note) {

    /** Prefix of a result line. */
    static final String PREFIX = "@@GROUPS ";
    /** The system column of the rows the {@code run} command makes of these results. */
    static final String SYSTEM = "groups";

    private static final int FIELDS = 27;

    /**
     * The result of a store that produced no figures.
     *
     * @param store the store's id.
     * @param workload the workload.
     * @param note why.
     * @return the result.
     */
    static GroupsResult failed(final String store, final GroupsWorkload workload, final String note) {
        final double nan = Double.NaN;
        return new GroupsResult(
                store,
                workload.groups(),
                workload.writers(),
                workload.entryBytes(),
                workload.entriesPerBatch(),
                workload.groupsPerBatch(),
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                "FAILED: " + note);
    }

    /** @return whether the store produced figures. */
    boolean measured() {
        return !Double.isNaN(entriesPerS);
    }

    /**
     * The result as the fields of a {@value #PREFIX} line.
     *
     * @return comma-separated fields, the note last with its line breaks removed.
     */
    String toLine() {
        final StringBuilder line = new StringBuilder();
        line.append(store)
                .append(',')
                .append(groups)
                .append(',')
                .append(writers)
                .append(',');
        line.append(entryBytes).append(',').append(entriesPerBatch).append(',').append(groupsPerBatch);
        for (final double value : new double[] {
            entriesPerS, batchesPerS, p50Us, p99Us, p999Us, maxUs, deviceBytesPerPayloadByte, heapBytesPerGroup,
            residentBytesPerGroup, jvmThreads, osThreads, openMs, reopenMs, openScannedMib, openScanMs, cpuCores,
            heapPeakMib, allocBytesPerEntry, entries, measuredS
        }) {
            line.append(',').append(Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.4f", value));
        }
        return line.append(',')
                .append(note.replace('\n', ' ').replace('\r', ' '))
                .toString();
    }

    /**
     * Reads the fields of a line {@link #toLine()} wrote.
     *
     * @param line the fields, without the prefix.
     * @return the result.
     * @throws IllegalArgumentException if the line has too few fields or a malformed number.
     */
    static GroupsResult fromLine(final String line) {
        final String[] f = line.split(",", FIELDS);
        if (f.length != FIELDS) {
            throw new IllegalArgumentException("a groups result has " + FIELDS + " fields, not " + f.length);
        }
        final double[] d = new double[FIELDS - 7];
        for (int i = 0; i < d.length; i++) {
            d[i] = f[6 + i].isEmpty() ? Double.NaN : Double.parseDouble(f[6 + i]);
        }
        return new GroupsResult(
                f[0],
                Integer.parseInt(f[1]),
                Integer.parseInt(f[2]),
                Integer.parseInt(f[3]),
                Integer.parseInt(f[4]),
                Integer.parseInt(f[5]),
                d[0],
                d[1],
                d[2],
                d[3],
                d[4],
                d[5],
                d[6],
                d[7],
                d[8],
                d[9],
                d[10],
                d[11],
                d[12],
                d[13],
                d[14],
                d[15],
                d[16],
                d[17],
                d[18],
                d[19],
                f[FIELDS - 1]);
    }

    /**
     * The row of {@code results.csv} and the report: system {@value #SYSTEM}, backend the store, variant
     * {@code n<groups>-e<entriesPerBatch>-g<groupsPerBatch>}, records = entries, latency per batch.
     *
     * @return the row.
     */
    ResultRow toRow() {
        final double nan = Double.NaN;
        return new ResultRow(
                SYSTEM,
                store,
                "SYNCED",
                writers,
                entryBytes,
                entriesPerS,
                entriesPerS * entryBytes / 1e6,
                p50Us,
                p99Us,
                p999Us,
                maxUs,
                nan,
                nan,
                heapPeakMib,
                variant(),
                0,
                cpuCores,
                allocBytesPerEntry,
                osThreads,
                measuredS,
                entries,
                measured() ? remark() : note);
    }

    /** @return {@code n<groups>-e<entriesPerBatch>-g<groupsPerBatch>}. */
    String variant() {
        return "n" + groups + "-e" + entriesPerBatch + "-g" + groupsPerBatch;
    }

    private String remark() {
        return String.format(
                        Locale.ROOT,
                        "latency per batch of %d entries over %d groups; %.0f batches/s; device %.2f B per payload B;"
                                + " heap %.0f B/group, resident %.0f B/group; %.0f threads; open %.1f ms, reopen %.1f"
                                + " ms",
                        entriesPerBatch,
                        groupsPerBatch,
                        batchesPerS,
                        deviceBytesPerPayloadByte,
                        heapBytesPerGroup,
                        residentBytesPerGroup,
                        osThreads,
                        openMs,
                        reopenMs)
                + (note.isEmpty() ? "" : "; " + note);
    }
}
