package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.bench.BenchFiles;
import io.walden.codec.Compression;
import io.walden.codec.RecordCodec;
import io.walden.codecs.Codecs;
import io.walden.testkit.SampleRecords;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One run of a compression scenario in this JVM: writers append records of a kind (JSON-like, or
 * random and so incompressible) at a level for a time, with or without a codec; retention keeps the
 * log at a few segments. Prints {@value #RESULT_PREFIX} with records/s, the device bytes written per
 * payload byte ({@code /sys/class/block/<device>/stat}, an upper bound on a shared machine), what the
 * log's stats say compression did, and the process's processor time per record. Run the variants in
 * alternating fresh JVMs and compare the ratios of one round (docs/measurements).
 *
 * <p><b>Threading:</b> the writer threads append; the main thread applies retention.
 */
@Command(
        name = "compression",
        description = "Records/s and device bytes per payload byte with and without a codec (one variant per run).")
public final class CompressionCommand implements Callable<Integer> {
    /** Prefix of the result line. */
    public static final String RESULT_PREFIX = "@@COMPRESSION ";

    private static final int DISTINCT_RECORDS = 4096;

    @Option(names = "--dir", required = true, description = "directory for the log (emptied first)")
    Path dir;

    @Option(names = "--codec", defaultValue = "none", description = "none, lz4, zstd, lz4-java or zstd-java")
    String codec;

    @Option(names = "--threshold-bytes", defaultValue = "256", description = "smallest record compressed")
    int thresholdBytes;

    @Option(names = "--records", defaultValue = "json", description = "json (JSON-like) or random (incompressible)")
    String records;

    @Option(names = "--record-bytes", defaultValue = "1024", description = "about this many bytes per record")
    int recordBytes;

    @Option(names = "--writers", defaultValue = "1", description = "appending threads")
    int writers;

    @Option(names = "--durability", defaultValue = "WRITTEN", description = "BUFFERED, WRITTEN or SYNCED")
    Durability durability;

    @Option(names = "--seconds", defaultValue = "10", description = "how long the writers append")
    int seconds;

    @Option(names = "--segment-mib", defaultValue = "64", description = "segment capacity, MiB")
    int segmentMib;

    @Option(
            names = "--keep",
            description = "keep the log (for 'recovery --reuse --dir'), and no retention: it holds every record")
    boolean keep;

    @Override
    public Integer call() throws Exception {
        BenchFiles.deleteRecursively(dir);
        Files.createDirectories(dir);
        final BlockDevice device = BlockDevice.of(dir);
        final byte[][] payloads = payloads();
        final WalConfig.Builder builder =
                WalConfig.builder(dir).segmentCapacityBytes(segmentMib << 20).recycledSegmentsMax(2);
        final RecordCodec chosen = codec(codec);
        if (chosen != null) {
            builder.compression(Compression.with(chosen).thresholdBytes(thresholdBytes));
        }
        final AtomicLong appended = new AtomicLong();
        final AtomicLong payloadBytes = new AtomicLong();
        final long cpuBeforeNs = processCpuNs();
        final long deviceBefore = device.bytesWritten();
        final long startNs;
        final long elapsedNs;
        final String compressed;
        try (Wal wal = Wal.open(builder.build())) {
            final long stopAtNs = System.nanoTime() + seconds * 1_000_000_000L;
            final CyclicBarrier start = new CyclicBarrier(writers + 1);
            final Thread[] threads = new Thread[writers];
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                threads[w] = new Thread(
                        () -> {
                            try {
                                start.await();
                            } catch (final Exception ex) {
                                throw new IllegalStateException(ex);
                            }
                            long count = 0;
                            long bytes = 0;
                            for (int i = writer * 997; System.nanoTime() < stopAtNs; i++) {
                                final byte[] payload = payloads[i & (DISTINCT_RECORDS - 1)];
                                wal.append(payload, durability);
                                count++;
                                bytes += payload.length;
                            }
                            appended.addAndGet(count);
                            payloadBytes.addAndGet(bytes);
                        },
                        "compression-writer-" + w);
                threads[w].start();
            }
            start.await();
            startNs = System.nanoTime();
            final long keepBytes = 4L * (segmentMib << 20);
            for (final Thread thread : threads) {
                while (thread.isAlive()) {
                    if (!keep) {
                        wal.truncateToSize(keepBytes, wal.writtenPosition());
                    }
                    thread.join(5);
                }
            }
            elapsedNs = System.nanoTime() - startNs;
            wal.sync();
            final var stats = wal.stats();
            compressed = String.format(
                    Locale.ROOT,
                    "compressed-records=%d stored-per-input=%.3f",
                    stats.recordsCompressed(),
                    stats.compressionRatio());
        }
        BlockDevice.syncFileSystem(dir);
        final long deviceBytes = device.bytesWritten() - deviceBefore;
        final long cpuNs = processCpuNs() - cpuBeforeNs;
        System.out.println(RESULT_PREFIX
                + String.format(
                        Locale.ROOT,
                        "codec=%s records=%s record-bytes=%d writers=%d durability=%s appended=%d records-per-s=%.0f"
                                + " payload=%d device=%d device-per-payload=%.3f cpu-us-per-record=%.2f %s seconds=%.2f",
                        codec,
                        records,
                        recordBytes,
                        writers,
                        durability,
                        appended.get(),
                        appended.get() / (elapsedNs / 1e9),
                        payloadBytes.get(),
                        deviceBytes,
                        deviceBytes / (double) payloadBytes.get(),
                        cpuNs / 1e3 / appended.get(),
                        compressed,
                        elapsedNs / 1e9));
        if (!keep) {
            BenchFiles.deleteRecursively(dir);
        }
        return 0;
    }

    private static RecordCodec codec(final String name) {
        return switch (name) {
            case "none" -> null;
            case "lz4" -> Codecs.lz4();
            case "zstd" -> Codecs.zstd();
            case "lz4-java" -> Codecs.lz4PureJava();
            case "zstd-java" -> Codecs.zstdPureJava();
            default ->
                throw new IllegalArgumentException("--codec " + name + ": say none, lz4, zstd, lz4-java or zstd-java");
        };
    }

    private byte[][] payloads() {
        final SplittableRandom random = new SplittableRandom(42);
        final byte[][] payloads = new byte[DISTINCT_RECORDS][];
        for (int i = 0; i < DISTINCT_RECORDS; i++) {
            payloads[i] = switch (records) {
                case "json" -> SampleRecords.jsonLike(random, recordBytes);
                case "random" -> randomBytes(random, recordBytes);
                default -> throw new IllegalArgumentException("--records " + records + ": say json or random");
            };
        }
        return payloads;
    }

    private static byte[] randomBytes(final SplittableRandom random, final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }

    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
