package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The recovery scan rate: builds a log of {@code logMib} MiB of records (appended {@code BUFFERED},
 * synced once), closes it, and reopens it {@value #RUNS} times after one untimed reopen that warms
 * the page cache and the JIT; the rate is the median of {@code bytesScanned / duration} from each
 * {@link RecoveryReport}. Each reopen's duration goes to the histogram (as the "latency").
 *
 * <p><b>Threading:</b> runs on the calling thread.
 */
final class RecoveryProbe {
    private static final int RUNS = 5;

    private RecoveryProbe() {}

    /**
     * Builds, closes and reopens a log.
     *
     * @param directory an empty directory for the log.
     * @param scenario backend and record size.
     * @param logMib size of the log to build.
     * @return the row.
     */
    static ResultRow run(final Path directory, final Scenario scenario, final long logMib) {
        final long targetBytes = logMib * 1024 * 1024;
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(scenario.recordBytes()));
        try (Wal wal = WaldenTarget.open(directory, scenario)) {
            while (wal.tailPosition() < targetBytes) {
                wal.append(payload, 0, payload.capacity(), Durability.BUFFERED);
            }
            wal.sync();
        }
        try (Wal wal = WaldenTarget.open(directory, scenario)) {
            wal.recoveryReport();
        }
        final double[] mbPerS = new double[RUNS];
        final Histogram durations = Measurement.newHistogram();
        long bytes = 0;
        long records = 0;
        double seconds = 0;
        for (int run = 0; run < RUNS; run++) {
            try (Wal wal = WaldenTarget.open(directory, scenario)) {
                final RecoveryReport report = wal.recoveryReport();
                mbPerS[run] = report.bytesScanned() / (report.durationNs() / 1e9) / 1e6;
                durations.recordValue(report.durationNs());
                bytes = report.bytesScanned();
                records = report.records();
                seconds += report.durationNs() / 1e9;
            }
        }
        Arrays.sort(mbPerS);
        final double medianMbPerS = mbPerS[RUNS / 2];
        final double nan = Double.NaN;
        return new ResultRow(
                scenario.system(),
                scenario.backend(),
                scenario.durability(),
                scenario.writers(),
                scenario.recordBytes(),
                medianMbPerS * 1e6 / bytes * records,
                medianMbPerS,
                durations.getValueAtPercentile(50) / 1e3,
                nan,
                nan,
                durations.getMaxValue() / 1e3,
                nan,
                nan,
                nan,
                scenario.variant(),
                0,
                nan,
                nan,
                nan,
                seconds,
                records,
                String.format(
                        java.util.Locale.ROOT,
                        "median of %d reopens of a %d MiB log; latency columns are whole reopen scans",
                        RUNS,
                        logMib));
    }
}
