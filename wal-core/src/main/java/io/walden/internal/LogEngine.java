package io.walden.internal;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.SegmentNames;
import io.walden.internal.io.IoAgent;
import io.walden.internal.recovery.LogRecovery;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

/**
 * One run of an open log's files: the storage session, the recovered log, the log buffer, the I/O
 * agent and its thread. A {@code Wal} has one at a time, held by its {@link EngineHolder};
 * {@code truncateAfter} on an open log replaces it ({@code OnlineTruncation}).
 *
 * <pre>
 *   Wal ── EngineHolder ── engine ──► LogEngine ── session, LogBuffer, IoAgent, I/O thread, RecoveredLog
 *    │                                    │
 *    └── state ◄──────────────────────────┘   LogState and StatsCounters outlive every engine of the Wal
 * </pre>
 *
 * <p><b>Threading:</b> started and stopped by the thread that holds the {@link EngineHolder}'s
 * close lock; its accessors are read by any thread.
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
            final StorageCapabilities capabilities,
            final RecoveredLog recovered,
            final LogState existingState,
            final StatsCounters stats,
            final CompletionSignal signal)
            throws IOException {
        this.config = config;
        this.recovered = recovered;
        this.durabilityNote = capabilities.durabilityNote();
        final int bufferCapacityBytes = Math.min(config.bufferCapacityBytes(), recovered.segmentCapacityBytes());
        final long end = recovered.endPosition();
        final long released = capabilities.directIo() ? end & -(long) capabilities.blockSizeBytes() : end;
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
        this.agent = new IoAgent(config, session, capabilities, logBuffer, state, stats, recovered);
        signal.agent = agent;
        this.wake = agent::wake;
        this.ioThread = new Thread(agent.newRunner(), agent.roleName());
        ioThread.setDaemon(true);
    }

    /** Recovers the log; the caller holds the directory lock, and keeps it on failure. */
    public static LogEngine start(
            final WalConfig config,
            final StorageBackend backend,
            final LogState existingState,
            final StatsCounters stats,
            final Consumer<StorageCapabilities> onSessionOpen)
            throws IOException {
        return startOn(config, backend, existingState, stats, (session, capabilities) -> {
            onSessionOpen.accept(capabilities);
            return LogRecovery.recover(config, session);
        });
    }

    /** As {@link #start}, on the log that {@code source} makes: recovery, or a truncation. */
    public static LogEngine startOn(
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
            // Read once: every part of the log that depends on them is handed these.
            final StorageCapabilities capabilities = session.capabilities();
            final RecoveredLog recovered = source.open(session, capabilities);
            final LogEngine engine =
                    new LogEngine(config, session, capabilities, recovered, existingState, stats, signal);
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

    /** Makes the log an engine runs on, from its new storage session: recovery, or a truncation. */
    @FunctionalInterface
    public interface LogSource {
        RecoveredLog open(StorageSession session, StorageCapabilities capabilities) throws IOException;
    }

    /** Drains, syncs, completes every waiter, stops the I/O thread; closes or hands over the state. */
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

    public RecoveredLog recovered() {
        return recovered;
    }

    public LogBuffer logBuffer() {
        return logBuffer;
    }

    public LogState state() {
        return state;
    }

    public IoAgent agent() {
        return agent;
    }

    public Runnable wake() {
        return wake;
    }

    public boolean ioThreadAlive() {
        return ioThread.isAlive();
    }

    public String durabilityNote() {
        return durabilityNote;
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
