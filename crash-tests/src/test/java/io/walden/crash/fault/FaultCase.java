package io.walden.crash.fault;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.crash.ChildBackends;
import io.walden.crash.CrashTally;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One injected fault on one backend, and every check of fail-stop:
 *
 * <ol>
 *   <li>three appenders append with mixed durability; after a random number of acknowledgements the
 *       fault is armed and hits a later operation of its kind;
 *   <li>while the fault is held back, three SYNCED appenders and one {@code appendAsync(SYNCED)} are put
 *       in place; on release each of them must fail, with the injected exception in its cause chain
 *       (for a short write, the core's own exception naming it) and a message naming the file and the
 *       cause;
 *   <li>nothing is acknowledged afterwards: the written and durable positions stay where they were when
 *       the faulty operation was submitted, every WRITTEN acknowledgement lies below the first and every
 *       SYNCED one below the second, every appender ends refused;
 *   <li>the failed log refuses {@code append}, {@code tryAppend}, {@code sync} and {@code truncateBefore}
 *       with a clear exception, and closes normally;
 *   <li>with the fault gone, {@link RecoveredPrefixCheck}: the reopened log is a valid prefix holding
 *       every earlier acknowledgement, and works.
 * </ol>
 *
 * <p>{@link FaultKind#DATA_WRITE_SHORT_COMPLETED} is the control case: nothing may fail or be lost.
 * The {@link FaultKind#backPressure back-pressure} kinds (a write to the active segment, or the next
 * segment's preparation, finds no space) must not fail the log either: it tries again and goes on
 * (rolls, after a preparation), and every appender goes on.
 *
 * <p><b>Threading:</b> runs on the test thread; it starts and joins the appenders.
 */
final class FaultCase {
    private static final int APPENDERS = 3;
    private static final int SYNCED_WAITERS = 3;
    private static final long INJECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int ASYNC_WRITER = 200;
    private static final int WAITER_WRITER_BASE = 100;

    private final String backendName;
    private final FaultKind kind;
    private final Path directory;
    private final long seed;
    private final List<String> violations = new ArrayList<>();

    /**
     * Creates a case.
     *
     * @param backendName the real backend ({@link ChildBackends#named}).
     * @param kind the fault.
     * @param directory the log directory, deleted first.
     * @param seed random seed.
     */
    FaultCase(final String backendName, final FaultKind kind, final Path directory, final long seed) {
        this.backendName = backendName;
        this.kind = kind;
        this.directory = directory;
        this.seed = seed;
    }

    /**
     * Runs the case and counts it into {@link CrashTally}.
     *
     * @throws Exception on a harness failure.
     * @throws AssertionError listing the violations, if any.
     */
    void run() throws Exception {
        TestFiles.deleteRecursively(directory);
        final SplittableRandom random = new SplittableRandom(seed);
        final FaultInjectingBackend backend = new FaultInjectingBackend(
                ChildBackends.named(backendName), seed, kind == FaultKind.DATA_WRITE_SHORT_COMPLETED);
        final Acks acks = new Acks();
        final Wal wal = Wal.open(FaultSetup.config(directory, backend));
        final MixedAppenders appenders = new MixedAppenders(wal, acks, APPENDERS, random.nextLong());
        final int armAfterAcks = 50 + random.nextInt(400);
        awaitAcks(acks, armAfterAcks);
        if (kind.failsLog()) {
            runFault(wal, backend, appenders, acks, random);
        } else if (kind.backPressure()) {
            runBackPressure(wal, backend, appenders, acks, random);
        } else {
            awaitAcks(acks, armAfterAcks + 1500);
            appenders.stop();
            final List<Throwable> endings = appenders.join(JOIN_TIMEOUT_NS);
            for (final Throwable ending : endings) {
                if (ending != null) {
                    violations.add("an appender failed although writes only went in two parts: " + ending);
                }
            }
            wal.close();
        }
        final RecoveredPrefixCheck check = new RecoveredPrefixCheck()
                .run(directory, ChildBackends.named(backendName), ChildBackends.named(backendName), acks);
        violations.addAll(check.violations());
        CrashTally.FAULTS.incrementAndGet();
        if (!violations.isEmpty()) {
            CrashTally.VIOLATIONS.addAndGet(violations.size());
            CrashTally.LOST.addAndGet(check.lost());
            throw new AssertionError(kind + " on " + backendName + " (seed " + seed + ", fault: "
                    + backend.faultDescription() + "): " + violations.size() + " violation(s), " + check.lost()
                    + " acknowledged record(s) lost:\n  " + String.join("\n  ", violations));
        }
        TestFiles.deleteRecursively(directory);
    }

    /**
     * A write or a preparation that found no space: the log must not fail; it is tried again, the log
     * goes on (a preparation: rolls on), and every appender goes on appending.
     */
    private void runBackPressure(
            final Wal wal,
            final FaultInjectingBackend backend,
            final MixedAppenders appenders,
            final Acks acks,
            final SplittableRandom random)
            throws Exception {
        injectFault(backend, random);
        final long rolledBefore = wal.stats().segmentsRolled();
        backend.release();
        awaitAcks(acks, acks.size() + 1500);
        appenders.stop();
        for (final Throwable ending : appenders.join(JOIN_TIMEOUT_NS)) {
            if (ending != null) {
                violations.add("an appender failed although " + kind.target() + " only found no space once: " + ending);
            }
        }
        if (wal.stats().failed()) {
            violations.add("the log failed on " + kind.target() + " that found no space: "
                    + wal.stats().failure());
        }
        if (kind.target() == FaultKind.Target.DATA_WRITE) {
            // A segment header's rewrite (offset 0) waits too, but counts as no data write.
            final boolean headerWrite = backend.faultDescription().contains(" at offset 0 to ");
            if (wal.stats().writesWaitedForSpace() < 1 && !headerWrite) {
                violations.add("the data write that found no space was not counted (writesWaitedForSpace)");
            }
        } else if (wal.stats().segmentsRolled() <= rolledBefore) {
            violations.add("the log never rolled after the preparation was tried again");
        }
        wal.close();
    }

    /** Arms the fault and waits until its operation was submitted (completions are held from then on). */
    private void injectFault(final FaultInjectingBackend backend, final SplittableRandom random)
            throws InterruptedException {
        backend.arm(kind, random.nextInt(3));
        if (!backend.awaitInjected(INJECT_TIMEOUT_NS)) {
            throw new AssertionError("no " + kind.target() + " operation within 30 s to inject " + kind + " into");
        }
    }

    private void runFault(
            final Wal wal,
            final FaultInjectingBackend backend,
            final MixedAppenders appenders,
            final Acks acks,
            final SplittableRandom random)
            throws Exception {
        injectFault(backend, random);
        // Every completion is held from the faulty operation's submission on: these cannot move now.
        final long writtenAtFault = wal.writtenPosition();
        final long durableAtFault = wal.durablePosition();

        final Thread[] waiters = new Thread[SYNCED_WAITERS + 1];
        final Throwable[] waiterEndings = new Throwable[waiters.length];
        final long[] waiterLsns = new long[waiters.length];
        final AtomicReference<CompletableFuture<Long>> future = new AtomicReference<>();
        for (int i = 0; i < waiters.length; i++) {
            final int index = i;
            final boolean async = i == SYNCED_WAITERS;
            waiters[i] = new Thread(
                    () -> {
                        try {
                            if (async) {
                                future.set(wal.appendAsync(TestRecords.tagged(ASYNC_WRITER, 0, 64), Durability.SYNCED));
                            } else {
                                waiterLsns[index] = wal.append(
                                        TestRecords.tagged(WAITER_WRITER_BASE + index, 0, 64), Durability.SYNCED);
                            }
                        } catch (final RuntimeException | Error ex) {
                            waiterEndings[index] = ex;
                        }
                    },
                    "fault-synced-waiter-" + i);
            waiters[i].setDaemon(true);
            waiters[i].start();
        }
        awaitBlocked(waiters);
        backend.release();

        for (final Thread waiter : waiters) {
            waiter.join(TimeUnit.NANOSECONDS.toMillis(JOIN_TIMEOUT_NS));
            if (waiter.isAlive()) {
                violations.add(waiter.getName() + " still waits 30 s after the fault");
            }
        }
        final List<Throwable> appenderEndings = appenders.join(JOIN_TIMEOUT_NS);
        final Throwable expectedCause = backend.injectedFailure();
        for (int i = 0; i < SYNCED_WAITERS; i++) {
            checkFailure("SYNCED waiter " + i, waiterEndings[i], waiterLsns[i], backend, expectedCause);
        }
        if (waiterEndings[SYNCED_WAITERS] == null) {
            final CompletableFuture<Long> pending = future.get();
            try {
                final long lsn = pending.get(JOIN_TIMEOUT_NS, TimeUnit.NANOSECONDS);
                violations.add("appendAsync(SYNCED) completed with LSN " + lsn + " after the fault");
            } catch (final ExecutionException ex) {
                // The future fails with the log's failure itself, not a WalException around it.
                checkAsyncFailure(ex.getCause(), backend, expectedCause);
            }
        } else {
            checkFailure("appendAsync(SYNCED)", waiterEndings[SYNCED_WAITERS], -1, backend, expectedCause);
        }
        for (int i = 0; i < appenderEndings.size(); i++) {
            if (!(appenderEndings.get(i) instanceof WalException)) {
                violations.add("appender " + i + " ended with " + appenderEndings.get(i) + ", not a WalException");
            } else if (!causeChainContains(appenderEndings.get(i), expectedCause, backend)) {
                violations.add("appender " + i + " was refused without the fault as cause: " + appenderEndings.get(i));
            }
        }

        for (final Acks.Ack ack : acks.all()) {
            if ((ack.level() == Durability.WRITTEN && ack.lsn() >= writtenAtFault)
                    || (ack.level() == Durability.SYNCED && ack.lsn() >= durableAtFault)) {
                violations.add("acknowledged " + ack + " beyond the positions at the fault (written " + writtenAtFault
                        + ", durable " + durableAtFault + ")");
            }
        }
        checkRefused(wal, backend, expectedCause);
        // Closing joins the I/O thread: whatever it would ever do after the fault, it has done.
        wal.close();
        if (wal.writtenPosition() != writtenAtFault || wal.durablePosition() != durableAtFault) {
            violations.add("positions moved after the fault: written " + writtenAtFault + " -> " + wal.writtenPosition()
                    + ", durable " + durableAtFault + " -> " + wal.durablePosition());
        }
    }

    private void checkFailure(
            final String who,
            final Throwable ending,
            final long lsn,
            final FaultInjectingBackend backend,
            final Throwable expectedCause) {
        if (ending == null) {
            violations.add(who + " was acknowledged (LSN " + lsn + ") after the fault");
            return;
        }
        if (!(ending instanceof WalException)) {
            violations.add(who + " failed with " + ending + ", not a WalException");
            return;
        }
        if (!causeChainContains(ending, expectedCause, backend)) {
            violations.add(who + " failed without the fault in its cause chain: " + chain(ending));
        }
        checkMessage(who, ending.getMessage(), backend);
    }

    private void checkAsyncFailure(
            final Throwable failure, final FaultInjectingBackend backend, final Throwable expectedCause) {
        if (!causeChainContains(failure, expectedCause, backend)) {
            violations.add("appendAsync(SYNCED) failed without the fault in its cause chain: " + chain(failure));
        }
        checkMessage("appendAsync(SYNCED)", failure.getMessage(), backend);
    }

    private void checkRefused(final Wal wal, final FaultInjectingBackend backend, final Throwable expectedCause) {
        try {
            final long lsn = wal.append(TestRecords.tagged(300, 0, 32), Durability.WRITTEN);
            violations.add("append after the fault was acknowledged at " + lsn);
        } catch (final WalException ex) {
            if (ex.errorCode() != WalException.ErrorCode.CLOSED || !causeChainContains(ex, expectedCause, backend)) {
                violations.add("append after the fault refused without CLOSED and the cause: " + chain(ex));
            }
            checkMessage("append after the fault", ex.getMessage(), backend);
        }
        final long result = wal.tryAppend(new UnsafeBuffer(new byte[32]), 0, 32);
        if (result != Wal.FAILED) {
            violations.add("tryAppend after the fault returned " + result + ", not FAILED");
        }
        try {
            wal.sync();
            violations.add("sync after the fault returned normally");
        } catch (final WalException ex) {
            checkMessage("sync after the fault", ex.getMessage(), backend);
        }
        try {
            wal.truncateBefore(wal.startPosition() + 1);
            violations.add("truncateBefore after the fault returned normally");
        } catch (final WalException ex) {
            checkMessage("truncateBefore after the fault", ex.getMessage(), backend);
        }
    }

    /** The message must name the file (or directory) the fault hit and the cause. */
    private void checkMessage(final String who, final String message, final FaultInjectingBackend backend) {
        final String fileName = backend.faultPath().getFileName().toString();
        if (message == null || !message.contains(fileName) || !message.contains(kind.cause())) {
            violations.add(
                    who + ": the message does not name " + fileName + " and \"" + kind.cause() + "\": " + message);
        }
    }

    /**
     * Whether a failure carries the fault: the injected exception itself, or for a reported short write
     * (which has none) an exception of the core naming the short write.
     */
    private boolean causeChainContains(
            final Throwable failure, final Throwable expectedCause, final FaultInjectingBackend backend) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (expectedCause != null && cause == expectedCause) {
                return true;
            }
            if (expectedCause == null
                    && cause instanceof IOException
                    && cause.getMessage() != null
                    && cause.getMessage().contains(kind.cause())
                    && cause.getMessage()
                            .contains(backend.faultPath().getFileName().toString())) {
                return true;
            }
        }
        return false;
    }

    private static String chain(final Throwable failure) {
        final StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            text.append(text.length() == 0 ? "" : " <- ").append(cause);
        }
        return text.toString();
    }

    private static void awaitAcks(final Acks acks, final int count) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + INJECT_TIMEOUT_NS;
        while (acks.size() < count) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("only " + acks.size() + " acknowledgements within 30 s, expected " + count);
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    /** Waits until every thread is blocked (parked or waiting) or done, twice in a row. */
    private static void awaitBlocked(final Thread[] threads) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int quietRounds = 0;
        while (quietRounds < 2 && System.nanoTime() - deadlineNs < 0) {
            TimeUnit.MILLISECONDS.sleep(5);
            boolean allBlocked = true;
            for (final Thread thread : threads) {
                final Thread.State state = thread.getState();
                allBlocked &= state == Thread.State.WAITING
                        || state == Thread.State.TIMED_WAITING
                        || state == Thread.State.TERMINATED;
            }
            quietRounds = allBlocked ? quietRounds + 1 : 0;
        }
    }
}
