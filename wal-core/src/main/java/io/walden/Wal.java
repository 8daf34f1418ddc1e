package io.walden;

import io.walden.codec.RecordCodec;
import io.walden.internal.DirectoryLock;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.LogOpening;
import io.walden.internal.WalMonitor;
import io.walden.internal.append.AppendPath;
import io.walden.internal.append.AppendWaits;
import io.walden.internal.append.BufferClaim;
import io.walden.internal.append.FramePublisher;
import io.walden.internal.append.RecordLimits;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.codec.RecordEncoding;
import io.walden.internal.read.ReaderOpening;
import io.walden.internal.recovery.LiveInspection;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.StatsCounters;
import io.walden.internal.truncation.OnlineTruncation;
import io.walden.internal.truncation.Retention;
import io.walden.internal.truncation.SuffixTruncation;
import io.walden.spi.FileSystemTypes;
import io.walden.spi.StorageBackend;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import javax.management.ObjectName;
import org.agrona.DirectBuffer;

/**
 * A durable, segmented, append-only log. Records are appended from any number of threads, each
 * append choosing its {@link Durability}; one I/O thread writes them to the storage backend and
 * shares syncs among concurrent appenders (group commit). Each record is identified by its LSN, its
 * byte position in the log, which is stable across restarts and truncation.
 *
 * <pre>{@code
 * try (Wal wal = Wal.open(WalConfig.builder(Path.of("/var/lib/app/wal")).build())) {
 *     long lsn = wal.append(bytes, Durability.SYNCED); // returns once fdatasync covers the record
 *     try (WalReader reader = wal.reader(lsn)) {
 *         reader.poll((buffer, offset, length, position) -> apply(buffer, offset, length), 100);
 *     }
 * }
 * }</pre>
 *
 * <p>Appending allocates nothing: {@code append} with any level, {@link #tryAppend} and {@link
 * #await} copy into the log buffer and wait without creating objects; an {@link AsyncAppender}
 * appends without waiting and acknowledges without allocating. {@link #appendAsync} allocates a future
 * per call.
 *
 * <p>Failure is fail-stop: after any failed write or sync the log acknowledges nothing more, every
 * waiter fails with the cause, and reopening runs recovery.
 *
 * <p><b>Threading:</b> thread-safe. {@code append}, {@code tryAppend}, {@code await}, {@code
 * sync}, the position getters and {@code stats} may be called from any number of threads at once;
 * {@code truncateBefore}, {@code truncateAfter} and {@code close} are serialised internally. Each
 * {@link WalReader} is for one thread.
 */
public final class Wal implements AutoCloseable {
    /** {@link #tryAppend} result: the log buffer is full; retry later. */
    public static final long BACK_PRESSURED = LogBuffer.BACK_PRESSURED;
    /** {@link #tryAppend} result: the log is closed. */
    public static final long CLOSED = LogBuffer.CLOSED;
    /** {@link #tryAppend} result: the log failed and accepts nothing more. */
    public static final long FAILED = AppendPath.FAILED;

    // Every field is final, set by the opening thread. The parts after the holder share it: the engine
    // (replaced by truncateAfter), whether the log is closed, and the close lock.
    private final WalConfig config;
    private final StatsCounters stats;
    private final RecoveryReport openReport;
    private final String backendName;
    private final String fileSystemType;
    private final EngineHolder holder;
    private final AppendPath appends;
    private final AppendWaits waits;
    private final AsyncFutures futures;
    private final OnlineTruncation truncation;
    private final Retention retention;
    private final ReaderOpening readers;
    private final WalMonitor monitor;
    // Null without compression.
    private final RecordEncoding encoding;

    private Wal(
            final WalConfig config,
            final DirectoryLock lock,
            final StorageBackend backend,
            final String fileSystemType,
            final StatsCounters stats,
            final LogEngine engine) {
        this.config = config;
        this.backendName = backend.name();
        this.fileSystemType = fileSystemType;
        this.stats = stats;
        this.openReport = engine.recovered().report();
        this.holder = new EngineHolder(config.directory(), lock, engine);
        this.waits = new AppendWaits(holder, config.appendTimeoutNs());
        final RecordLimits limits = new RecordLimits(config.maxRecordBytes());
        this.encoding =
                config.compression() == null ? null : new RecordEncoding(config.compression(), limits.maxFramedBytes());
        if (encoding != null) {
            stats.compressionTally(encoding);
        }
        this.appends = new AppendPath(
                holder,
                new BufferClaim(config.directory(), engine.state(), stats, config.appendTimeoutNs()),
                waits,
                limits,
                encoding);
        this.futures = new AsyncFutures(appends, engine.state());
        this.truncation = new OnlineTruncation(config, backend, holder, stats);
        this.retention = new Retention(holder);
        this.readers = new ReaderOpening(holder, config.maxRecordBytes(), CodecTable.readable(config.compression()));
        this.monitor = new WalMonitor(config.directory(), this::stats);
    }

    /**
     * Opens a log, creating it if the directory holds none, and runs recovery.
     *
     * @param config the configuration.
     * @return the open log.
     * @throws WalException if the directory is locked, the data is corrupt beyond what the recovery
     *     policy allows, the backend cannot start, or an I/O error occurs.
     */
    public static Wal open(final WalConfig config) {
        return open(config, FileSystemTypes::type);
    }

    /**
     * Discards every record after the one at {@code lsn} in a closed log, durably and crash-safely: a
     * Raft log dropping uncommitted entries after a leader change, or, with {@code lsn} = -1, a log
     * dropping every record before a snapshot is installed. The log must not be open (its lock is
     * taken); {@link #truncateAfter(long)} does the same to an open log.
     *
     * <p>A crash at any point leaves either the log as it was or the truncated log, never a mix
     * (FORMAT.md, "Suffix truncation"). Positions are never given out twice: the next record appended
     * goes to the segment after the one the log ended in, at the position this returns. Discarded
     * records are not kept as evidence. Recovery runs first, as at any open.
     *
     * @param config the log's configuration (its directory, backend and recovery policy).
     * @param lsn the LSN of the last record to keep (as {@code append} returned it), or -1 to keep
     *     none.
     * @return the position where the log continues: the LSN of the next record appended.
     * @throws WalException {@link WalException.ErrorCode#LOCKED} if the log is open; {@link
     *     WalException.ErrorCode#POSITION} if no record starts at {@code lsn} (nothing changed); {@link
     *     WalException.ErrorCode#IO} or {@link WalException.ErrorCode#STORAGE_SPACE} if an I/O
     *     operation fails (the next open recovers the old log or the truncated one); a {@link
     *     WalCorruptionException} if recovery refuses the log.
     */
    public static long truncateAfter(final WalConfig config, final long lsn) {
        return SuffixTruncation.truncateAfter(config, lsn);
    }

    /**
     * Discards every record after the one at {@code lsn} in this open log: the files change as {@link
     * #truncateAfter(WalConfig, long)} changes them, with the same guarantees. What others see, in order:
     *
     * <ul>
     *   <li><b>Appends and waits begun before this call</b> complete first: the log is drained and
     *       synced, so each returns normally (it did reach its level), and the records after {@code
     *       lsn} among them are discarded afterwards.
     *   <li><b>Appends made while this runs</b> wait (as for buffer space), then go after the
     *       continue position; {@link #tryAppend} returns {@link #BACK_PRESSURED} meanwhile.
     *   <li><b>Readers</b> that reach the cut go on at the continue position. A reader that had
     *       delivered a record after the cut throws {@link WalException.ErrorCode#POSITION} at its
     *       next poll (its application saw records that are gone); {@code seek} to the returned
     *       position to go on. Opening or seeking a reader at a discarded position is refused.
     * </ul>
     *
     * <p>This stops the log's I/O thread, truncates the files and starts the thread again: tens of
     * milliseconds, meant for rare events.
     *
     * @param lsn the LSN of the last record to keep (as {@code append} returned it), or -1 to keep none.
     * @return the position where the log continues: the next record appended goes there or after it.
     * @throws WalException {@link WalException.ErrorCode#POSITION} if no record starts at {@code lsn}
     *     (nothing discarded; the log goes on); {@link WalException.ErrorCode#CLOSED} if the log is
     *     closed or failed; {@link WalException.ErrorCode#IO} or {@link
     *     WalException.ErrorCode#STORAGE_SPACE} if an I/O operation fails: the log is then closed, and
     *     the next open recovers it either as it was or truncated.
     */
    public long truncateAfter(final long lsn) {
        return truncation.truncateAfter(lsn);
    }

    /**
     * Opens a read-only {@link WalView} of a log, which another process may be writing.
     *
     * @param directory the log directory.
     * @return the view; close it when done.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if the directory holds no log, or a
     *     {@link WalCorruptionException} if its oldest segment's header is damaged.
     */
    public static WalView openReadOnly(final Path directory) {
        return WalView.open(directory, List.of());
    }

    /**
     * Opens a read-only view, as {@link #openReadOnly(Path)}, whose readers can also decode records
     * stored with the given codecs (besides those found on the class path).
     *
     * @param directory the log directory.
     * @param codecs codecs for records the log stores encoded; one given here takes its id's place.
     * @return the view; close it when done.
     * @throws WalException as {@link #openReadOnly(Path)}.
     */
    public static WalView openReadOnly(final Path directory, final RecordCodec... codecs) {
        return WalView.open(directory, List.of(codecs));
    }

    /**
     * Inspects a log directory without changing anything or taking its lock (the log may be open in
     * another process), judging every header, frame and the log's end as opening would ({@link
     * RecoveryPolicy#FAIL}). A write in progress shows as a torn tail; corruption is reported only once
     * two inspections in a row find it at the same place.
     *
     * @param directory the log directory.
     * @return what opening the log would find and do.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if the directory holds no log, or
     *     ({@link WalException.ErrorCode#IO}) if it cannot be read.
     */
    public static LogInspection inspect(final Path directory) {
        return LiveInspection.inspect(directory);
    }

    /** Tests stand in for the mount table with {@code fileSystemTypes}. */
    static Wal open(final WalConfig config, final Function<Path, String> fileSystemTypes) {
        return LogOpening.open(config, fileSystemTypes, Wal::new);
    }

    /**
     * Appends a record and waits until it reaches a durability level.
     *
     * <p>Outcomes when this throws, told apart by {@link WalException#lsn()}:
     *
     * <ul>
     *   <li>{@link WalException#NO_LSN}: the record is <em>not</em> in the log. The log was closed or
     *       had failed ({@link WalException.ErrorCode#CLOSED}), the record is larger than {@link
     *       WalConfig#maxRecordBytes()} ({@link WalException.ErrorCode#CONFIG}), no buffer space freed up
     *       within the append timeout ({@link WalException.ErrorCode#BACK_PRESSURE_TIMEOUT}), or the thread
     *       was interrupted while it waited for space ({@link WalException.ErrorCode#INTERRUPTED}).
     *   <li>an LSN: the record <em>is</em> in the log at that position and its outcome is unknown. The
     *       thread was interrupted while it waited for the level ({@link
     *       WalException.ErrorCode#INTERRUPTED}; the record will be written unless the log fails:
     *       {@link #await(long, Durability)} tells when), or the log failed meanwhile ({@link
     *       WalException.ErrorCode#IO}, {@link WalException.ErrorCode#STORAGE_SPACE}; it may or may not
     *       be on disk: reopen and read).
     * </ul>
     *
     * @param payload the record.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException if the record could not be appended, or did not reach the level: see above.
     */
    public long append(final byte[] payload, final Durability durability) {
        RecordLimits.checkPayload(payload);
        return append(payload, 0, payload.length, durability);
    }

    /**
     * Appends part of an array as a record; as {@link #append(byte[], Durability)}.
     *
     * @param payload holds the record.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException as {@link #append(byte[], Durability)}.
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}; nothing is appended.
     */
    public long append(final byte[] payload, final int offset, final int length, final Durability durability) {
        // Checked before claiming: a claimed frame that is never published would stall the log.
        RecordLimits.checkPayload(payload);
        Objects.checkFromIndexSize(offset, length, payload.length);
        return appends.append(payload, offset, length, durability, FramePublisher.BYTES);
    }

    /**
     * Appends the remaining bytes of a buffer as a record, not changing its position and limit; as
     * {@link #append(byte[], Durability)}.
     *
     * @param payload the record, from position to limit.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException as {@link #append(byte[], Durability)}.
     */
    public long append(final ByteBuffer payload, final Durability durability) {
        RecordLimits.checkPayload(payload);
        return appends.append(payload, 0, payload.remaining(), durability, FramePublisher.BYTE_BUFFER);
    }

    /**
     * Appends part of an Agrona buffer as a record; as {@link #append(byte[], Durability)}.
     *
     * @param payload holds the record.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException as {@link #append(byte[], Durability)}.
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}; nothing is appended.
     */
    public long append(final DirectBuffer payload, final int offset, final int length, final Durability durability) {
        RecordLimits.checkPayload(payload);
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        return appends.append(payload, offset, length, durability, FramePublisher.DIRECT_BUFFER);
    }

    /**
     * Appends the records of a batch as one unit ({@link WalBatch} says what that guarantees), in
     * consecutive frames in the order they were added, and waits until the whole batch reaches a
     * durability level. Each record's LSN is then {@link WalBatch#lsn(int)}. Allocates nothing.
     * Outcomes when this throws are those of {@link #append(byte[], Durability)}, for the whole batch.
     *
     * @param batch the records, at least one; the frames of all of them together may take at most
     *     what a record of {@link WalConfig#maxRecordBytes()} takes ({@link WalBatch#framedBytes()}).
     * @param durability how far the whole batch must get before this returns.
     * @return the LSN of the batch's first record.
     * @throws WalException if the batch could not be appended, or did not reach the level.
     */
    public long append(final WalBatch batch, final Durability durability) {
        RecordLimits.checkBatchGiven(batch);
        final int framedBytes = appends.checkBatch(batch, durability);
        if (batch.size() == 1) {
            final long lsn = append(batch.payloads(), batch.offset(0), batch.length(0), durability);
            batch.appendedAt(lsn);
            return lsn;
        }
        return appends.appendBatch(batch, framedBytes, durability, BatchFrames.PLAIN, BatchFrames.ENCODED);
    }

    /**
     * Appends a record with {@link Durability#BUFFERED} if there is space now, without waiting.
     *
     * @param payload holds the record.
     * @param offset the record's first byte.
     * @param length the record's length.
     * @return the record's LSN, or {@link #BACK_PRESSURED}, {@link #CLOSED} or {@link #FAILED}.
     * @throws WalException if the record is larger than {@link WalConfig#maxRecordBytes()}.
     * @throws IndexOutOfBoundsException if the region lies outside {@code payload}; nothing is appended.
     */
    public long tryAppend(final DirectBuffer payload, final int offset, final int length) {
        RecordLimits.checkPayload(payload);
        return appends.tryAppend(payload, offset, length);
    }

    /**
     * Appends a record and returns a future completed with its LSN once it reaches a durability
     * level: the convenience path over an {@link AsyncAppender} shared by every caller. Allocates a
     * future per call. The future is completed on the log's I/O thread or on a thread that calls {@code
     * appendAsync}: attach callbacks with the {@code *Async} methods if they may block. While 16,384
     * futures are pending, a call waits for one to complete.
     *
     * @param payload the record.
     * @param durability the level that completes the future.
     * @return the future.
     * @throws WalException if the record cannot be appended at all.
     */
    public CompletableFuture<Long> appendAsync(final byte[] payload, final Durability durability) {
        RecordLimits.checkPayload(payload);
        RecordLimits.checkDurability(durability);
        return futures.append(payload, durability);
    }

    /**
     * Creates an appender that appends without waiting and acknowledges each record once it reaches its
     * level, allocating nothing per record: see {@link AsyncAppender}. For a producer that polls for its
     * acknowledgements without sleeping between turns.
     *
     * @param capacity the most acknowledgements that may be pending (16 bytes each, allocated now).
     * @return the appender, for one thread at a time.
     * @throws WalException if the log is closed or failed.
     * @throws IllegalArgumentException if {@code capacity} is outside [1, {@link AsyncAppender#CAPACITY_MAX}].
     */
    public AsyncAppender asyncAppender(final int capacity) {
        holder.checkOpen();
        return new AsyncAppender(appends, holder.state(), capacity, null);
    }

    /**
     * Creates an appender as {@link #asyncAppender(int)} does, with a ready signal that the log runs
     * once an acknowledgement the last poll left pending is due (see {@link AsyncAppender}: it runs on a
     * thread of the log and must only hand the poll to the producer's thread).
     *
     * @param capacity the most acknowledgements that may be pending (16 bytes each, allocated now).
     * @param readySignal run when a poll would deliver something.
     * @return the appender, for one thread at a time.
     * @throws WalException if the log is closed or failed.
     * @throws IllegalArgumentException if {@code capacity} is outside [1, {@link AsyncAppender#CAPACITY_MAX}].
     */
    public AsyncAppender asyncAppender(final int capacity, final Runnable readySignal) {
        Objects.requireNonNull(readySignal, "readySignal");
        holder.checkOpen();
        return new AsyncAppender(appends, holder.state(), capacity, readySignal);
    }

    /** The futures of {@link #appendAsync}, for the contract test that forces their owed poll. */
    AsyncFutures asyncFutures() {
        return futures;
    }

    /**
     * Waits until a record reaches a durability level. Allocates nothing.
     *
     * @param lsn the record's LSN, as returned by an append.
     * @param durability the level.
     * @throws WalException if the log fails or is closed before the record reaches the level.
     */
    public void await(final long lsn, final Durability durability) {
        waits.await(lsn, durability);
    }

    /**
     * Waits until a record reaches a durability level or the time runs out. Allocates nothing.
     *
     * @param lsn the record's LSN.
     * @param durability the level.
     * @param timeoutNs the most time to wait.
     * @return true if reached, false on timeout.
     * @throws WalException if the log fails or is closed before the record reaches the level.
     */
    public boolean await(final long lsn, final Durability durability, final long timeoutNs) {
        return waits.await(lsn, durability, timeoutNs);
    }

    /**
     * Makes every record appended before this call durable, and waits for it.
     *
     * @throws WalException if the log fails or is closed first.
     */
    public void sync() {
        waits.sync();
    }

    /** @return the position up to which records were written to the OS. */
    public long writtenPosition() {
        return holder.state().writtenPosition();
    }

    /** @return the position up to which records are durable. */
    public long durablePosition() {
        return holder.state().durablePosition();
    }

    /** @return where the next record will go, or just before it (a segment header may lie between). */
    public long tailPosition() {
        return holder.engine().logBuffer().tailPosition();
    }

    /** @return the first position the log still holds; readers cannot start before it. */
    public long startPosition() {
        return holder.state().startPosition();
    }

    /**
     * Opens a reader that sees durable records: {@link #reader(long, Durability)} with {@link
     * Durability#SYNCED}.
     *
     * @param fromLsn the first record to read, or {@link #startPosition()}.
     * @return the reader; close it when done.
     * @throws WalException if the position was truncated away or lies beyond the end of the log.
     */
    public WalReader reader(final long fromLsn) {
        return reader(fromLsn, Durability.SYNCED);
    }

    /**
     * Opens a reader, for one thread.
     *
     * @param fromLsn the first record to read, or {@link #startPosition()}.
     * @param visibility {@link Durability#SYNCED} to see durable records, {@link Durability#WRITTEN}
     *     to see written ones too.
     * @return the reader; close it when done.
     * @throws WalException if the position was truncated away or lies beyond the end of the log.
     */
    public WalReader reader(final long fromLsn, final Durability visibility) {
        return readers.open(fromLsn, visibility);
    }

    /**
     * Deletes, durably, every segment that lies entirely below a position; never the segment being
     * written. Readers positioned in deleted segments fail with a clear error when they need them.
     *
     * @param lsn records below this position may be deleted.
     * @return how many segments were deleted.
     * @throws WalException if the log is closed or failed, or a delete fails.
     */
    public long truncateBefore(final long lsn) {
        return retention.truncateBefore(lsn);
    }

    /**
     * Retention by size: deletes, durably and oldest first, whole segments until the log's segments
     * take at most a total size, counting each at its full capacity from the oldest to the one being
     * written (the next segment, prepared ahead of need, is one more); never a segment holding a record
     * at or after a protected position, and never the segment being written.
     *
     * @param maxTotalBytes the size the log's segments may take together; at least the segment being
     *     written is kept.
     * @param protectedLsn records at or after this position are kept; {@link Long#MAX_VALUE} to protect
     *     nothing beyond the size limit.
     * @return how many segments were deleted.
     * @throws WalException if an argument is negative ({@link WalException.ErrorCode#CONFIG}), the log
     *     is closed or failed, or a delete fails.
     */
    public long truncateToSize(final long maxTotalBytes, final long protectedLsn) {
        return retention.truncateToSize(maxTotalBytes, protectedLsn);
    }

    /**
     * Retention by age: deletes, durably and oldest first, every whole segment last written longer
     * ago than a duration (by the file's modification time), but never a segment holding a record at
     * or after a protected position, and never the segment being written; stops at the first segment
     * young enough.
     *
     * @param maxAge how long after its last write a segment may be kept.
     * @param protectedLsn records at or after this position are kept; {@link Long#MAX_VALUE} to
     *     protect nothing beyond the age limit.
     * @return how many segments were deleted.
     * @throws WalException if an argument is negative ({@link WalException.ErrorCode#CONFIG}), a
     *     segment's modification time cannot be read, the log is closed or failed, or a delete fails.
     */
    public long truncateOlderThan(final Duration maxAge, final long protectedLsn) {
        return retention.truncateOlderThan(maxAge, protectedLsn);
    }

    /** @return a snapshot of the log's counters. */
    public WalStats stats() {
        final LogEngine e = holder.engine();
        return stats.snapshot(backendName, holder.state(), e.logBuffer(), fileSystemType, e.durabilityNote());
    }

    /** @return what recovery found and did when this log was opened. */
    public RecoveryReport recoveryReport() {
        return openReport;
    }

    /** @return the configuration the log was opened with. */
    public WalConfig config() {
        return config;
    }

    /**
     * Drains every appended record, syncs, completes every waiter, stops the I/O thread and
     * releases the directory. Idempotent. Appends after close fail with {@link
     * WalException.ErrorCode#CLOSED}. Closing a log that failed returns normally: the failure was
     * already reported to every waiter and appender, and the next open runs recovery.
     *
     * @throws WalException {@link WalException.ErrorCode#STORAGE_SPACE} if the file system stayed full
     *     for {@code appendTimeoutNs} while records were left to write: closing gives up, the log is
     *     closed and released anyway, the message says which positions were not written (none was
     *     acknowledged as {@code WRITTEN} or {@code SYNCED}), and the next open recovers what was.
     */
    @Override
    public void close() {
        try {
            holder.close();
        } finally {
            if (encoding != null) {
                encoding.close();
            }
            synchronized (holder.closeLock()) {
                monitor.unregister();
            }
        }
    }

    /**
     * Registers this log's counters and positions with the platform MBean server as a {@link
     * WalMXBean}, under {@code io.walden:type=Wal,directory="<the log directory>"}; closing the log
     * unregisters it, and a second call returns the same name.
     *
     * @return the name it is registered under.
     * @throws WalException {@link WalException.ErrorCode#CLOSED} if the log is closed; {@link
     *     WalException.ErrorCode#CONFIG} if the name is taken.
     */
    public ObjectName registerMBean() {
        synchronized (holder.closeLock()) {
            holder.checkOpen();
            return monitor.register();
        }
    }
}
