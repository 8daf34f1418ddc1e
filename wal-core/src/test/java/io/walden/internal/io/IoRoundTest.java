package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static io.walden.internal.io.IoPath.temporaryName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.internal.state.LogBuffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One round against a session whose completions the test delivers: its fixed order (completions,
 * scan, write, sync, roll, background work, wakes and futures), and what each kind of round may not
 * do: an appender's ({@link IoRound#CALLER}) no background work (preparation, deletes, marks, closing);
 * the completion thread's ({@link IoRound#COMPLETION}) neither that nor a roll nor futures.
 */
class IoRoundTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long MARK = CompletionToken.MARK;

    @TempDir
    Path directory;

    @Test
    void shouldSettleCompletionsThenWriteThenSyncInOneRound() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            final long endB = path.appendPage();
            path.requestSync(endB);
            session.deliver(WRITE);
            session.operations().clear();
            assertEquals(4, path.run(), "a completion, a frame, a write and a sync");
            assertEquals(
                    List.of("write " + segmentName(0) + " " + endA + "+4096", "sync " + segmentName(0)),
                    session.operations());
            assertEquals(endA, path.state.writtenPosition(), "the completion came first");
            session.deliver(SYNC);
            path.run();
            assertEquals(endA, path.state.durablePosition(), "the sync was submitted before B was written");
        }
    }

    @Test
    void shouldWriteOnTheCallerOnlyInAnAppendersRoundWhereWritesAreDurable() throws IOException {
        final HeldCompletionSession durable =
                new HeldCompletionSession().writesDurable(true).autoDeliver(WRITE);
        try (IoPath path = new IoPath(Files.createDirectories(directory.resolve("durable")), durable)) {
            final long first = path.appendPage();
            path.run(IoRound.Kind.CALLER, 2);
            assertEquals(first, path.state.durablePosition());
            assertEquals(1, durable.writesOnCaller(), "an appender's own durable write");
            final long second = path.appendPage();
            path.run(IoRound.Kind.IO_THREAD, 2);
            path.appendPage();
            path.run(IoRound.Kind.COMPLETION, 1);
            assertTrue(path.state.durablePosition() >= second);
            assertEquals(1, durable.writesOnCaller(), "the I/O thread's and a completion round's writes");
        }
        final HeldCompletionSession buffered = new HeldCompletionSession().autoDeliver(WRITE, SYNC);
        try (IoPath path = new IoPath(Files.createDirectories(directory.resolve("buffered")), buffered)) {
            path.requestSync(path.appendPage());
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, buffered.writesOnCaller(), "a write the appender syncs after");
        }
    }

    @Test
    void shouldLeaveBackgroundWorkToTheIoThread() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE, SYNC);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.requestSync(end);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(end, path.state.durablePosition());
            path.round.preparer.start(SEGMENT);
            final TruncateRequest request = new TruncateRequest(SEGMENT);
            path.round.truncation.request(request);
            path.nowNs = System.nanoTime() + DurabilityMarker.MARK_IDLE_NS;
            session.operations().clear();

            path.run(IoRound.Kind.CALLER, 3);
            path.run(IoRound.Kind.COMPLETION, 3);
            assertEquals(List.of(), session.operations(), "background work in an appender's or completion round");
            assertFalse(request.isDone());
            assertTrue(path.round.ioThreadNeeded());

            path.run();
            assertEquals(
                    List.of(
                            "allocate " + temporaryName(SEGMENT) + " 0+" + SEGMENT,
                            "write " + segmentName(0) + " 0+4096"),
                    session.operations(),
                    "a preparation step and the durability mark");
            assertTrue(request.isDone());
        }
    }

    @Test
    void shouldCloseTheTailInTheIoThreadsRoundOnly() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE, SYNC);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.round.requestClose();
            path.run(IoRound.Kind.CALLER, 2);
            assertFalse(path.round.closing());
            assertEquals(end, path.append(48), "claims go on until the I/O thread closes the tail");
            path.run();
            assertTrue(path.round.closing());
            assertEquals(LogBuffer.CLOSED, path.logBuffer.claim(64));
            for (int i = 0; i < 10 && !path.round.isClosable(); i++) {
                path.run();
            }
            assertTrue(path.round.isClosable());
            assertEquals(end + 64, path.state.durablePosition(), "closing syncs everything, unasked");
        }
    }

    @Test
    void shouldNotRollInACompletionRound() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session, HEADER, true)) {
            path.fillFirstSegment();
            path.run();
            session.deliver(WRITE);
            path.run();
            session.deliver(CompletionToken.MARK);
            path.run();
            session.deliver(SYNC);
            path.run(IoRound.Kind.COMPLETION);
            assertEquals(SEGMENT, path.positions.durable());
            assertEquals(0, path.positions.activeBase(), "a roll closes a file");
            assertFalse(session.operations().contains("close " + segmentName(0)));
            assertTrue(path.round.ioThreadNeeded(), "the roll is left to the I/O thread");
            path.run(IoRound.Kind.CALLER);
            assertEquals(SEGMENT, path.positions.activeBase(), "an appender's round rolls");
        }
    }

    @Test
    void shouldRunReadySignalsOutsideCompletionRoundsOnly() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long position = path.append(100);
            final AckSignals signals = AckSignals.watching(path, position, Durability.WRITTEN);
            path.run(IoRound.Kind.CALLER);
            assertEquals(0, signals.count(), "signalled before the write");
            session.deliver(WRITE);
            path.run(IoRound.Kind.COMPLETION);
            assertTrue(path.round.reached(position + 1, false));
            assertEquals(0, signals.count(), "user code ran on the completion thread");
            assertTrue(path.round.ioThreadNeeded());
            path.run(IoRound.Kind.CALLER);
            assertEquals(1, signals.count());
            path.run(IoRound.Kind.CALLER);
            assertEquals(1, signals.count(), "signalled again before a poll");
            assertFalse(path.round.ioThreadNeeded());
        }
    }

    @Test
    void shouldLeaveTheReadySignalsOfAFailureInACompletionRoundToTheIoThread() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long position = path.append(100);
            final AckSignals signals = AckSignals.watching(path, position, Durability.WRITTEN);
            path.run();
            session.deliverFailure(WRITE, new IOException("write failed"));
            path.round.completionRound(true);
            path.run(IoRound.Kind.COMPLETION);
            path.round.completionRound(false);
            assertTrue(path.round.failed());
            assertEquals(0, signals.count(), "user code ran on the completion thread");
            assertTrue(path.round.ioThreadNeeded());
            path.round.drain();
            assertEquals(1, signals.count());
        }
    }

    @Test
    void shouldRefuseAnUnknownCompletion() throws IOException {
        try (IoPath path = new IoPath(directory, new HeldCompletionSession())) {
            assertThrows(AssertionError.class, () -> path.round.onCompletion(CompletionToken.of(9), 0, null));
            assertFalse(path.round.failed());
        }
    }
}
