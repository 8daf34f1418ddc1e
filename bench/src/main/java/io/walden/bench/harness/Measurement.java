package io.walden.bench.harness;

import org.HdrHistogram.Histogram;

/**
 * What a driver measured in one scenario: acknowledged records, their latencies, resource readings
 * and syncs, turned into a {@link ResultRow} by {@link #toRow}.
 *
 * @param records acknowledged records in the measured interval.
 * @param latencyNs append-to-acknowledgement latencies, nanoseconds.
 * @param reading the process's resource readings.
 * @param syncs syncs in the interval, or -1 if unknown.
 * @param recordsPerSync records per sync, or NaN to derive it from records and syncs.
 * @param failures writers that stopped on an exception.
 * @param firstFailure the first such exception's description, or empty.
 */
record Measurement(
        long records,
        Histogram latencyNs,
        Probe.Reading reading,
        long syncs,
        double recordsPerSync,
        int failures,
        String firstFailure) {

    /** Most latency a histogram records, 60 s; larger values are clamped to it. */
    static final long HIGHEST_TRACKABLE_NS = 60_000_000_000L;
    /** Histogram precision: two significant digits, latencies within 1 %. */
    static final int SIGNIFICANT_DIGITS = 2;

    /**
     * A histogram as the drivers use.
     *
     * @return a new histogram.
     */
    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_TRACKABLE_NS, SIGNIFICANT_DIGITS);
    }

    /**
     * The row for a scenario.
     *
     * @param scenario the scenario.
     * @return the row.
     */
    ResultRow toRow(final Scenario scenario) {
        final double seconds = reading.seconds();
        final boolean any = latencyNs.getTotalCount() > 0;
        final double nan = Double.NaN;
        final double perSync =
                !Double.isNaN(recordsPerSync) ? recordsPerSync : syncs > 0 ? records / (double) syncs : nan;
        final String note = failures == 0 ? "" : failures + " writer(s) failed: " + firstFailure;
        return new ResultRow(
                scenario.system(),
                scenario.backend(),
                scenario.durability(),
                scenario.writers(),
                scenario.recordBytes(),
                records / seconds,
                records * (double) scenario.recordBytes() / seconds / 1e6,
                any ? latencyNs.getValueAtPercentile(50) / 1e3 : nan,
                any ? latencyNs.getValueAtPercentile(99) / 1e3 : nan,
                any ? latencyNs.getValueAtPercentile(99.9) / 1e3 : nan,
                any ? latencyNs.getMaxValue() / 1e3 : nan,
                syncs < 0 ? nan : syncs / seconds,
                perSync,
                reading.heapPeakBytes() / (1024.0 * 1024.0),
                scenario.variant(),
                scenario.groupWindowUs(),
                reading.cpuSeconds() / seconds,
                records == 0 ? nan : reading.allocatedBytes() / (double) records,
                reading.peakThreads(),
                seconds,
                records,
                note);
    }
}
