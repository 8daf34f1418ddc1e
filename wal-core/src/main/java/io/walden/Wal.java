package io.walden;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.BackendSelector;
import io.walden.internal.DirectoryLock;
import io.walden.internal.FileSystemCheck;
import io.walden.internal.IoErrors;
import io.walden.internal.LiveInspection;
import io.walden.internal.LogBuffer;
import io.walden.internal.LogDirectories;
import io.walden.internal.LogEngine;
import io.walden.internal.LogReader;
import io.walden.internal.LogState;
import io.walden.internal.NoSpace;
import io.walden.internal.RecoveredLog;
import io.walden.internal.RetentionRule;
import io.walden.internal.StatsCounters;
import io.walden.internal.SuffixTruncation;
import io.walden.internal.events.BackPressureEvent;
import io.walden.internal.io.IoAgent;
import io.walden.internal.io.TruncateRequest;
import io.walden.spi.StorageBackend;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
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
 * #await} copy into the log buffer and wait without creating objects. {@link #appendAsync} allocates
 * a future per call and completes it on the I/O thread.
 *
 * <p>Failure is fail-stop: after any failed write or sync the log acknowledges nothing more, every
 * waiter fails with the cause, and reopening runs recovery.
 *
 * <p><b>Threading:</b> thread-safe. {@code append}, {@code tryAppend}, {@code await}, {@code
 * sync}, the position getters and {@code stats} may be called from any number of threads at once;
 * {@code truncateBefore}, {@code truncateAfter} and {@code close} are serialised internally. Each {@link WalReader} is for
 * one thread.
 */
public final class Wal implements AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(Wal.class.getName());
    /** {@link #tryAppend} result: the log buffer is full; retry later. */
    public static final long BACK_PRESSURED = LogBuffer.BACK_PRESSURED;
    /** {@link #tryAppend} result: the log is closed. */
    public static final long CLOSED = LogBuffer.CLOSED;
    /** {@link #tryAppend} result: the log failed and accepts nothing more. */
    public static final long FAILED = -3;

    /** Claim result inside this class: the engine was replaced by truncateAfter; claim again. */
    private static final long REPLACED = -4;

    private final WalConfig config;
    private final DirectoryLock lock;
    private final StorageBackend backend;
    private final LogState state;
    private final StatsCounters stats;
    private final RecoveryReport openReport;
    private final String backendName;
    private final String fileSystemType;
    private final int maxRecordBytes;
    private final long appendTimeoutNs;
    private final Object closeLock = new Object();
    private static final long TRUNCATE_POLL_NS = 50_000;
    private static final long NO_FRAME_END = -1;
    // Replaced only by truncateAfter, under closeLock; read by every method.
    private volatile LogEngine engine;
    private volatile boolean closed;

    private Wal(
            final WalConfig config,
            final DirectoryLock lock,
            final StorageBackend backend,
            final String fileSystemType,
            final StatsCounters stats,
            final LogEngine engine) {
        this.config = config;
        this.lock = lock;
        this.backend = backend;
        this.backendName = backend.name();
        this.fileSystemType = fileSystemType;
        this.stats = stats;
        this.engine = engine;
        this.state = engine.state();
        this.openReport = engine.recovered().report();
        this.maxRecordBytes = config.maxRecordBytes();
        this.appendTimeoutNs = config.appendTimeoutNs();
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
        return open(config, FileSystemCheck::type);
    }

    /**
     * Discards every record after the one at {@code lsn} in a closed log, durably and crash-safely: a
     * Raft log dropping uncommitted entries after a leader change, or, with {@code lsn} = -1, a log
     * dropping every record before a snapshot is installed. The log must not be open (its lock is
     * taken); open it again afterwards. {@link #truncateAfter(long)} does the same to an open log.
     *
     * <p>A crash at any point leaves either the log as it was or the truncated log, never a mix: the
     * truncation is first recorded durably in the directory (FORMAT.md, "Suffix truncation"), and the
     * next open completes a recorded one before anything else. Positions are never given out twice:
     * the next record appended goes to the segment after the one the log ended in, at the position
     * this returns, not at the cut. Discarded records are not kept as evidence. Recovery runs first, as at
     * any open, with the configuration's recovery policy.
     *
     * @param config the log's configuration (its directory, backend and recovery policy).
     * @param lsn the LSN of the last record to keep (as {@code append} returned it), or -1 to keep none.
     * @return the position where the log continues: the LSN of the next record appended.
     * @throws WalException {@link WalException.ErrorCode#LOCKED} if the log is open;
     *     {@link WalException.ErrorCode#POSITION} if no record starts at {@code lsn} (nothing changed);
     *     {@link WalException.ErrorCode#IO} or {@link WalException.ErrorCode#STORAGE_SPACE} if an I/O
     *     operation fails (the next open recovers the old log or the truncated one); a {@link
     *     WalCorruptionException} if recovery refuses the log.
     */
    public static long truncateAfter(final WalConfig config, final long lsn) {
        return SuffixTruncation.truncateAfter(config, lsn);
    }

    /**
     * Discards every record after the one at {@code lsn} in this open log, durably and crash-safely,
     * and returns the position where the log continues: a Raft log dropping uncommitted entries after
     * a leader change, or, with {@code lsn} = -1, dropping every record before a snapshot is installed.
     * The files change exactly as {@link #truncateAfter(WalConfig, long)} changes them, so a crash at
     * any point leaves the log either as it was or truncated, never a mix.
     *
     * <p>What others see, in order:
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
     * <p>Positions are never given out twice: the log continues in the segment after the one it ended
     * in. This stops the log's I/O thread, truncates the files (scanning the segment that holds the
     * kept record up to the log's end) and starts the thread again: tens of milliseconds, meant for
     * rare events, not for every append.
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
        synchronized (closeLock) {
            checkOpen();
            final LogEngine old = engine;
            final long tail = old.logBuffer().tailPosition();
            if (lsn != SuffixTruncation.KEEP_NONE && (lsn < state.startPosition() || lsn >= tail)) {
                throw new WalException(
                        WalException.ErrorCode.POSITION,
                        "cannot truncate the log in " + config.directory() + " after position " + lsn
                                + ": the log holds positions " + state.startPosition() + " to " + tail
                                + " (use -1 to keep no record); nothing was changed");
            }
            final boolean interrupted = old.stop(true);
            try {
                if (state.failure() != null) {
                    closeAfterFailedTruncation(null);
                    throw closedException();
                }
                try {
                    engine = old.truncateAndStart(config, backend, state, stats, lsn, state::addDiscardedRange);
                    return engine.recovered().endPosition();
                } catch (final IOException ex) {
                    throw closeAfterFailedTruncation(new WalException(
                            NoSpace.errorCode(ex),
                            "truncating the log in " + config.directory() + " after position " + lsn + " failed: " + ex,
                            ex));
                } catch (final WalException ex) {
                    if (ex.errorCode() != WalException.ErrorCode.POSITION) {
                        throw closeAfterFailedTruncation(ex);
                    }
                    // Nothing changed: the log goes on as it was.
                    engine = restartAfterRefusal();
                    throw ex;
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Starts the log's files again as they are, after a truncateAfter that changed nothing. Under closeLock. */
    private LogEngine restartAfterRefusal() {
        try {
            return LogEngine.start(config, backend, state, stats, session -> {});
        } catch (final IOException ex) {
            throw closeAfterFailedTruncation(new WalException(
                    NoSpace.errorCode(ex),
                    "cannot reopen the files of the log in " + config.directory() + ": " + ex,
                    ex));
        } catch (final WalException ex) {
            throw closeAfterFailedTruncation(ex);
        }
    }

    /**
     * Closes the log after a truncateAfter that could not finish: every waiter and appender learns
     * why, and the lock is released for the next open, which recovers the log as it was or truncated.
     * Under closeLock.
     *
     * @return the exception to throw, or null if there was none.
     */
    private WalException closeAfterFailedTruncation(final WalException cause) {
        final WalException failure = cause == null
                ? null
                : new WalException(
                        cause.errorCode(),
                        cause.getMessage() + " The log is closed; reopen it (the open recovers it either as it was"
                                + " or truncated).",
                        cause);
        if (failure != null) {
            state.fail(failure);
        }
        closed = true;
        state.markClosed();
        lock.close();
        return failure;
    }

    /**
     * Opens a read-only view of a log, which another process may be writing: readers follow it as it
     * grows, and nothing in the directory is ever changed; no lock is taken. See {@link WalView}.
     *
     * @param directory the log directory.
     * @return the view; close it when done.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if the directory holds no log, or a
     *     {@link WalCorruptionException} if its oldest segment's header is damaged.
     */
    public static WalView openReadOnly(final Path directory) {
        return WalView.open(directory);
    }

    /**
     * Inspects a log directory without changing anything and without taking its lock, so the log may
     * be open in another process: every header and frame is validated and the end of the log judged
     * as opening it would ({@link RecoveryPolicy#FAIL}), but nothing is cut, zeroed, deleted or
     * created. A log being written shows its write in progress, if any, as a torn tail. Where a
     * writer's progress meets the inspection half-way (a segment deleted by retention, or a segment
     * completed and the next one begun while it was read), the directory is inspected again, and
     * corruption is reported only once two inspections in a row find it at the same place.
     *
     * @param directory the log directory.
     * @return what opening the log would find and do.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if the directory holds no log, or
     *     ({@link WalException.ErrorCode#IO}) if it cannot be read.
     */
    public static LogInspection inspect(final Path directory) {
        return LiveInspection.inspect(directory);
    }

    /**
     * Opens a log, with the file system type read by a given function (tests stand in for the mount
     * table with it).
     */
    static Wal open(final WalConfig config, final Function<Path, String> fileSystemTypes) {
        // A pending interrupt would close the FileChannels that opening reads and writes through
        // (ClosedByInterruptException) and fail the open: it runs with the flag cleared, and the flag
        // is set again for the caller, whose interrupt it stays.
        final boolean interrupted = Thread.interrupted();
        try {
            return openUninterrupted(config, fileSystemTypes);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Wal openUninterrupted(final WalConfig config, final Function<Path, String> fileSystemTypes) {
        try {
            LogDirectories.createDurably(config.directory());
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO,
                    "cannot create the log directory " + config.directory() + ": " + IoErrors.reason(ex),
                    ex);
        }
        final DirectoryLock lock = DirectoryLock.acquire(config.directory());
        try {
            final StorageBackend backend =
                    config.backend() != null ? config.backend() : BackendSelector.select(config.storageOptions());
            final String fileSystemType = fileSystemTypes.apply(config.directory());
            final StatsCounters stats = new StatsCounters();
            final LogEngine engine = LogEngine.start(
                    config,
                    backend,
                    null,
                    stats,
                    session -> LogDirectories.warnIfNotDurable(config.directory(), fileSystemType, session));
            return new Wal(config, lock, backend, fileSystemType, stats, engine);
        } catch (final IOException ex) {
            lock.close();
            throw new WalException(
                    NoSpace.errorCode(ex), "cannot open the log in " + config.directory() + ": " + ex, ex);
        } catch (final RuntimeException | Error ex) {
            lock.close();
            throw ex;
        }
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
     *       WalException.ErrorCode#INTERRUPTED}; the record will be written unless the log fails), or the
     *       log failed meanwhile ({@link WalException.ErrorCode#IO}, {@link
     *       WalException.ErrorCode#STORAGE_SPACE}; it may or may not be on disk: reopen and read).
     * </ul>
     *
     * @param payload the record.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException if the record could not be appended, or did not reach the level: see above.
     */
    public long append(final byte[] payload, final Durability durability) {
        return append(payload, 0, payload.length, durability);
    }

    /**
     * Appends part of an array as a record and waits until it reaches a durability level.
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
        Objects.checkFromIndexSize(offset, length, payload.length);
        checkLength(length);
        checkDurability(durability);
        LogEngine e;
        long lsn;
        while ((lsn = claim(e = engine, length)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        final long syncTicket = syncTicket(durability);
        e.logBuffer().publish(lsn, payload, offset, length);
        awaitAppended(e, lsn, frameEnd(lsn, length), durability, syncTicket);
        return lsn;
    }

    /**
     * Appends the remaining bytes of a buffer as a record and waits until it reaches a durability
     * level. The buffer's position and limit are not changed.
     *
     * @param payload the record, from position to limit.
     * @param durability how far the record must get before this returns.
     * @return the record's LSN.
     * @throws WalException as {@link #append(byte[], Durability)}.
     */
    public long append(final ByteBuffer payload, final Durability durability) {
        final int length = payload.remaining();
        checkLength(length);
        checkDurability(durability);
        LogEngine e;
        long lsn;
        while ((lsn = claim(e = engine, length)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        final long syncTicket = syncTicket(durability);
        e.logBuffer().publish(lsn, payload);
        awaitAppended(e, lsn, frameEnd(lsn, length), durability, syncTicket);
        return lsn;
    }

    /**
     * Appends part of an Agrona buffer as a record and waits until it reaches a durability level.
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
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        checkLength(length);
        checkDurability(durability);
        LogEngine e;
        long lsn;
        while ((lsn = claim(e = engine, length)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        final long syncTicket = syncTicket(durability);
        e.logBuffer().publish(lsn, payload, offset, length);
        awaitAppended(e, lsn, frameEnd(lsn, length), durability, syncTicket);
        return lsn;
    }

    /**
     * Appends the records of a batch as one unit and waits until the whole batch reaches a durability
     * level. The records take consecutive frames, in the order they were added; after any crash,
     * recovery keeps all of them or none of them, and no reader delivers some of them without the
     * rest. Each record's LSN is then {@link WalBatch#lsn(int)}. Allocates nothing.
     *
     * <p>Outcomes when this throws are those of {@link #append(byte[], Durability)}: with {@link
     * WalException#NO_LSN} none of the batch is in the log; with an LSN (the batch's first) the whole
     * batch is in the log and its outcome is unknown.
     *
     * @param batch the records, at least one; the frames of all of them together may take at most
     *     what a record of {@link WalConfig#maxRecordBytes()} takes ({@link WalBatch#framedBytes()}).
     * @param durability how far the whole batch must get before this returns.
     * @return the LSN of the batch's first record.
     * @throws WalException if the batch could not be appended, or did not reach the level.
     */
    public long append(final WalBatch batch, final Durability durability) {
        checkDurability(durability);
        final int framedBytes = checkBatch(batch);
        final int last = batch.size() - 1;
        if (last == 0) {
            final long lsn = append(batch.payloads(), batch.offset(0), batch.length(0), durability);
            batch.appendedAt(lsn);
            return lsn;
        }
        LogEngine e;
        long lsn;
        while ((lsn = claimFramed(e = engine, framedBytes)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        final long syncTicket = syncTicket(durability);
        batch.appendedAt(lsn);
        final LogBuffer logBuffer = e.logBuffer();
        for (int i = 0; i <= last; i++) {
            logBuffer.publishBatchRecord(batch.lsn(i), batch.payloads(), batch.offset(i), batch.length(i), i < last);
        }
        final long lastLsn = batch.lsn(last);
        try {
            awaitAppended(e, lastLsn, lsn + framedBytes, durability, syncTicket);
        } catch (final WalException ex) {
            if (ex.lsn() == lastLsn && lastLsn != lsn) {
                throw new WalException(
                        ex.errorCode(),
                        ex.getMessage() + " (the record at LSN " + lastLsn + " is the last of a batch of "
                                + batch.size() + " records that starts at LSN " + lsn + ")",
                        ex.getCause(),
                        lsn);
            }
            throw ex;
        }
        return lsn;
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
        checkLength(length);
        Objects.checkFromIndexSize(offset, length, payload.capacity());
        final LogEngine e = engine;
        final long lsn = e.logBuffer().claim(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length)));
        if (lsn < 0) {
            if (lsn == CLOSED && state.failure() != null) {
                return FAILED;
            }
            // Claims stop while truncateAfter replaces the engine: space is coming, as after back pressure.
            return lsn == CLOSED && !closed ? BACK_PRESSURED : lsn;
        }
        e.logBuffer().publish(lsn, payload, offset, length);
        e.agent().wakeIfParked();
        return lsn;
    }

    /**
     * Appends a record and returns a future completed with its LSN once it reaches a durability
     * level. Allocates a future per call. The future is completed on the I/O thread: attach
     * callbacks with the {@code *Async} methods if they may block.
     *
     * @param payload the record.
     * @param durability the level that completes the future.
     * @return the future.
     * @throws WalException if the record cannot be appended at all.
     */
    public CompletableFuture<Long> appendAsync(final byte[] payload, final Durability durability) {
        final int length = payload.length;
        checkLength(length);
        checkDurability(durability);
        LogEngine e;
        long lsn;
        while ((lsn = claim(e = engine, length)) == REPLACED) {
            // truncateAfter replaced the engine meanwhile: claim in the next one.
        }
        syncTicket(durability);
        e.logBuffer().publish(lsn, payload, 0, length);
        final CompletableFuture<Long> future = new CompletableFuture<>();
        if (durability == Durability.BUFFERED || state.reached(durability) > lsn) {
            future.complete(lsn);
            return future;
        }
        if (durability == Durability.SYNCED) {
            state.requestSync(lsn + 1);
        }
        e.agent().completeWhenReached(lsn, durability, future);
        return future;
    }

    /**
     * Waits until a record reaches a durability level. Allocates nothing.
     *
     * @param lsn the record's LSN, as returned by an append.
     * @param durability the level.
     * @throws WalException if the log fails or is closed before the record reaches the level.
     */
    public void await(final long lsn, final Durability durability) {
        checkDurability(durability);
        if (durability == Durability.BUFFERED || state.reached(durability) > lsn) {
            // Reached already: no sync request to count, which would make the group commit wait for a
            // waiter that never comes.
            return;
        }
        awaitAppended(engine, lsn, NO_FRAME_END, durability, syncTicket(durability));
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
        if (durability == Durability.BUFFERED || state.reached(durability) > lsn) {
            return true;
        }
        if (durability == Durability.SYNCED) {
            state.countSyncRequest();
            state.requestSync(lsn + 1);
        }
        final LogEngine e = engine;
        e.wake().run();
        try {
            return state.await(lsn + 1, durability, timeoutNs, finalPosition(e));
        } catch (final WalException ex) {
            throw outcomeUnknown(ex, lsn, durability);
        }
    }

    /**
     * Makes every record appended before this call durable, and waits for it.
     *
     * @throws WalException if the log fails or is closed first.
     */
    public void sync() {
        checkOpen();
        final LogEngine e = engine;
        final long target = e.logBuffer().tailPosition();
        if (state.durablePosition() >= target) {
            return;
        }
        state.countSyncRequest();
        state.requestSync(target);
        e.wake().run();
        state.await(target, Durability.SYNCED, Long.MAX_VALUE, finalPosition(e));
    }

    /**
     * Position up to which records were written to the OS.
     *
     * @return the written position.
     */
    public long writtenPosition() {
        return state.writtenPosition();
    }

    /**
     * Position up to which records are durable.
     *
     * @return the durable position.
     */
    public long durablePosition() {
        return state.durablePosition();
    }

    /**
     * Position where the next record will go, or just before it (a segment header may lie between).
     *
     * @return the tail position.
     */
    public long tailPosition() {
        return engine.logBuffer().tailPosition();
    }

    /**
     * First position the log still holds; readers cannot start before it.
     *
     * @return the start position.
     */
    public long startPosition() {
        return state.startPosition();
    }

    /**
     * Opens a reader that sees durable records, starting at a record's LSN (or at {@link
     * #startPosition()}).
     *
     * @param fromLsn the first record to read.
     * @return the reader; close it when done.
     * @throws WalException if the position was truncated away.
     */
    public WalReader reader(final long fromLsn) {
        return reader(fromLsn, Durability.SYNCED);
    }

    /**
     * Opens a reader.
     *
     * @param fromLsn the first record to read.
     * @param visibility {@link Durability#SYNCED} to see durable records, {@link Durability#WRITTEN}
     *     to see written ones too.
     * @return the reader; close it when done.
     * @throws WalException if the position was truncated away.
     */
    public WalReader reader(final long fromLsn, final Durability visibility) {
        final LogEngine e = engine;
        final long tail = e.logBuffer().tailPosition();
        if (fromLsn > tail) {
            throw new WalException(
                    WalException.ErrorCode.POSITION,
                    "position " + fromLsn + " is beyond the end of the log at " + tail);
        }
        final RecoveredLog recovered = e.recovered();
        return new LogReader(
                config.directory(),
                state,
                recovered.segmentCapacityBytes(),
                recovered.logId(),
                recovered.skippedRanges(),
                maxRecordBytes,
                fromLsn,
                visibility);
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
        synchronized (closeLock) {
            checkOpen();
            final TruncateRequest request = new TruncateRequest(lsn);
            final LogEngine e = engine;
            e.agent().submitTruncate(request);
            while (!request.isDone()) {
                if (!e.ioThreadAlive() && !request.isDone()) {
                    // The I/O thread completes every request it took, even when the log fails; a thread
                    // that is gone without doing so never will.
                    throw new WalException(
                            WalException.ErrorCode.IO,
                            "truncating the log in " + config.directory() + " failed: the log's I/O thread stopped"
                                    + " before it completed the request"
                                    + (state.failure() != null
                                            ? " (" + state.failure().getMessage() + ")"
                                            : "")
                                    + "; nothing was deleted that a reopen would miss. Close and reopen the log.",
                            state.failure());
                }
                LockSupport.parkNanos(TRUNCATE_POLL_NS);
            }
            if (request.failure() != null) {
                throw new WalException(
                        WalException.ErrorCode.IO,
                        "truncating the log in " + config.directory() + " failed: "
                                + request.failure().getMessage(),
                        request.failure());
            }
            return request.deletedCount();
        }
    }

    /**
     * Retention by size: deletes, durably and oldest first, whole segments until the log's segments
     * take at most a total size, but never a segment holding a record at or after a protected
     * position (the slowest consumer's, say), and never the segment being written. As {@link
     * #truncateBefore(long)}, which does the deleting: each delete is made durable (directory sync)
     * before the next.
     *
     * <p>The size counts the log's segments from the oldest to the one being written, each at its
     * full capacity (segments are allocated whole); the next segment, prepared ahead of need, is one
     * more.
     *
     * @param maxTotalBytes the size the log's segments may take together; at least the segment
     *     being written is kept.
     * @param protectedLsn records at or after this position are kept; {@link Long#MAX_VALUE} to
     *     protect nothing beyond the size limit.
     * @return how many segments were deleted.
     * @throws WalException if an argument is negative ({@link WalException.ErrorCode#CONFIG}), the
     *     log is closed or failed, or a delete fails.
     */
    public long truncateToSize(final long maxTotalBytes, final long protectedLsn) {
        checkRetentionArgument("maxTotalBytes", maxTotalBytes);
        checkRetentionArgument("protectedLsn", protectedLsn);
        synchronized (closeLock) {
            checkOpen();
            final int capacity = engine.recovered().segmentCapacityBytes();
            final long startBase = state.startPosition() & -(long) capacity;
            final long activeBase = (state.writtenPosition() - 1) & -(long) capacity;
            return truncateBefore(RetentionRule.bySize(startBase, activeBase, capacity, maxTotalBytes, protectedLsn));
        }
    }

    /**
     * Retention by age: deletes, durably and oldest first, every whole segment last written longer
     * ago than a duration (by the file's modification time), but never a segment holding a record at
     * or after a protected position, and never the segment being written. Stops at the first segment
     * that is young enough. As {@link #truncateBefore(long)}, which does the deleting.
     *
     * @param maxAge how long after its last write a segment may be kept.
     * @param protectedLsn records at or after this position are kept; {@link Long#MAX_VALUE} to
     *     protect nothing beyond the age limit.
     * @return how many segments were deleted.
     * @throws WalException if an argument is negative ({@link WalException.ErrorCode#CONFIG}), a
     *     segment's modification time cannot be read, the log is closed or failed, or a delete fails.
     */
    public long truncateOlderThan(final Duration maxAge, final long protectedLsn) {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative()) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "retention maxAge=" + maxAge + " is negative; pass how long segments may be kept");
        }
        checkRetentionArgument("protectedLsn", protectedLsn);
        synchronized (closeLock) {
            checkOpen();
            final int capacity = engine.recovered().segmentCapacityBytes();
            final long startBase = state.startPosition() & -(long) capacity;
            final long activeBase = (state.writtenPosition() - 1) & -(long) capacity;
            final long[] lastModifiedMs = new long[(int) ((activeBase - startBase) / capacity + 1)];
            for (int i = 0; i < lastModifiedMs.length; i++) {
                lastModifiedMs[i] =
                        lastModifiedMs(SegmentNames.segmentPath(config.directory(), startBase + (long) i * capacity));
            }
            final long cutoffMs = System.currentTimeMillis() - maxAge.toMillis();
            return truncateBefore(
                    RetentionRule.byAge(startBase, activeBase, capacity, lastModifiedMs, cutoffMs, protectedLsn));
        }
    }

    private static long lastModifiedMs(final Path segment) {
        try {
            return Files.getLastModifiedTime(segment).toMillis();
        } catch (final java.nio.file.NoSuchFileException ex) {
            return -1;
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO,
                    "retention cannot read the modification time of " + segment + ": " + ex.getMessage()
                            + "; nothing was deleted",
                    ex);
        }
    }

    private static void checkRetentionArgument(final String name, final long value) {
        if (value < 0) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "retention " + name + "=" + value + " is negative; nothing was deleted");
        }
    }

    /**
     * A snapshot of the log's counters.
     *
     * @return the statistics.
     */
    public WalStats stats() {
        final LogEngine e = engine;
        return stats.snapshot(backendName, state, e.logBuffer(), fileSystemType, e.durabilityNote());
    }

    /**
     * What recovery found when this log was opened.
     *
     * @return the report.
     */
    public RecoveryReport recoveryReport() {
        return openReport;
    }

    /**
     * The configuration the log was opened with.
     *
     * @return the configuration.
     */
    public WalConfig config() {
        return config;
    }

    /**
     * Drains every appended record, syncs, completes every waiter, stops the I/O thread and
     * releases the directory. Idempotent. Appends after close fail with {@link
     * WalException.ErrorCode#CLOSED}. Closing a log that failed returns normally: the failure was
     * already reported to every waiter and appender, and the next open runs recovery.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            final boolean interrupted = engine.stop(false);
            lock.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Claims space for a frame in an engine's log buffer, waiting while it is full.
     *
     * @return the frame's position, or {@link #REPLACED} if truncateAfter replaced the engine meanwhile.
     */
    private long claim(final LogEngine e, final int length) {
        return claimFramed(e, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length)));
    }

    /**
     * Claims contiguous space for frames in an engine's log buffer, waiting while it is full.
     *
     * @param alignedLength the frames' space together, at most a largest record's frame.
     * @return the first frame's position, or {@link #REPLACED} if truncateAfter replaced the engine.
     */
    private long claimFramed(final LogEngine e, final int alignedLength) {
        final LogBuffer logBuffer = e.logBuffer();
        long lsn = logBuffer.claim(alignedLength);
        if (lsn == BACK_PRESSURED) {
            stats.recordBackPressureWait();
            final BackPressureEvent event = BackPressureEvent.beginIfEnabled();
            lsn = state.awaitClaim(logBuffer, alignedLength, System.nanoTime() + appendTimeoutNs, e.wake());
            if (event != null) {
                event.end();
                if (event.shouldCommit()) {
                    event.directory = config.directory().toString();
                    event.frameBytes = alignedLength;
                    event.bufferCapacityBytes = logBuffer.capacityBytes();
                    event.gotSpace = lsn != BACK_PRESSURED;
                    event.commit();
                }
            }
        }
        if (lsn == BACK_PRESSURED) {
            throw new WalException(
                    WalException.ErrorCode.BACK_PRESSURE_TIMEOUT,
                    "append waited " + appendTimeoutNs / 1_000_000 + " ms (appendTimeoutNs) for space in the "
                            + logBuffer.capacityBytes() + "-byte log buffer (bufferCapacityBytes) of "
                            + config.directory()
                            + ": the disk is slower than the appenders; slow down, or raise appendTimeoutNs");
        }
        if (lsn == CLOSED) {
            if (replacedAfter(e)) {
                return REPLACED;
            }
            throw closedException();
        }
        return lsn;
    }

    /**
     * Whether an engine whose log buffer refused a claim as closed was replaced by truncateAfter
     * (which holds the close lock while it replaces it: this waits for it to finish). Cold path.
     */
    private boolean replacedAfter(final LogEngine e) {
        synchronized (closeLock) {
            return !closed && state.failure() == null && engine != e;
        }
    }

    /** Counts an append that will wait for a sync, before its frame is published; 0 for other levels. */
    private long syncTicket(final Durability durability) {
        return durability == Durability.SYNCED ? state.countSyncRequest() : 0;
    }

    private static long frameEnd(final long lsn, final int length) {
        return lsn + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
    }

    /**
     * Waits for a record to reach a level. An appender whose frame is the last claimed (and, for
     * SYNCED, whose sync request is the last made) first tries to run the I/O itself: the log is then
     * likely idle but for it. Under contention the check fails without touching the I/O thread's
     * state, and group commit takes its course.
     *
     * @param frameEnd where the record's frame ends, or {@link #NO_FRAME_END} for a wait that does not
     *     run the I/O.
     */
    private void awaitAppended(
            final LogEngine e,
            final long lsn,
            final long frameEnd,
            final Durability durability,
            final long syncTicket) {
        if (durability == Durability.BUFFERED) {
            e.agent().wakeIfParked();
            return;
        }
        if (state.reached(durability) > lsn) {
            return;
        }
        if (durability == Durability.SYNCED) {
            state.requestSync(lsn + 1);
        }
        final boolean synced = durability == Durability.SYNCED;
        final int drive =
                frameEnd == e.logBuffer().tailPosition() && (!synced || state.syncRequestCount() == syncTicket)
                        ? e.agent().driveFor(lsn + 1, synced)
                        : IoAgent.DRIVE_NOT_RUN;
        if (drive == IoAgent.DRIVE_REACHED) {
            return;
        }
        if (drive == IoAgent.DRIVE_NOT_RUN && (durability != Durability.SYNCED || state.wakeNeeded(syncTicket))) {
            e.wake().run();
        }
        try {
            state.await(lsn + 1, durability, Long.MAX_VALUE, finalPosition(e));
        } catch (final WalException ex) {
            throw outcomeUnknown(ex, lsn, durability);
        }
    }

    /**
     * The exception for a wait that failed after its record entered the log: it names the record's
     * LSN and says what is known of its fate. Allocates, on the failure path only.
     */
    private static WalException outcomeUnknown(final WalException cause, final long lsn, final Durability durability) {
        final String message = cause.errorCode() == WalException.ErrorCode.INTERRUPTED
                ? "interrupted while waiting for the record at LSN " + lsn + " to be " + durability
                        + ": the record is in the log and will be written"
                        + (durability == Durability.SYNCED ? " and synced" : "")
                        + " unless the log fails; call await(" + lsn + ", " + durability + ") to learn when"
                : cause.getMessage() + " The record at LSN " + lsn + " was appended before that; whether it"
                        + " reached the disk is unknown: reopen the log and read it to find out.";
        return new WalException(cause.errorCode(), message, cause, lsn);
    }

    private long finalPosition(final LogEngine e) {
        // An engine replaced by truncateAfter closed its buffer's tail too, but the log goes on.
        return closed && e.logBuffer().isTailClosed() ? e.logBuffer().tailPosition() : Long.MAX_VALUE;
    }

    private void checkLength(final int length) {
        if (length < 0 || length > maxRecordBytes) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "record of " + length + " bytes exceeds maxRecordBytes=" + maxRecordBytes
                            + "; raise WalConfig maxRecordBytes (and bufferCapacityBytes) or split the record");
        }
    }

    /** Refuses a null level before anything is claimed: it would be taken for one of the three. */
    private static void checkDurability(final Durability durability) {
        if (durability == null) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, "durability is null; pass Durability.BUFFERED, WRITTEN or SYNCED");
        }
    }

    /** Checks a batch's size against the limits; returns its framed bytes. */
    private int checkBatch(final WalBatch batch) {
        if (batch.isEmpty()) {
            throw new WalException(WalException.ErrorCode.CONFIG, "the batch holds no record; add records first");
        }
        final long limit = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(maxRecordBytes));
        if (batch.framedBytes() > limit) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "batch of " + batch.size() + " records takes " + batch.framedBytes()
                            + " bytes framed, more than the "
                            + limit + " bytes a record of maxRecordBytes=" + maxRecordBytes + " takes; nothing was"
                            + " appended. Raise WalConfig maxRecordBytes (and bufferCapacityBytes) or make smaller"
                            + " batches");
        }
        return (int) batch.framedBytes();
    }

    private void checkOpen() {
        if (closed || state.failure() != null) {
            throw closedException();
        }
    }

    private WalException closedException() {
        final Throwable cause = state.failure();
        if (cause != null) {
            return new WalException(
                    WalException.ErrorCode.CLOSED,
                    "the log in " + config.directory() + " failed and accepts nothing more: " + cause.getMessage()
                            + (NoSpace.isNoSpace(cause)
                                    ? ". " + NoSpace.ADVICE + "."
                                    : ". Close it and reopen it to recover."),
                    cause);
        }
        return new WalException(WalException.ErrorCode.CLOSED, "the log in " + config.directory() + " is closed");
    }
}
