package io.walden.internal;

import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.SegmentNames;
import io.walden.internal.events.RecoveryEvent;
import io.walden.internal.io.IoAgent;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

/**
 * One run of an open log's files: the storage session, the recovered log, the log buffer, the I/O
 * agent and its thread. A {@code Wal} has one at a time, held by its {@link EngineHolder};
 * {@code truncateAfter} on an open log ({@link OnlineTruncation}) stops
 * one (handing its {@link LogState} over), truncates the files, and starts the next on the same
 * state, so that waiters and readers carry on across it.
 *
 * <pre>
 *   Wal ── EngineHolder ── engine ──► LogEngine ── session, LogBuffer, IoAgent, I/O thread, RecoveredLog
 *    │                                    │
 *    └── state ◄──────────────────────────┘   LogState and StatsCounters outlive every engine of the Wal
 * </pre>
 *
 * <p><b>Threading:</b> started and stopped by the thread that holds the {@link EngineHolder}'s close lock;
 * its accessors are read by any thread.
 */
public final class LogEngine {
    private static final System.Logger LOGGER = System.getLogger(LogEngine.class.getName());

    private final WalConfig config;
    private final RecoveredLog recovered;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final IoAgent agent;
    private final Thread ioThread;
    private final Runnable wake;
    private final String durabilityNote;

    private LogEngine(
            final WalConfig config,
            final StorageSession session,
            final RecoveredLog recovered,
            final LogState existingState,
            final StatsCounters stats,
            final CompletionSignal signal)
            throws IOException {
        this.config = config;
        this.recovered = recovered;
        this.durabilityNote = session.durabilityNote();
        final int bufferCapacityBytes = Math.min(config.bufferCapacityBytes(), recovered.segmentCapacityBytes());
        final long end = recovered.endPosition();
        final long released = session.directIo() ? end & -(long) session.blockSizeBytes() : end;
        this.logBuffer = new LogBuffer(bufferCapacityBytes, recovered.segmentCapacityBytes(), end, released);
        if (released < end) {
            preloadPartialBlock(released, end);
        }
        if (existingState == null) {
            this.state = new LogState(recovered.firstSegmentBase(), end, config.waitYieldNs());
        } else {
            existingState.continueAt(end);
            this.state = existingState;
        }
        this.agent = new IoAgent(config, session, logBuffer, state, stats, recovered);
        signal.agent = agent;
        this.wake = agent::wake;
        this.ioThread = new Thread(agent.newRunner(), agent.roleName());
        ioThread.setDaemon(true);
    }

    /**
     * Opens a storage session, recovers the log and starts its I/O thread. The caller holds the
     * directory lock; on failure the session is closed again and the lock left to the caller.
     *
     * @param config the configuration.
     * @param backend the storage backend.
     * @param existingState the state of the engine before this one, or null for a log's first.
     * @param stats the log's counters.
     * @param onSessionOpen told the session before recovery runs (warnings about its durability).
     * @return the running engine.
     * @throws IOException on an I/O failure; the session is closed.
     * @throws WalException if recovery refuses the log or the configuration does not fit it.
     */
    public static LogEngine start(
            final WalConfig config,
            final StorageBackend backend,
            final LogState existingState,
            final StatsCounters stats,
            final Consumer<StorageSession> onSessionOpen)
            throws IOException {
        return startOn(config, backend, existingState, stats, session -> {
            onSessionOpen.accept(session);
            final RecoveredLog recovered = recover(config, session);
            return recovered;
        });
    }

    /**
     * Truncates the log after a record and starts the next engine where it continues, on the state
     * this (stopped) engine handed over; see {@link SuffixTruncation#truncateStopped}. The caller
     * holds the directory lock.
     *
     * @param config the configuration.
     * @param backend the storage backend.
     * @param state the state the stopped engine handed over.
     * @param stats the log's counters.
     * @param lsn the LSN of the last record to keep, or -1.
     * @param listener told the cut and the continue position before any file changes.
     * @return the running engine.
     * @throws IOException on an I/O failure; the session is closed, and the next open recovers the old
     *     log or the truncated one.
     * @throws WalException ({@link WalException.ErrorCode#POSITION}) if no record starts at {@code lsn},
     *     with nothing changed; the caller starts an engine on the log as it is.
     */
    public LogEngine truncateAndStart(
            final WalConfig config,
            final StorageBackend backend,
            final LogState state,
            final StatsCounters stats,
            final long lsn,
            final SuffixTruncation.CutListener listener)
            throws IOException {
        final SuffixTruncation.StoppedLog stopped = new SuffixTruncation.StoppedLog(
                recovered.logId(),
                recovered.segmentCapacityBytes(),
                state.startPosition() & -(long) recovered.segmentCapacityBytes(),
                state.durablePosition(),
                recovered.skippedRanges());
        return startOn(config, backend, state, stats, session -> {
            final RecoveredLog next = SuffixTruncation.truncateStopped(config, session, stopped, lsn, listener);
            return next != null ? next : recover(config, session);
        });
    }

    /** Opens a session, finds the log to start from in it, and starts the engine; closes the session on failure. */
    private static LogEngine startOn(
            final WalConfig config,
            final StorageBackend backend,
            final LogState existingState,
            final StatsCounters stats,
            final LogSource source)
            throws IOException {
        final CompletionSignal signal = new CompletionSignal();
        StorageSession session = null;
        try {
            session = backend.open(config.directory(), signal);
            final RecoveredLog recovered = source.open(session);
            final LogEngine engine = new LogEngine(config, session, recovered, existingState, stats, signal);
            engine.ioThread.start();
            return engine;
        } catch (final IOException | RuntimeException | Error ex) {
            if (session != null) {
                try {
                    session.close();
                } catch (final RuntimeException closeFailure) {
                    ex.addSuppressed(closeFailure);
                }
            }
            throw ex;
        }
    }

    /** Where an engine's log comes from, in a session just opened: recovery, or a truncation. */
    @FunctionalInterface
    private interface LogSource {
        RecoveredLog open(StorageSession session) throws IOException;
    }

    /**
     * Drains every appended record, syncs, completes every waiter and stops the I/O thread; the
     * state is then closed, or left open for the next engine.
     *
     * @param handOver true to leave the state open for the engine that follows.
     * @return whether the thread was interrupted while this waited (the interrupt is kept for the
     *     caller to restore once it is done).
     */
    public boolean stop(final boolean handOver) {
        if (handOver) {
            agent.requestHandOver();
        } else {
            agent.requestClose();
        }
        boolean interrupted = false;
        while (true) {
            try {
                ioThread.join();
                break;
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        if (agent.buffersFreeable()) {
            logBuffer.close();
        } else {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    "the log buffer of " + config.directory() + " may still be read by an unfinished write or"
                            + " written by an unfinished append; it is left to the garbage collector instead of"
                            + " being freed now");
        }
        return interrupted;
    }

    /** @return the recovered log this engine started from. */
    public RecoveredLog recovered() {
        return recovered;
    }

    /** @return the log buffer appenders claim space in. */
    public LogBuffer logBuffer() {
        return logBuffer;
    }

    /** @return the log's state, shared with the engines before and after this one. */
    public LogState state() {
        return state;
    }

    /** @return the I/O agent. */
    public IoAgent agent() {
        return agent;
    }

    /** @return wakes the I/O thread. */
    public Runnable wake() {
        return wake;
    }

    /** @return whether the I/O thread still runs. */
    public boolean ioThreadAlive() {
        return ioThread.isAlive();
    }

    /** @return what the storage session says of its durability, or null. */
    public String durabilityNote() {
        return durabilityNote;
    }

    /** Runs recovery, as a Flight Recorder event when a recording has it enabled. */
    private static RecoveredLog recover(final WalConfig config, final StorageSession session) throws IOException {
        final RecoveryEvent event = RecoveryEvent.beginIfEnabled();
        if (event == null) {
            return new LogRecovery(config, session).recover();
        }
        event.directory = config.directory().toString();
        try {
            final RecoveredLog recovered = new LogRecovery(config, session).recover();
            final RecoveryReport report = recovered.report();
            event.newLog = report.newLog();
            event.closedCleanly = report.closedCleanly();
            event.segments = report.segments();
            event.records = report.records();
            event.bytesScanned = report.bytesScanned();
            event.startPosition = report.startPosition();
            event.endPosition = report.endPosition();
            event.tornTailBytesCut = report.tornTailBytesCut();
            event.tornTailRecordsCut = report.tornTailRecordsCut();
            event.corruptBytes = report.droppedBytes() + report.skippedBytes();
            event.findings = String.join("\n", report.findings());
            return recovered;
        } catch (final IOException | RuntimeException ex) {
            event.refusal = ex.getMessage();
            throw ex;
        } finally {
            event.commit();
        }
    }

    private void preloadPartialBlock(final long blockStart, final long end) {
        // With O_DIRECT the next write rewrites the partial last block from the log buffer, so the
        // buffer must hold that block's existing frames.
        final long base = end & -(long) recovered.segmentCapacityBytes();
        final ByteBuffer view = logBuffer.newByteBufferView();
        view.clear()
                .position(logBuffer.offset(blockStart))
                .limit(logBuffer.offset(blockStart) + (int) (end - blockStart));
        try (FileChannel channel =
                FileChannel.open(SegmentNames.segmentPath(config.directory(), base), StandardOpenOption.READ)) {
            long filePosition = blockStart - base;
            while (view.hasRemaining()) {
                final int read = channel.read(view, filePosition);
                if (read < 0) {
                    throw new IOException("segment ends before position " + end);
                }
                filePosition += read;
            }
        } catch (final IOException ex) {
            throw new WalException(WalException.ErrorCode.IO, "cannot read the last block of the log: " + ex, ex);
        }
    }

    /** Forwards the backend's completion signal to the I/O agent, which exists only after recovery. */
    private static final class CompletionSignal implements Runnable {
        private volatile IoAgent agent;

        @Override
        public void run() {
            final IoAgent target = agent;
            if (target != null) {
                target.onCompletionSignal();
            }
        }
    }
}
