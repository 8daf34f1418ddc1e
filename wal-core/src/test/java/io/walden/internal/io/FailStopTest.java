package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.SEGMENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.internal.state.LogBuffer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fail-stop against a session whose completions the test delivers: the first failure fails the log
 * once, appends are refused, nothing that completes after it is acknowledged, nothing more is
 * submitted or retried, delete requests fail with the cause and the asynchronous appenders' ready
 * signals run (on the completion thread, they are left to the I/O thread's drain).
 */
class FailStopTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;

    @TempDir
    Path directory;

    @Test
    void shouldAcknowledgeNothingThatCompletesAfterTheFailure() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            path.appendPage();
            session.deliver(WRITE);
            path.run();
            assertEquals(endA, path.state.writtenPosition());
            assertTrue(path.round.writes.inFlight() && path.round.syncs.inFlight());

            // In one poll: the sync fails, then B's write completes.
            final IOException cause = new IOException("sync failed");
            session.deliverFailure(SYNC, cause);
            session.deliver(WRITE);
            path.run();
            assertTrue(path.round.failed());
            assertSame(cause, path.state.failure());
            assertEquals(endA, path.state.writtenPosition(), "a write acknowledged after the failure");
            assertEquals(endA, path.positions.written());
            assertEquals(HEADER, path.state.durablePosition());
            assertEquals(LogBuffer.CLOSED, path.logBuffer.claim(64), "an append accepted after the failure");
        }
    }

    @Test
    void shouldSubmitNothingMoreOnceFailed() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            session.deliver(WRITE);
            path.run();
            // B is published before the failure, and waits to be scanned and written.
            final long endB = path.appendPage();
            path.requestSync(endB);
            session.deliverFailure(SYNC, new IOException("sync failed"));
            path.run();
            path.run(IoRound.Kind.IO_THREAD, 3);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, path.round.drain());
            assertEquals(
                    2, session.operations().size(), "submitted or retried after the failure: " + session.operations());
            assertEquals(endA, path.state.writtenPosition());
            assertEquals(HEADER, path.state.durablePosition());
        }
    }

    @Test
    void shouldFailOnceWithTheFirstCause() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final FailStop failStop = path.round.failStop;
            final IOException first = new IOException("first");
            failStop.fail(first, true);
            failStop.fail(new IOException("second"), true);
            assertTrue(failStop.failed());
            assertSame(first, path.state.failure());
            assertTrue(path.logBuffer.isTailClosed());
        }
    }

    /**
     * In one poll a write completes and then the sync in flight fails: the written position keeps the
     * record that write made WRITTEN (a blocking WRITTEN waiter on it may have returned already, so an
     * asynchronous acknowledgement of it is delivered too), the durable position stays below the record
     * the sync was for (its acknowledgement fails), and the ready signal runs once.
     */
    @Test
    void shouldKeepThePositionsReachedBeforeTheFailureAndRunTheReadySignals() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            final long endB = path.appendPage();
            session.deliver(WRITE);
            path.run();
            assertTrue(path.round.writes.inFlight() && path.round.syncs.inFlight());
            final AckSignals signals = AckSignals.watching(path, HEADER, Durability.SYNCED);
            path.appendPage();

            // In one poll: B's write completes, then the sync fails.
            session.deliver(WRITE);
            final IOException cause = new IOException("sync failed");
            session.deliverFailure(SYNC, cause);
            path.run();

            assertTrue(path.round.failed());
            assertEquals(endB, path.state.writtenPosition(), "B was written before the failure");
            assertEquals(HEADER, path.state.durablePosition(), "A's sync failed");
            assertSame(cause, path.state.failure());
            assertEquals(1, signals.count());
        }
    }

    @Test
    void shouldRunTheReadySignalsAndFailDeleteRequestsWithTheCause() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final AckSignals signals = AckSignals.watching(path, HEADER, Durability.SYNCED);
            final TruncateRequest request = new TruncateRequest(2L * SEGMENT);
            path.round.truncation.request(request);
            final IOException cause = new IOException("disk gone");
            path.round.failStop.fail(cause, true);
            assertEquals(1, signals.count());
            assertSame(cause, path.state.failure());
            assertTrue(request.isDone());
            assertSame(cause, request.failure());
        }
    }

    @Test
    void shouldLeaveTheReadySignalsToTheDrainOnTheCompletionThread() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final AckSignals signals = AckSignals.watching(path, HEADER, Durability.WRITTEN);
            final IOException cause = new IOException("disk gone");
            path.round.failStop.fail(cause, false);
            assertEquals(0, signals.count(), "user code ran on the completion thread");

            // Asked after the failure: failed by the next drain too.
            final TruncateRequest late = new TruncateRequest(2L * SEGMENT);
            path.round.truncation.request(late);
            assertEquals(0, path.round.failStop.drain());
            assertEquals(1, signals.count());
            assertSame(cause, late.failure());
        }
    }

    @Test
    void shouldDiscardTheCompletionsItDrains() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            path.appendPage();
            path.run();
            path.round.failStop.fail(new IOException("failed elsewhere"), true);
            session.deliver(WRITE);
            assertEquals(0, path.round.drain());
            assertEquals(0, session.inFlight(), "the completion was drained");
            assertEquals(HEADER, path.state.writtenPosition());
            assertEquals(List.of(), session.heldTokens(WRITE));
        }
    }
}
