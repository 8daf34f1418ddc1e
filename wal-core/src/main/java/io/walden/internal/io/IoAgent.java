package io.walden.internal.io;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;

/**
 * The log's I/O agent: decides who runs the log's next {@link IoRound round of I/O} and when, as
 * the {@link IoDuty I/O duty} allows: the I/O thread (this agent's {@link AgentRunner}), which
 * holds the duty but while it parks or rests; an appender alone with its record ({@link
 * #driveFor}); or the backend's completion thread ({@link #onCompletionSignal}). A round run off
 * the I/O thread that leaves work only the I/O thread does wakes it.
 *
 * <pre>
 *   I/O thread:   doWork -> IoRound.run(IO_THREAD) ... idle: rest or park (duty let go) -> take it back
 *   appender:     driveFor -> tryTake -> IoRound.run(CALLER) x up to 8 -> release -> wake if work left
 *   completions:  onCompletionSignal -> tryTakeForCompletion -> IoRound.run(COMPLETION) -> release -> ...
 * </pre>
 *
 * <p><b>Threading:</b> the public methods say which thread calls them; the round belongs to the
 * holder of the duty.
 */
public final class IoAgent implements Agent {
    private static final System.Logger LOGGER = System.getLogger(IoAgent.class.getName());
    /** What an appender's drive of its own record came to ({@link #driveFor}). */
    public enum Drive {
        /** The appender did not run its I/O, or left it unfinished; the caller wakes the I/O thread. */
        NOT_RUN,
        REACHED,
        /** The record's operation is in flight and its completion round carries it on: wait, wake no one. */
        CARRIED_ON
    }
    /** Most rounds an appender drives for its record: a write, its completion, a sync, its completion. */
    private static final int DRIVE_ROUNDS_MAX = 8;
    /** Most blocked waiters for which the idle thread keeps yielding while a completion is due. */
    private static final int YIELD_WAITERS_MAX = 2;

    private final LogBuffer logBuffer;
    private final LogState state;
    private final StatsCounters stats;
    private final Path directory;
    private final IoDuty duty;
    private final IoRound round;
    private final IoIdleStrategy idleStrategy;
    private final boolean callerMayRunIo;
    private final boolean completionsRunIo;

    // Set before a close request (whose volatile write publishes it) when another agent takes over the
    // log state after this one stops; read by the I/O thread as it stops.
    private boolean handOver;
    // Set once, by the I/O thread as it stops; read by the closing thread after joining it.
    private volatile boolean buffersFreeable;

    public IoAgent(
            final WalConfig config,
            final StorageSession session,
            final StorageCapabilities capabilities,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final RecoveredLog recovered)
            throws IOException {
        this.logBuffer = logBuffer;
        this.state = state;
        this.stats = stats;
        this.directory = config.directory();
        this.duty = new IoDuty();
        this.round = new IoRound(config, session, capabilities, logBuffer, state, stats, recovered);
        this.callerMayRunIo = capabilities.callerMayRunIo();
        this.completionsRunIo = capabilities.completionThreadMayRunIo();
        this.idleStrategy = new IoIdleStrategy(new IdleHost(), !completionsRunIo);
    }

    /**
     * After a BUFFERED publish: unparks the I/O thread if it is parked, without a fence, so a missed
     * wake delays the record by at most the longest idle park ({@value IoIdleStrategy#PARK_MS_MAX}
     * ms). Any thread; one volatile read.
     */
    public void wakeIfParked() {
        duty.wakeIfParked();
    }

    public void wake() {
        duty.wake();
    }

    /**
     * The backend's completion signal: a completion round here if allowed and the duty is free, else
     * left to the holder or the woken I/O thread. Any thread, a submitting holder included.
     */
    public void onCompletionSignal() {
        if (!completionsRunIo) {
            duty.wake();
            return;
        }
        duty.signalCompletion();
        runPendingCompletions();
    }

    /**
     * Runs completion rounds while one is pending and the duty is free; called by every thread that
     * signals a completion or lets go of the duty but the I/O thread, which checks before it parks.
     */
    private void runPendingCompletions() {
        while (duty.tryTakeForCompletion()) {
            final boolean ioThreadNeeded;
            try {
                round.completionRound(true);
                round.run(System.nanoTime(), IoRound.Kind.COMPLETION);
            } catch (final Throwable ex) {
                round.fail(ex);
            } finally {
                round.completionRound(false);
                ioThreadNeeded = round.ioThreadNeeded();
                duty.release();
            }
            duty.wakeIfWorkLeft(ioThreadNeeded, round);
        }
    }

    /** Asks the thread to drain, sync and stop. Any thread. */
    public void requestClose() {
        round.requestClose();
        duty.wake();
    }

    /**
     * Asks the thread to drain, sync and stop, leaving the log state open for the next agent ({@code
     * Wal.truncateAfter} on an open log), so waiters and readers keep waiting. Any thread.
     */
    public void requestHandOver() {
        handOver = true;
        requestClose();
    }

    /** Asks the thread to delete segments below a position. Called by one thread at a time. */
    public void submitTruncate(final TruncateRequest request) {
        round.submitTruncate(request);
        duty.wake();
    }

    /**
     * Appender: runs the I/O for its own record on the calling thread when {@link #mayDrive} allows it,
     * in the I/O thread's own rounds, so every rule holds unchanged; stops when the position is
     * reached, when a round makes no progress, or when interrupted. Allocates nothing.
     */
    public Drive driveFor(final long position, final boolean synced, final long frameEnd, final long syncTicket) {
        if (!mayDrive(synced, frameEnd, syncTicket) || !duty.tryTake()) {
            return Drive.NOT_RUN;
        }
        boolean reached = false;
        boolean carriedOn = false;
        boolean workLeft = true;
        try {
            reached = drive(position, synced);
            // With completions that run the I/O, an operation in flight carries the record on.
            carriedOn = !reached && completionsRunIo && !round.failed() && round.operationInFlight();
            workLeft = (!reached && !carriedOn) || round.ioThreadNeeded();
        } catch (final Throwable ex) {
            round.fail(ex);
        } finally {
            duty.release();
        }
        duty.wakeIfWorkLeft(workLeft, round);
        if (completionsRunIo) {
            runPendingCompletions();
        }
        return reached ? Drive.REACHED : carriedOn && !workLeft ? Drive.CARRIED_ON : Drive.NOT_RUN;
    }

    /**
     * Whether an appender may run its own record's I/O, the whole rule: its record the last published
     * and, for SYNCED, its sync request the last (else group commit gathers them); the duty free,
     * nobody blocked, not closing, not interrupted.
     */
    private boolean mayDrive(final boolean synced, final long frameEnd, final long syncTicket) {
        return callerMayRunIo
                && frameEnd == logBuffer.tailPosition()
                && (!synced || state.syncRequestCount() == syncTicket)
                && round.loneWriter()
                && !duty.isHeld()
                && !round.closeRequested()
                && state.waiterCount() == 0
                && !Thread.currentThread().isInterrupted();
    }

    private boolean drive(final long position, final boolean synced) {
        for (int i = 0; i < DRIVE_ROUNDS_MAX && !round.failed() && !round.closing(); i++) {
            final int workCount = round.run(System.nanoTime(), IoRound.Kind.CALLER);
            if (round.reached(position, synced)) {
                stats.recordRunByCaller();
                return true;
            }
            if (workCount == 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return false;
    }

    /** The runner of the log's I/O thread; it ends after {@link #requestClose()} and the close, or a failure. */
    public AgentRunner newRunner() {
        return new AgentRunner(idleStrategy, this::onRunnerError, null, this);
    }

    /** The runner reports the agent's end (as {@link AgentTerminationException}) or a failure of {@link #onClose}. */
    private void onRunnerError(final Throwable throwable) {
        if (!(throwable instanceof AgentTerminationException)) {
            LOGGER.log(
                    System.Logger.Level.ERROR,
                    "the I/O thread of the Walden log in " + directory + " failed while closing",
                    throwable);
        }
    }

    @Override
    public String roleName() {
        return "walden-io-" + directory.getFileName();
    }

    @Override
    public void onStart() {
        duty.bindIoThread(Thread.currentThread());
        try {
            round.start();
        } catch (final Throwable ex) {
            round.fail(ex);
        }
    }

    /**
     * One round of the I/O thread. Every failure fails the log here, not in the runner (which would run
     * on); {@link AgentTerminationException} ends it once closing is done.
     */
    @Override
    public int doWork() {
        int workCount = 0;
        try {
            duty.clearSignals(completionsRunIo);
            workCount = round.failed() ? round.drain() : round.run(System.nanoTime(), IoRound.Kind.IO_THREAD);
        } catch (final Throwable ex) {
            round.fail(ex);
        }
        if (round.closeRequested() && round.isClosable()) {
            throw new AgentTerminationException();
        }
        return workCount;
    }

    @Override
    public void onClose() {
        buffersFreeable = round.shutdown(round.failed(), handOver);
    }

    /** Why closing gave up for lack of space, or null; once stopped. */
    public WalException closeAbandonment() {
        return round.closeAbandonment();
    }

    /** Whether the log buffer may be freed (every claim published, no operation reads it); once stopped. */
    public boolean buffersFreeable() {
        return buffersFreeable;
    }

    /**
     * The I/O thread as {@link IoIdleStrategy} sees it: it rests without the duty only when nothing
     * of its own is in flight and nobody is blocked.
     */
    private final class IdleHost implements IoIdleStrategy.Host {
        @Override
        public boolean mayRestWithoutDuty() {
            return callerMayRunIo
                    && (completionsRunIo || round.quiet())
                    && !round.cohortHolding()
                    && round.loneWriter()
                    && state.waiterCount() == 0;
        }

        @Override
        public boolean expectsCompletion() {
            // With many blocked waiters the processors are better left to them: they must run to
            // append the next group. Waiters that yield are not counted: they let this thread run.
            // Completions that run the I/O themselves need nothing from this thread.
            return !completionsRunIo && round.operationInFlight() && state.waiterCount() <= YIELD_WAITERS_MAX;
        }

        @Override
        public boolean isSignalled() {
            // A completion signalled while this thread held the duty is its own to deliver.
            return duty.isSignalled();
        }

        @Override
        public void releaseDuty() {
            duty.releaseForRest();
        }

        @Override
        public void takeDuty() {
            duty.takeBack();
        }

        @Override
        public void yielded(final long yieldNs) {
            // Another thread ran meanwhile: as long as this thread waited for a processor.
            state.recordWakeLatency(yieldNs);
        }

        @Override
        public void park(final long parkNs) {
            // Group commit's hold deadline shortens the park.
            final long holdNs = round.cohortHolding()
                    ? Math.max(1, Math.min(parkNs, round.holdUntilNs() - System.nanoTime()))
                    : parkNs;
            duty.releaseAndPark(holdNs, round);
            recordWakeLatency();
        }

        @Override
        public void parkWithoutDuty(final long parkNs) {
            duty.parkWithoutDuty(parkNs, round);
            recordWakeLatency();
        }

        private void recordWakeLatency() {
            final long latencyNs = duty.takeWakeLatencyNs();
            if (latencyNs != 0) {
                state.recordWakeLatency(latencyNs);
            }
        }
    }
}
