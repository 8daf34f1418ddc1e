package io.walden.bench;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Times recovery: builds a log of about 1 GiB once (4 KiB records, {@code WRITTEN}), closes it, then
 * reopens it several times. Each reopen validates every frame of every segment; with the files in
 * the page cache this measures the scan, not the disk. Reports each run and the median, both as the
 * recovery report's own scan rate (bytes scanned / recovery duration) and as the wall time of {@code
 * Wal.open}.
 *
 * <p>The first reopen is a warm-up and is not counted. Each reopen also starts preparing the next
 * segment in the background, which the immediate close abandons; the next recovery deletes that
 * temporary file (one directory sync), and that is part of what is timed.
 *
 * <p><b>Threading:</b> runs on the main thread.
 */
final class RecoveryScan {
    private static final List<String> VALUE_OPTIONS = List.of("dir", "size-mib", "record-bytes", "runs");
    private static final List<String> FLAG_OPTIONS = List.of("keep", "reuse");
    private static final double TARGET_GB_PER_SECOND = 1.0;

    private RecoveryScan() {}

    /**
     * Runs the measurement.
     *
     * @param arguments the options.
     * @return 0 when done (the rate is reported, not judged), 1 if the log was not as expected.
     */
    static int run(final String[] arguments) {
        final Args args = Args.parse("recovery", arguments, VALUE_OPTIONS, FLAG_OPTIONS);
        final long sizeBytes = args.number("size-mib", 1024) * 1024 * 1024;
        final int recordBytes = args.integer("record-bytes", 4096);
        final int runs = Math.max(1, args.integer("runs", 7));
        final String dirOption = args.string("dir", null);
        final Path directory = dirOption != null ? Path.of(dirOption) : BenchFiles.freshDirectory("walden-recovery-");
        final WalConfig config = WalConfig.builder(directory).build();
        try {
            if (args.flag("reuse") && hasSegments(directory)) {
                System.out.println("reusing the log in " + directory);
            } else {
                create(config, sizeBytes, recordBytes);
            }
            return measure(config, runs);
        } finally {
            if (args.flag("keep")) {
                System.out.println("kept the log in " + directory + " (reuse it with --dir " + directory + " --reuse)");
            } else {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    private static void create(final WalConfig config, final long sizeBytes, final int recordBytes) {
        System.out.printf(
                "creating a %s log of %d-byte WRITTEN records in %s%n",
                BenchFiles.mib(sizeBytes), recordBytes, config.directory());
        final byte[] payload = new byte[recordBytes];
        for (int i = 0; i < recordBytes; i++) {
            payload[i] = (byte) (i * 31 + 7);
        }
        final long startNs = System.nanoTime();
        long records = 0;
        try (Wal wal = Wal.open(config)) {
            final long segmentMask = config.segmentCapacityBytes() - 1L;
            // Never end on a segment boundary: reopening would then prepare a new segment in the scan.
            while (wal.tailPosition() < sizeBytes
                    || (wal.tailPosition() & segmentMask) <= SegmentHeaderDescriptor.HEADER_LENGTH) {
                wal.append(payload, Durability.WRITTEN);
                records++;
            }
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf(
                "created %,d records in %.1f s (%.0f MB/s, close included)%n",
                records, seconds, (double) records * recordBytes / seconds / 1e6);
    }

    private static int measure(final WalConfig config, final int runs) {
        final double[] scanGbPerSecond = new double[runs];
        final double[] openMs = new double[runs];
        RecoveryReport last = null;
        for (int run = -1; run < runs; run++) {
            final long startNs = System.nanoTime();
            final RecoveryReport report;
            try (Wal wal = Wal.open(config)) {
                final long openNs = System.nanoTime() - startNs;
                report = wal.recoveryReport();
                if (report.newLog()) {
                    System.out.println("FAILED: the directory held no log: " + report.summary());
                    return 1;
                }
                if (run < 0) {
                    System.out.println("warm-up: " + report.summary());
                    continue;
                }
                scanGbPerSecond[run] = (double) report.bytesScanned() / report.durationNs();
                openMs[run] = openNs / 1e6;
            }
            System.out.printf(
                    "run %d: scanned %,d bytes (%,d records, %d segments) in %.1f ms = %.2f GB/s; Wal.open took"
                            + " %.1f ms%n",
                    run + 1,
                    report.bytesScanned(),
                    report.records(),
                    report.segments(),
                    report.durationNs() / 1e6,
                    scanGbPerSecond[run],
                    openMs[run]);
            last = report;
        }
        System.out.println("last: " + last.summary());
        final double medianGbPerSecond = median(scanGbPerSecond);
        System.out.printf(
                "recovery scan from page cache: median %.2f GB/s over %d runs (bar: >= %.1f GB/s);"
                        + " median Wal.open %.1f ms%n",
                medianGbPerSecond, runs, TARGET_GB_PER_SECOND, median(openMs));
        return 0;
    }

    private static double median(final double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static boolean hasSegments(final Path directory) {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.anyMatch(
                    path -> SegmentNames.parseSegmentName(path.getFileName().toString()) >= 0);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
