package io.walden.internal.state;

import io.walden.WalStats;
import io.walden.spi.FileSystemTypes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters behind {@link WalStats}.
 *
 * <p><b>Threading:</b> one writer per field, as marked: the holder of the I/O duty, per batch rather
 * than per record, except back-pressure waits, which producers count on their slow path. Readers take
 * racy snapshots. Each {@code record*} method is the I/O duty holder's unless it says otherwise.
 */
public final class StatsCounters {
    private static final VarHandle APPENDS;
    private static final VarHandle APPEND_BYTES;
    private static final VarHandle WRITES;
    private static final VarHandle WRITE_BYTES;
    private static final VarHandle APPENDS_RUN_BY_CALLER;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            APPENDS = lookup.findVarHandle(StatsCounters.class, "appends", long.class);
            APPEND_BYTES = lookup.findVarHandle(StatsCounters.class, "appendBytes", long.class);
            WRITES = lookup.findVarHandle(StatsCounters.class, "writes", long.class);
            WRITE_BYTES = lookup.findVarHandle(StatsCounters.class, "writeBytes", long.class);
            APPENDS_RUN_BY_CALLER = lookup.findVarHandle(StatsCounters.class, "appendsRunByCaller", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    // Written by the holder of the I/O duty, once or twice per record, with release stores (a plain
    // volatile store is a full fence each; the duty's compare-and-set orders one holder's stores
    // before the next holder's); read by any thread.
    volatile long appends;
    volatile long appendBytes;
    private CompressionTally compression = CompressionTally.NONE;
    volatile long writes;
    volatile long writeBytes;
    volatile long appendsRunByCaller;

    // Written by the holder of the I/O duty only.
    volatile long syncs;
    volatile long syncRecordsTotal;
    volatile long syncRecordsMax;
    volatile long syncBytesTotal;
    volatile long syncBytesMax;
    volatile long syncLatencyNsTotal;
    volatile long syncLatencyNsMax;
    private volatile long segmentsRolled;
    private volatile long segmentsRecycled;
    private volatile long segmentsDeletedForSpace;
    private volatile long writesWaitedForSpace;
    private volatile long durabilityMarks;
    private volatile long pipelinePaddingBytes;
    private volatile int writesInFlightPeak;
    private volatile long writesBeside;

    // Recorded by the holder of the I/O duty, read by any thread.
    private final LatencyRecorder syncLatency = new LatencyRecorder();

    // Incremented by producers on the slow path.
    private final AtomicLong backPressureWaits = new AtomicLong();

    /** Producers, on their slow path. */
    public void recordBackPressureWait() {
        backPressureWaits.incrementAndGet();
    }

    public void recordScanned(final long appendsTotal, final long payloadBytes) {
        APPENDS.setRelease(this, appendsTotal);
        APPEND_BYTES.setRelease(this, (long) APPEND_BYTES.getOpaque(this) + payloadBytes);
    }

    /** A completed write, or part of one. */
    public void recordWrite(final long bytes) {
        WRITES.setRelease(this, (long) WRITES.getOpaque(this) + 1);
        WRITE_BYTES.setRelease(this, (long) WRITE_BYTES.getOpaque(this) + bytes);
    }

    /** An append whose I/O its own thread ran. */
    public void recordRunByCaller() {
        APPENDS_RUN_BY_CALLER.setRelease(this, (long) APPENDS_RUN_BY_CALLER.getOpaque(this) + 1);
    }

    public void recordSync(final long records, final long bytes, final long latencyNs) {
        syncs = syncs + 1;
        syncRecordsTotal = syncRecordsTotal + records;
        syncBytesTotal = syncBytesTotal + bytes;
        syncLatencyNsTotal = syncLatencyNsTotal + latencyNs;
        if (records > syncRecordsMax) {
            syncRecordsMax = records;
        }
        if (bytes > syncBytesMax) {
            syncBytesMax = bytes;
        }
        if (latencyNs > syncLatencyNsMax) {
            syncLatencyNsMax = latencyNs;
        }
        syncLatency.record(latencyNs);
    }

    /** A write that was durable itself (O_DSYNC): that mode's sync. */
    public void recordDurableWrite(final long latencyNs) {
        syncLatency.record(latencyNs);
    }

    /** Set once, by the opening thread, before the log is shared. */
    public void compressionTally(final CompressionTally tally) {
        this.compression = tally;
    }

    public WalStats snapshot(
            final String backend,
            final LogState positions,
            final LogBuffer logBuffer,
            final String fileSystemType,
            final String durabilityNote) {
        final long syncCount = syncs;
        final Throwable failure = positions.failure();
        // Durable, then written, then tail: each read no earlier than the one it must not pass.
        final long durablePosition = positions.durablePosition();
        final long writtenPosition = positions.writtenPosition();
        final long tailPosition = logBuffer.tailPosition();
        final double divisor = Math.max(1, syncCount);
        return new WalStats(
                backend,
                appends,
                appendBytes,
                writes,
                writeBytes,
                syncCount,
                syncRecordsTotal / divisor,
                syncRecordsMax,
                syncBytesTotal / divisor,
                syncBytesMax,
                syncLatencyNsTotal / divisor,
                syncLatencyNsMax,
                syncLatency.snapshot(),
                backPressureWaits.get(),
                segmentsRolled,
                segmentsRecycled,
                segmentsDeletedForSpace,
                writesWaitedForSpace,
                durabilityMarks,
                appendsRunByCaller,
                writesInFlightPeak,
                writesBeside,
                pipelinePaddingBytes,
                logBuffer.capacityBytes(),
                positions.startPosition(),
                tailPosition,
                writtenPosition,
                durablePosition,
                failure != null,
                failure == null ? null : failure.toString(),
                fileSystemType,
                FileSystemTypes.survivesPowerLoss(fileSystemType),
                durabilityNote,
                compression.recordsCompressed(),
                compression.compressedInputBytes(),
                compression.compressedStoredBytes());
    }

    public void recordSegmentRolled() {
        segmentsRolled = segmentsRolled + 1;
    }

    public void recordSegmentRecycled() {
        segmentsRecycled = segmentsRecycled + 1;
    }

    /** Retention deleted a freed segment that recycling would have kept, because space was short. */
    public void recordSegmentDeletedForSpace() {
        segmentsDeletedForSpace = segmentsDeletedForSpace + 1;
    }

    /** A write to the active segment failed with ENOSPC and waits to be written again. Duty holder. */
    public void recordWriteNoSpace() {
        writesWaitedForSpace = writesWaitedForSpace + 1;
    }

    /** See {@link WalStats#segmentsDeletedForSpace()}. Any thread. */
    public long segmentsDeletedForSpace() {
        return segmentsDeletedForSpace;
    }

    /** A group was ended on a block boundary with padding, so that the next could go beside it. */
    public void recordPipelinePadding(final int bytes) {
        pipelinePaddingBytes = pipelinePaddingBytes + bytes;
    }

    /** A write was submitted with {@code count} in flight, itself included. */
    public void recordWritesInFlight(final int count) {
        if (count > writesInFlightPeak) {
            writesInFlightPeak = count;
        }
        if (count > 1) {
            writesBeside = writesBeside + 1;
        }
    }

    public void recordDurabilityMark() {
        durabilityMarks = durabilityMarks + 1;
    }

    /** Any thread; racy (so is {@link #appendBytesTotal}). */
    public long appendsTotal() {
        return appends;
    }

    public long appendBytesTotal() {
        return appendBytes;
    }
}
