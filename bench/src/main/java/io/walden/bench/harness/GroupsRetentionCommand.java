package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.bench.BenchFiles;
import io.walden.bench.BenchLogs;
import io.walden.groups.GroupBatch;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.PurgeReport;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Space under a steady load on a group log: most groups keep their last {@code --keep-entries} entries
 * (each batch truncates their prefix in the same atomic batch), a share of them ({@code
 * --laggard-percent}) never truncates, and a purge runs every {@code --purge-interval-ms}. Samples the
 * directory's bytes against the live entries' bytes, and what purge relocated against the payload
 * appended: the two figures of the bar (disk at most the live data plus 4 segments, relocation at
 * most 10% of payload bytes).
 *
 * <p><b>Threading:</b> the main thread samples and purges; writer threads append.
 */
@Command(
        name = "groups-retention",
        mixinStandardHelpOptions = true,
        description = "A group log's disk and relocation under steady truncation with groups that never truncate.")
public final class GroupsRetentionCommand implements Callable<Integer> {
    @Option(names = "--groups", defaultValue = "1000", description = "groups (default 1000)")
    int groups;

    @Option(names = "--laggard-percent", defaultValue = "1", description = "groups that never truncate (default 1)")
    double laggardPercent;

    @Option(names = "--keep-entries", defaultValue = "100", description = "entries the others keep (default 100)")
    int keepEntries;

    @Option(names = "--writers", defaultValue = "4", description = "writer threads (default 4)")
    int writers;

    @Option(names = "--entry-bytes", defaultValue = "1024", description = "bytes per entry (default 1024)")
    int entryBytes;

    @Option(names = "--entries-per-batch", defaultValue = "10", description = "entries per batch (default 10)")
    int entriesPerBatch;

    @Option(names = "--seconds", defaultValue = "600", description = "run time (default 600)")
    int seconds;

    @Option(names = "--purge-interval-ms", defaultValue = "1000", description = "between purges (default 1000)")
    long purgeIntervalMs;

    @Option(names = "--sample-seconds", defaultValue = "30", description = "between printed samples (default 30)")
    int sampleSeconds;

    @Option(names = "--segment-mib", defaultValue = "64", description = "segment size (default 64)")
    int segmentMib;

    @Option(names = "--relocate-after-rounds", defaultValue = "3", description = "purge rounds (default 3)")
    int relocateAfterRounds;

    @Option(
            names = "--recycled-segments",
            defaultValue = "2",
            description = "freed segments the main log keeps for reuse (WalConfig.recycledSegmentsMax, default 2)")
    int recycledSegments;

    @Option(names = "--backend", defaultValue = "nio", description = "nio or uring (default nio)")
    String backend;

    @Option(names = "--dir", description = "where the log goes (default: a temporary directory, deleted)")
    Path dir;

    /** Creates the command; picocli fills the options. */
    public GroupsRetentionCommand() {}

    @Override
    public Integer call() throws Exception {
        final Path directory = dir != null ? dir : Files.createTempDirectory("groups-retention");
        final long segmentBytes = (long) segmentMib << 20;
        final int laggards = (int) Math.round(groups * laggardPercent / 100.0);
        System.out.printf(
                Locale.ROOT,
                "groups-retention: %,d groups (%d never truncate, the others keep %d entries), %d writers, batches of %d"
                        + " entries of %,d B, SYNCED; purge every %d ms, relocate after %d rounds; segments %d MiB;"
                        + " %d s in %s%n",
                groups,
                laggards,
                keepEntries,
                writers,
                entriesPerBatch,
                entryBytes,
                purgeIntervalMs,
                relocateAfterRounds,
                segmentMib,
                seconds,
                directory);
        final WalConfig walConfig = WalConfig.builder(directory)
                .backend(BenchLogs.backend(backend))
                .segmentCapacityBytes((int) segmentBytes)
                .recycledSegmentsMax(recycledSegments)
                .build();
        final Counters counters = new Counters(groups);
        try (GroupLog log = GroupLog.open(GroupLogConfig.builder(walConfig)
                .relocateAfterRounds(relocateAfterRounds)
                .build())) {
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread[] threads = new Thread[writers];
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                threads[w] = new Thread(() -> write(log, writer, laggards, counters, running), "writer-" + w);
                threads[w].start();
            }
            sampleAndPurge(log, directory, segmentBytes, counters);
            running.set(false);
            for (final Thread thread : threads) {
                thread.join();
            }
        } finally {
            if (dir == null) {
                BenchFiles.deleteRecursively(directory);
            }
        }
        return 0;
    }

    private void sampleAndPurge(final GroupLog log, final Path directory, final long segmentBytes, final Counters c)
            throws IOException, InterruptedException {
        final long startNs = System.nanoTime();
        final long endNs = startNs + TimeUnit.SECONDS.toNanos(seconds);
        long nextSampleNs = startNs + TimeUnit.SECONDS.toNanos(sampleSeconds);
        long relocatedBytes = 0;
        double worstSegmentsOver = 0;
        System.out.println("      s   payload MiB      live MiB      disk MiB  disk-live (segments)  relocated MiB"
                + "  relocated/payload");
        while (System.nanoTime() < endNs) {
            Thread.sleep(purgeIntervalMs);
            final PurgeReport report = log.purge();
            relocatedBytes += report.relocatedBytes();
            final long live = c.liveEntries() * entryBytes;
            final long disk = directoryBytes(directory);
            worstSegmentsOver = Math.max(worstSegmentsOver, (disk - live) / (double) segmentBytes);
            if (System.nanoTime() >= nextSampleNs) {
                nextSampleNs += TimeUnit.SECONDS.toNanos(sampleSeconds);
                System.out.printf(
                        Locale.ROOT,
                        "%7d %13.1f %13.1f %13.1f %21.2f %14.1f %18.3f%n",
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs),
                        c.payloadBytes.get() / 1048576.0,
                        live / 1048576.0,
                        disk / 1048576.0,
                        (disk - live) / (double) segmentBytes,
                        relocatedBytes / 1048576.0,
                        relocatedBytes / (double) Math.max(1, c.payloadBytes.get()));
            }
        }
        System.out.printf(
                Locale.ROOT,
                "@@GROUPS-RETENTION payloadBytes=%d relocatedBytes=%d relocatedPerPayload=%.4f worstDiskOverLiveSegments=%.2f"
                        + " entriesPerSecond=%.0f%n",
                c.payloadBytes.get(),
                relocatedBytes,
                relocatedBytes / (double) Math.max(1, c.payloadBytes.get()),
                worstSegmentsOver,
                c.payloadBytes.get() / (double) entryBytes / seconds);
    }

    private void write(
            final GroupLog log, final int writer, final int laggards, final Counters c, final AtomicBoolean running) {
        final Random random = new Random(writer);
        final GroupBatch batch = new GroupBatch();
        final byte[] entry = new byte[entryBytes];
        random.nextBytes(entry);
        final int owned = (groups - writer + writers - 1) / writers;
        while (running.get()) {
            batch.clear();
            for (int i = 0; i < entriesPerBatch; i++) {
                final int g = writer + writers * random.nextInt(owned);
                final long index = ++c.last[g];
                batch.add(g, index, entry);
                if (g >= laggards && index - c.first[g] + 1 > keepEntries) {
                    c.first[g] = index - keepEntries + 1;
                    batch.truncatePrefix(g, c.first[g]);
                }
            }
            log.append(batch, Durability.SYNCED);
            c.payloadBytes.addAndGet((long) entriesPerBatch * entryBytes);
        }
    }

    /** The bytes of the files in the directory and its subdirectories; files deleted meanwhile count 0. */
    private static long directoryBytes(final Path directory) throws IOException {
        long bytes = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (final Path entry : entries) {
                try {
                    bytes += Files.isDirectory(entry) ? directoryBytes(entry) : Files.size(entry);
                } catch (final NoSuchFileException gone) {
                    // Deleted by a purge while listed.
                }
            }
        }
        return bytes;
    }

    /** Per group bounds, written by the writer that owns the group; read racily by the sampler. */
    private static final class Counters {
        final long[] first;
        final long[] last;
        final AtomicLong payloadBytes = new AtomicLong();

        Counters(final int groups) {
            first = new long[groups];
            last = new long[groups];
            java.util.Arrays.fill(first, 1);
        }

        long liveEntries() {
            long live = 0;
            for (int g = 0; g < first.length; g++) {
                live += Math.max(0, last[g] - first[g] + 1);
            }
            return live;
        }
    }
}
