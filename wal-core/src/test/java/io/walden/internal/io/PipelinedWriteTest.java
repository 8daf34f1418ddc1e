package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.segmentName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several durable writes in flight (O_DSYNC), against a session whose completions the test delivers in
 * any order: the written and durable positions move only over the completed prefix; a failure
 * acknowledges nothing after it, even what completes later; no two writes in flight touch one block
 * (with direct I/O a group written under load is sealed at its block's end with a padding frame; a
 * lone writer's is not, and the next write waits for it); the bound holds; fdatasync mode keeps one.
 */
class PipelinedWriteTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final int BLOCK = 4096;
    /** A 1000-byte frame. */
    private static final int PAYLOAD = 1000 - FrameDescriptor.HEADER_LENGTH;

    private static final int FRAME = FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + PAYLOAD);

    @TempDir
    Path directory;

    private IoPath path(final HeldCompletionSession session, final int inFlightMax) throws IOException {
        // Depth unmeasured: these tests are about what several writes in flight do, not when to have them.
        return new IoPath(directory, session, HEADER, false, builder -> builder.durableWritesInFlightMax(inFlightMax)
                .writeDepthMeasured(false));
    }

    /** Appends a frame, asks for it to be durable and runs a round: under load, a write each. */
    private static long appendSyncedAndRun(final IoPath path) {
        final long end = path.append(PAYLOAD) + FRAME;
        path.requestSync(end);
        path.run();
        return end;
    }

    @Test
    void shouldMoveTheDurablePositionOnlyOverTheCompletedPrefix() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = path(session, 16)) {
            final long first = appendSyncedAndRun(path);
            final long second = appendSyncedAndRun(path);
            final long third = appendSyncedAndRun(path);
            assertEquals(
                    List.of(write(HEADER, FRAME), write(first, FRAME), write(second, FRAME)),
                    session.operations(),
                    "three groups in flight at once");
            assertEquals(3, path.round.writes.inFlightCount());

            // The newest completes first, then the second: both wait for the first.
            session.deliverNewest(WRITE);
            path.run();
            session.deliverNewest(WRITE);
            path.run();
            assertEquals(HEADER, path.positions.durable());
            assertEquals(HEADER, path.state.durablePosition());
            assertEquals(HEADER, path.state.writtenPosition());
            assertEquals(HEADER, path.positions.released(), "nothing released behind a write in flight");

            session.deliver(WRITE);
            path.run();
            assertEquals(third, path.positions.durable());
            assertEquals(third, path.state.durablePosition());
            assertEquals(3, path.positions.durableRecords());
            assertFalse(path.round.writes.inFlight());
            assertEquals(
                    3,
                    path.stats
                            .snapshot("test", path.state, path.logBuffer, "ext4", null)
                            .writesInFlightPeak());
        }
    }

    @Test
    void shouldAcknowledgeNothingAfterAFailedWriteEvenWhatCompletesLater() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = path(session, 16)) {
            final long first = appendSyncedAndRun(path);
            appendSyncedAndRun(path);
            appendSyncedAndRun(path);
            session.deliver(WRITE);
            path.run();
            assertEquals(first, path.state.durablePosition());

            session.deliverFailure(WRITE, new IOException("EIO"));
            path.run();
            assertTrue(path.round.failed());
            session.deliver(WRITE);
            path.round.drain();
            assertEquals(first, path.positions.durable());
            assertEquals(first, path.state.durablePosition());
            assertEquals(first, path.state.writtenPosition());
        }
    }

    @Test
    void shouldKeepAtMostTheBoundInFlight() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = path(session, 2)) {
            final long first = appendSyncedAndRun(path);
            final long second = appendSyncedAndRun(path);
            appendSyncedAndRun(path);
            appendSyncedAndRun(path);
            assertEquals(2, session.operations("write").size());
            session.deliver(WRITE);
            path.run();
            assertEquals(first, path.state.durablePosition());
            assertEquals(
                    List.of(write(HEADER, FRAME), write(first, FRAME), write(second, 2 * FRAME)),
                    session.operations(),
                    "the third write waited for a place and took both frames that came meanwhile");
            assertEquals(2, path.round.writes.inFlightCount());
        }
    }

    @Test
    void shouldKeepOneWriteInFlightWithFdatasync() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = path(session, 16)) {
            appendSyncedAndRun(path);
            appendSyncedAndRun(path);
            assertEquals(1, session.operations("write").size());
            assertEquals(1, path.round.writes.inFlightCount());
        }
    }

    @Test
    void shouldSealAGroupWrittenUnderLoadAtItsBlockEndAndWriteTheNextBesideIt() throws IOException {
        final HeldCompletionSession session =
                new HeldCompletionSession().directIo(true).writesDurable(true);
        try (IoPath path = path(session, 16)) {
            // Two waiters: the group is sealed with a padding frame to its block's end.
            path.append(PAYLOAD);
            path.requestSync(HEADER + FRAME);
            path.requestSync(HEADER + FRAME);
            path.run();
            assertEquals(List.of(write(HEADER, BLOCK)), session.operations());
            assertEquals(HEADER + BLOCK, path.logBuffer.tailPosition(), "the next claim starts on the next block");
            // A write is in flight: the next group is sealed too, and written beside it.
            final long second = path.append(PAYLOAD);
            assertEquals(HEADER + BLOCK, second);
            path.requestSync(second + FRAME);
            path.run();
            assertEquals(List.of(write(HEADER, BLOCK), write(HEADER + BLOCK, BLOCK)), session.operations());
            assertEquals(
                    2L * (BLOCK - FRAME),
                    path.stats
                            .snapshot("test", path.state, path.logBuffer, "ext4", null)
                            .pipelinePaddingBytes());

            session.deliverNewest(WRITE);
            path.run();
            assertEquals(HEADER, path.state.durablePosition());
            session.deliver(WRITE);
            path.run();
            assertEquals(HEADER + 2 * BLOCK, path.state.durablePosition());
            assertEquals(2, path.positions.durableRecords());
        }
    }

    @Test
    void shouldNotSealALoneWritersGroupAndWriteNothingBesideItsPartialBlock() throws IOException {
        final HeldCompletionSession session =
                new HeldCompletionSession().directIo(true).writesDurable(true);
        try (IoPath path = path(session, 16)) {
            final long first = appendSyncedAndRun(path);
            assertEquals(List.of(write(HEADER, BLOCK)), session.operations());
            assertEquals(first, path.logBuffer.tailPosition(), "no padding for a lone writer");
            assertEquals(List.of(CompletionToken.ofWrite(0) | CompletionToken.WRITE_TAIL), session.heldTokens(WRITE));

            // The next frame shares the partial block: its write waits for the one in flight.
            appendSyncedAndRun(path);
            path.run();
            assertEquals(1, session.operations("write").size());
            session.deliver(WRITE);
            path.run();
            assertEquals(first, path.state.durablePosition());
            assertEquals(List.of(write(HEADER, BLOCK), write(HEADER, BLOCK)), session.operations());
        }
    }

    private static String write(final long fileOffset, final int length) {
        return "write " + segmentName(0) + " " + fileOffset + "+" + length;
    }
}
