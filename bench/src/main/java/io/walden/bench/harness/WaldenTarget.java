package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.bench.BenchLogs;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Walden with the defaults a user gets (64 MiB segments, 8 MiB buffer, 1 s background sync) and the
 * scenario's backend and group window; each writer appends from its own direct buffer with {@code
 * append(buffer, 0, length, level)}, which returns when the record reached the level.
 *
 * <p><b>Threading:</b> as {@link Target}.
 */
final class WaldenTarget implements Target {
    /** Segments the {@link Systems#VARIANT_RETAINED} variant keeps. */
    static final int RETAINED_SEGMENTS = 4;

    private static final long RETENTION_PERIOD_MS = 5;

    private final Wal wal;
    private final Thread retention;
    private volatile boolean closing;
    private final Durability durability;
    private final int recordBytes;

    WaldenTarget(final Path directory, final Scenario scenario) {
        this.durability = Durability.valueOf(scenario.durability());
        this.recordBytes = scenario.recordBytes();
        this.wal = open(directory, scenario);
        if (Systems.VARIANT_RETAINED.equals(scenario.variant())) {
            final long maxTotalBytes = (long) RETAINED_SEGMENTS * WalConfig.SEGMENT_CAPACITY_BYTES_DEFAULT;
            retention = new Thread(
                    () -> {
                        while (!closing) {
                            wal.truncateToSize(maxTotalBytes, wal.writtenPosition());
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RETENTION_PERIOD_MS));
                        }
                    },
                    "walden-bench-retention");
            retention.setDaemon(true);
            retention.start();
        } else {
            retention = null;
        }
    }

    /**
     * Opens a log for a scenario.
     *
     * @param directory the log directory.
     * @param scenario backend and group window.
     * @return the log.
     */
    static Wal open(final Path directory, final Scenario scenario) {
        // System properties first (walden.*, for A/B runs of one setting), then the scenario's own.
        final WalConfig.Builder builder = WalConfig.builder(directory)
                .fromSystemProperties()
                .backend(BenchLogs.backend(scenario.backend()))
                .groupWindowNs(TimeUnit.MICROSECONDS.toNanos(scenario.groupWindowUs()));
        if (Systems.VARIANT_ONE_WRITE.equals(scenario.variant())) {
            builder.durableWritesInFlightMax(1);
        }
        return Wal.open(builder.build());
    }

    @Override
    public Appender appender(final int writerIndex) {
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(recordBytes));
        for (int i = 0; i < recordBytes; i++) {
            payload.putByte(i, (byte) (writerIndex + i));
        }
        return () -> wal.append(payload, 0, recordBytes, durability);
    }

    @Override
    public long syncs() {
        return wal.stats().syncs();
    }

    @Override
    public double recordsCoveredBySyncs() {
        final WalStats stats = wal.stats();
        return stats.recordsPerSyncMean() * stats.syncs();
    }

    @Override
    public void close() {
        closing = true;
        if (retention != null) {
            try {
                retention.join();
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        if (Boolean.getBoolean("walden.bench.printStats")) {
            System.err.println("@@STATS " + wal.stats());
        }
        wal.close();
    }
}
