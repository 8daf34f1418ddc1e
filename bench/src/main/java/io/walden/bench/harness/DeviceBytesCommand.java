package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.bench.BenchFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Bytes the storage device wrote per payload byte appended, with retention keeping the log at a fixed
 * size: writers append records at a durability level while the main thread calls {@code
 * truncateToSize} whenever the log grows past its bound; the device's written sectors ({@code
 * /sys/class/block/<device>/stat}, field 7, 512-byte units) are read before the log is opened and
 * after it is closed and the file system synced ({@code sync -f}), and its read sectors (field 3) beside
 * them: a partial-page write into a file page that is not cached reads the page first, which recycled
 * segments evicted from the page cache would cost ({@code --drop-cache-every-mib} evicts them). Every
 * other reader and writer of the device counts too, so the figures are upper bounds on a shared
 * machine: compare runs side by side.
 *
 * <p>Prints one line: {@value #RESULT_PREFIX} followed by the payload bytes, the device bytes written,
 * their ratio, the device bytes read and their ratio to those written, the cache drops, the segments
 * rolled and recycled, and the time.
 *
 * <p><b>Threading:</b> the writer threads append; the main thread applies retention.
 */
@Command(
        name = "device-bytes",
        description = "Device bytes written per payload byte, with retention keeping the log at a fixed size.")
public final class DeviceBytesCommand implements Callable<Integer> {
    /** Prefix of the result line. */
    public static final String RESULT_PREFIX = "@@DEVICE-BYTES ";

    @Option(names = "--dir", required = true, description = "directory for the log (emptied first)")
    Path dir;

    @Option(names = "--writers", defaultValue = "1", description = "appending threads")
    int writers;

    @Option(names = "--record-bytes", defaultValue = "4096", description = "payload bytes per record")
    int recordBytes;

    @Option(names = "--durability", defaultValue = "WRITTEN", description = "BUFFERED, WRITTEN or SYNCED")
    Durability durability;

    @Option(names = "--total-mib", defaultValue = "256", description = "payload to append, MiB")
    long totalMib;

    @Option(names = "--segment-mib", defaultValue = "8", description = "segment capacity, MiB")
    int segmentMib;

    @Option(names = "--keep-segments", defaultValue = "4", description = "retention bound, in segments")
    int keepSegments;

    @Option(
            names = "--recycled",
            defaultValue = "2",
            description = "recycledSegmentsMax (0: a new file for every segment)")
    int recycled;

    @Option(
            names = "--drop-cache-every-mib",
            defaultValue = "0",
            description = "drop the page cache each time this much payload was appended, and before the run"
                    + " (needs root; 0: never), as if memory pressure had evicted the segment files")
    long dropCacheEveryMib;

    @Option(
            names = "--device",
            description = "block device name under /sys/class/block (default: the one holding --dir)")
    String device;

    @Override
    public Integer call() throws Exception {
        BenchFiles.deleteRecursively(dir);
        Files.createDirectories(dir);
        final BlockDevice blockDevice = device != null ? new BlockDevice(device) : BlockDevice.of(dir);
        final long segmentBytes = (long) segmentMib << 20;
        final long totalBytes = totalMib << 20;
        final long perWriter = totalBytes / writers / recordBytes;
        final AtomicLong appended = new AtomicLong();
        if (dropCacheEveryMib > 0) {
            BlockDevice.dropPageCache();
        }
        final long deviceBytesBefore = blockDevice.bytesWritten();
        final long deviceReadBefore = blockDevice.bytesRead();
        int cacheDrops = 0;
        final long startNs = System.nanoTime();
        long rolled;
        long recycledSegments;
        try (Wal wal = Wal.open(WalConfig.builder(dir)
                .segmentCapacityBytes((int) segmentBytes)
                .recycledSegmentsMax(recycled)
                .build())) {
            final Thread[] threads = new Thread[writers];
            for (int w = 0; w < writers; w++) {
                threads[w] = new Thread(
                        () -> {
                            final byte[] payload = new byte[recordBytes];
                            for (long i = 0; i < perWriter; i++) {
                                payload[(int) (i % recordBytes)]++;
                                wal.append(payload, durability);
                                appended.addAndGet(recordBytes);
                            }
                        },
                        "device-bytes-writer-" + w);
                threads[w].start();
            }
            final long boundBytes = keepSegments * segmentBytes;
            final long dropEveryBytes = dropCacheEveryMib << 20;
            long nextDropBytes = dropEveryBytes;
            for (final Thread thread : threads) {
                while (thread.isAlive()) {
                    wal.truncateToSize(boundBytes, wal.writtenPosition());
                    if (dropEveryBytes > 0 && appended.get() >= nextDropBytes) {
                        BlockDevice.dropPageCache();
                        cacheDrops++;
                        nextDropBytes += dropEveryBytes;
                    }
                    thread.join(5);
                }
            }
            wal.truncateToSize(boundBytes, wal.writtenPosition());
            rolled = wal.stats().segmentsRolled();
            recycledSegments = wal.stats().segmentsRecycled();
        }
        BlockDevice.syncFileSystem(dir);
        final long elapsedNs = System.nanoTime() - startNs;
        final long deviceBytes = blockDevice.bytesWritten() - deviceBytesBefore;
        final long deviceReadBytes = blockDevice.bytesRead() - deviceReadBefore;
        final long payloadBytes = appended.get();
        System.out.println(RESULT_PREFIX
                + String.format(
                        Locale.ROOT,
                        "recycled-max=%d writers=%d record=%d durability=%s payload=%d device=%d ratio=%.3f"
                                + " read=%d read-per-written=%.4f cache-drops=%d rolled=%d recycled=%d seconds=%.2f"
                                + " device-name=%s",
                        recycled,
                        writers,
                        recordBytes,
                        durability,
                        payloadBytes,
                        deviceBytes,
                        (double) deviceBytes / payloadBytes,
                        deviceReadBytes,
                        (double) deviceReadBytes / deviceBytes,
                        cacheDrops,
                        rolled,
                        recycledSegments,
                        elapsedNs / 1e9,
                        blockDevice.name()));
        BenchFiles.deleteRecursively(dir);
        return 0;
    }
}
