package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static io.walden.internal.io.IoPath.temporaryName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The roll fence, against a session whose completions the test delivers: no byte is written to
 * segment n+1 before segment n is scanned, written and synced to its end, with no durability mark
 * write and no sync in flight, and the next segment prepared; and the pacing of the next segment's
 * preparation behind the log's own writes.
 */
class SegmentRollerTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long MARK = CompletionToken.MARK;
    private static final long PREPARE = CompletionToken.PREPARE;

    @TempDir
    Path directory;

    @Test
    void shouldWriteNothingToTheNextSegmentBeforeTheOldOneIsWrittenAndSynced() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session, HEADER, true)) {
            path.fillFirstSegment();
            path.run();
            final String writeFirst = "write " + segmentName(0) + " 4096+" + (SEGMENT - HEADER);
            assertEquals(List.of(writeFirst), session.operations());

            // Scanned to the end, the next segment ready, the write in flight: no roll.
            path.run(IoRound.Kind.IO_THREAD, 3);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, path.positions.activeBase());
            assertEquals(List.of(writeFirst), session.operations());

            session.deliver(WRITE);
            path.run();
            final String seal = "write " + segmentName(0) + " 0+" + HEADER;
            assertEquals(List.of(writeFirst, seal), session.operations(), "the continued flag, before the sync");
            assertTrue(path.round.marker.continuedWritten());
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertEquals(List.of(writeFirst, seal), session.operations(), "the fence's sync waits for the flag");
            session.deliver(MARK);
            path.run();
            assertEquals(List.of(writeFirst, seal, "sync " + segmentName(0)), session.operations(), "the fence's sync");
            assertEquals(SEGMENT + HEADER, path.append(100), "the next frame is in the next segment");

            // Written, but the sync is in flight: still no roll, nothing written to segment 1.
            path.run(IoRound.Kind.IO_THREAD, 3);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, path.positions.activeBase());
            assertEquals(List.of(writeFirst, seal, "sync " + segmentName(0)), session.operations());

            session.deliver(SYNC);
            path.run();
            assertEquals(SEGMENT, path.positions.activeBase(), "rolled once written and synced");
            assertEquals(SEGMENT + HEADER, path.state.durablePosition());
            path.run();
            assertEquals(
                    List.of(
                            writeFirst,
                            seal,
                            "sync " + segmentName(0),
                            "close " + segmentName(0),
                            // 120 bytes of frames, written as their whole page.
                            "write " + segmentName(SEGMENT) + " 4096+4096"),
                    session.operations(),
                    "the segment after the new one is not prepared before a quarter of it is used");
        }
    }

    @Test
    void shouldPrepareTheNextSegmentOnlyOnceAQuarterOfTheActiveOneIsUsed() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final SegmentRoller roller = path.round.roller;
            // The first page holds the header: appends up to a page short of the quarter.
            while (path.logBuffer.tailPosition() < SEGMENT / 4 - 4096) {
                path.appendPage();
            }
            path.run(IoRound.Kind.CALLER);
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertFalse(roller.preparationDue());
            assertFalse(
                    session.operations().stream().anyMatch(op -> op.contains(temporaryName(SEGMENT))),
                    "prepared before a quarter of the segment was used: " + session.operations());

            path.appendPage();
            path.run(IoRound.Kind.CALLER);
            assertEquals(SEGMENT / 4, path.round.scanner.position());
            assertTrue(roller.preparationDue());
            assertTrue(path.round.ioThreadNeeded(), "an appender's round hands the due preparation to the I/O thread");
            path.run(IoRound.Kind.IO_THREAD);
            assertTrue(
                    session.operations().contains("open " + temporaryName(SEGMENT)),
                    session.operations().toString());
            assertFalse(roller.preparationDue(), "started once");
        }
    }

    @Test
    void shouldNotRollWhileTheDurabilityMarkIsBeingWritten() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(PREPARE);
        try (IoPath path = new IoPath(directory, session)) {
            writeAndSyncTheFirstSegment(path);
            assertTrue(session.operations().contains("open " + temporaryName(SEGMENT)), "preparation began");

            // Idle with records durable that no frame proves: the mark is written into segment 0's header.
            path.nowNs = System.nanoTime() + DurabilityMarker.MARK_IDLE_NS;
            path.run();
            assertTrue(path.round.marker.writeInFlight(), session.operations().toString());
            assertTrue(session.operations().contains("write " + segmentName(0) + " 0+4096"));

            prepareNextSegment(path);
            path.run(IoRound.Kind.IO_THREAD, 3);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, path.positions.activeBase(), "rolled with the mark's write in flight");
            assertFalse(session.operations().contains("close " + segmentName(0)));

            session.deliver(MARK);
            path.run();
            assertEquals(0, path.positions.activeBase(), "the continued flag is not written yet");
            assertTrue(
                    path.round.marker.continuedWritten(), session.operations().toString());
            session.deliver(MARK);
            path.run();
            assertEquals(0, path.positions.activeBase(), "the continued flag is not durable yet");
            session.deliver(SYNC);
            path.run();
            assertEquals(SEGMENT, path.positions.activeBase());
        }
    }

    @Test
    void shouldNotRollWhileASyncIsInFlight() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            writeAndSyncTheFirstSegment(path);
            path.nowNs = System.nanoTime() + DurabilityMarker.MARK_IDLE_NS;
            path.run();
            session.deliver(MARK);
            path.run();
            assertTrue(path.round.marker.awaitsSync());
            // The background interval is due: a sync of segment 0, for its mark, durable at the end.
            path.nowNs += 2 * 1_000_000_000L;
            path.run();
            assertTrue(path.round.syncs.inFlight(), session.operations().toString());
            assertEquals(SEGMENT, path.positions.durable());

            prepareNextSegment(path);
            path.run(IoRound.Kind.IO_THREAD, 3);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(0, path.positions.activeBase(), "rolled with a sync of the old segment in flight");
            assertFalse(session.operations().contains("close " + segmentName(0)));

            session.deliver(SYNC);
            path.run();
            assertEquals(0, path.positions.activeBase(), "the continued flag is written after that sync");
            session.deliver(MARK);
            path.run();
            session.deliver(SYNC);
            path.run();
            assertEquals(SEGMENT, path.positions.activeBase());
            assertEquals(SEGMENT + HEADER, path.positions.durable());
        }
    }

    @Test
    void shouldPrepareOnlyWhenNoFrameWaitsUntilTheAppendersComeNearTheSegmentsEnd() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final SegmentRoller roller = path.round.roller;
            final SegmentPreparer preparer = path.round.preparer;
            preparer.start(SEGMENT);
            session.operations().clear();
            assertEquals(0, roller.prepare(true), "frames wait");
            assertEquals(List.of(), session.operations());
            assertEquals(1, roller.prepare(false));
            assertEquals(List.of("allocate " + temporaryName(SEGMENT) + " 0+" + SEGMENT), session.operations());
            session.deliver(PREPARE);
            path.run(IoRound.Kind.CALLER);

            // 12 KiB from the end: more than an eighth of the segment.
            while (path.logBuffer.tailPosition() < SEGMENT - 12 * 1024) {
                path.appendPage();
            }
            path.run(IoRound.Kind.CALLER);
            assertEquals(0, roller.prepare(true));

            // 8 KiB from the end: the preparation no longer yields to the frames.
            path.appendPage();
            path.run(IoRound.Kind.CALLER);
            assertEquals(SEGMENT - SEGMENT / 8, path.round.scanner.position());
            assertEquals(1, roller.prepare(true));
        }
    }

    @Test
    void shouldStartPreparingTheNextSegmentOnlyOnceTheFenceHolds() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            // Appenders' rounds: the I/O thread's would start the preparation of an idle preparer.
            path.fillFirstSegment();
            path.run(IoRound.Kind.CALLER);
            session.deliver(WRITE);
            path.run(IoRound.Kind.CALLER);
            assertEquals(0, path.round.roller.maybeRoll(), "the sync is in flight");
            assertFalse(path.round.preparer.hasStepToSubmit());
            assertFalse(session.operations().contains("open " + temporaryName(SEGMENT)));
            session.deliver(SYNC);
            path.run(IoRound.Kind.CALLER);
            assertTrue(path.round.preparer.hasStepToSubmit(), "the roll waits for the next segment");
            assertTrue(session.operations().contains("open " + temporaryName(SEGMENT)));
            assertEquals(0, path.round.roller.maybeRoll());
            assertEquals(0, path.positions.activeBase());
        }
    }

    /** Fills segment 0 and runs it to written and synced at its end; the roll then waits for segment 1. */
    private static void writeAndSyncTheFirstSegment(final IoPath path) {
        path.fillFirstSegment();
        path.run();
        path.session.deliver(WRITE);
        path.run();
        path.session.deliver(SYNC);
        path.run();
        assertEquals(SEGMENT, path.positions.durable());
        assertEquals(0, path.positions.activeBase(), "segment 1 is not prepared");
    }

    /** Runs the I/O thread's rounds, delivering the preparation's completions, until segment 1 is ready. */
    private static void prepareNextSegment(final IoPath path) {
        for (int i = 0; i < 100 && !path.round.preparer.isReady(SEGMENT); i++) {
            if (path.session.heldCount(PREPARE) > 0) {
                path.session.deliver(PREPARE);
            }
            path.run();
        }
        assertTrue(
                path.round.preparer.isReady(SEGMENT), path.session.operations().toString());
    }
}
