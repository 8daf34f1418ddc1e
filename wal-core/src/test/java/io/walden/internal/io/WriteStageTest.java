package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.segmentName;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write stage against a session whose completions the test delivers: one write in flight,
 * straight from the log buffer at the frames' file offset; the written position published only once
 * the whole write completed; a short write fails the log; with direct I/O, whole blocks from the
 * buffer and the partial last block from scratch memory padded with zeros (two parts, the tail's token
 * marked), rewritten in place by the next write, and a long batch cut to whole blocks.
 */
class WriteStageTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final int BLOCK = 4096;
    /** A 1000-byte payload: a frame of 1,016 bytes. */
    private static final int PAYLOAD = 1000 - FrameDescriptor.HEADER_LENGTH;

    private static final int FRAME = FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + PAYLOAD);

    @TempDir
    Path directory;

    @Test
    void shouldWriteTheFramesFromTheBufferAndPublishOnlyOnceTheWriteCompleted() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            path.append(PAYLOAD);
            final long end = path.append(PAYLOAD) + FRAME;
            path.run();
            // The frames, and the rest of their page from the buffer: released space, zeros.
            assertEquals(List.of(write(HEADER, BLOCK)), session.operations());
            assertTrue(path.round.writes.inFlight());
            assertEquals(HEADER, path.positions.written());
            assertEquals(HEADER, path.state.writtenPosition());
            assertEquals(HEADER, path.positions.released());
            final byte[] frames = path.bufferBytes(HEADER, 2 * FRAME);

            session.deliver(WRITE);
            path.run();
            assertFalse(path.round.writes.inFlight());
            assertEquals(end, path.positions.written());
            assertEquals(end, path.state.writtenPosition());
            assertEquals(end, path.positions.released());
            assertEquals(2, path.positions.writtenRecords());
            assertArrayEquals(frames, path.firstSegmentBytes(HEADER, 2 * FRAME));
            assertArrayEquals(
                    new byte[BLOCK - 2 * FRAME], path.firstSegmentBytes(HEADER + 2 * FRAME, BLOCK - 2 * FRAME));
        }
    }

    @Test
    void shouldNotPadAWriteThatIsItsOwnSync() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = new IoPath(directory, session)) {
            path.append(PAYLOAD);
            path.run();
            assertEquals(List.of(write(HEADER, FRAME)), session.operations());
        }
    }

    @Test
    void shouldKeepOneWriteInFlightAndStartTheNextWhereItEnded() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long first = path.append(PAYLOAD) + FRAME;
            path.run();
            path.append(PAYLOAD);
            path.append(PAYLOAD);
            path.run(IoRound.Kind.IO_THREAD, 2);
            path.run(IoRound.Kind.CALLER);
            assertEquals(List.of(write(HEADER, BLOCK)), session.operations(), "a second write while one is in flight");
            session.deliver(WRITE);
            path.run();
            // The next write starts where the frames ended, in the page the last one padded: no padding.
            assertEquals(List.of(write(HEADER, BLOCK), write(first, 2 * FRAME)), session.operations());
            assertEquals(first, path.positions.written());
        }
    }

    @Test
    void shouldFailTheLogOnAShortWriteAndPublishNothing() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            path.append(PAYLOAD);
            path.run();
            session.deliverWithResult(WRITE, FRAME - 8);
            path.run();
            assertTrue(path.round.failed());
            assertEquals(HEADER, path.positions.written());
            assertEquals(HEADER, path.state.writtenPosition());
            assertNotNull(path.state.failure());
            final String message = path.state.failure().getMessage();
            assertTrue(message.startsWith("short write: the storage backend reported " + (FRAME - 8)), message);
            assertTrue(message.contains("[" + HEADER + ", " + (HEADER + FRAME) + ")"), message);
        }
    }

    @Test
    void shouldPublishNothingWhenTheWriteEndedWhereTheWrittenPositionStands() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final WriteStage writes = path.round.writes;
            final long end = path.append(PAYLOAD) + FRAME;
            path.run();
            // The write is the frame's whole page.
            assertEquals(WriteStage.Outcome.SHORT, writes.onComplete(CompletionToken.of(WRITE), FRAME));
            assertEquals(WriteStage.Outcome.COMPLETE, writes.onComplete(CompletionToken.of(WRITE), BLOCK));
            assertTrue(writes.retireOldest());
            assertTrue(writes.publishWritten());
            assertEquals(end, path.state.writtenPosition());
            assertFalse(writes.retireOldest(), "nothing more in flight");
            assertFalse(writes.publishWritten(), "the same end again");
            assertEquals(end, path.positions.written());
            assertEquals(1, path.positions.writtenRecords());
        }
    }

    @Test
    void shouldWriteTheWholeBlocksAndThePaddedLastBlockInTwoPartsWithDirectIo() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().directIo(true);
        try (IoPath path = new IoPath(directory, session)) {
            path.appendPage();
            final long end = path.append(PAYLOAD) + FRAME;
            assertEquals(2 * BLOCK + FRAME, end);
            path.run();
            assertEquals(List.of(write(BLOCK, BLOCK), write(2 * BLOCK, BLOCK)), session.operations());
            final long token = CompletionToken.of(WRITE);
            assertEquals(List.of(token, token | CompletionToken.WRITE_TAIL), session.heldTokens(WRITE));
            final byte[] frames = path.bufferBytes(BLOCK, BLOCK + FRAME);

            // The tail part first: the write is not complete until both are.
            session.deliverAll();
            final WriteStage writes = path.round.writes;
            session.poll(
                    (t, result, failure) -> assertEquals(
                            CompletionToken.isWriteTail(t)
                                    ? WriteStage.Outcome.COMPLETE
                                    : WriteStage.Outcome.PART_PENDING,
                            writes.onComplete(t, result)),
                    1);
            assertEquals(HEADER, path.positions.written());
            assertTrue(writes.inFlight());
            session.poll(
                    (t, result, failure) -> {
                        assertEquals(WriteStage.Outcome.COMPLETE, writes.onComplete(t, result));
                        assertTrue(writes.retireOldest());
                        assertTrue(writes.publishWritten());
                    },
                    1);
            assertEquals(end, path.positions.written());
            assertEquals(2 * BLOCK, path.positions.released(), "the partial block stays for the next write");
            assertArrayEquals(frames, path.firstSegmentBytes(BLOCK, BLOCK + FRAME));
            assertArrayEquals(new byte[BLOCK - FRAME], path.firstSegmentBytes(2 * BLOCK + FRAME, BLOCK - FRAME));

            // The next write rewrites the partial block in place, with the next frame.
            path.append(PAYLOAD);
            path.run();
            assertEquals(write(2 * BLOCK, BLOCK), session.operations().get(2));
            assertEquals(List.of(token | CompletionToken.WRITE_TAIL), session.heldTokens(WRITE));
            final byte[] rewritten = path.bufferBytes(2 * BLOCK, 2 * FRAME);
            assertArrayEquals(path.firstSegmentBytes(2 * BLOCK, FRAME), Arrays.copyOf(rewritten, FRAME));
            session.deliver(WRITE);
            path.run();
            assertEquals(end + FRAME, path.positions.written());
            assertArrayEquals(rewritten, path.firstSegmentBytes(2 * BLOCK, 2 * FRAME));
        }
    }

    @Test
    void shouldFailTheLogWhenTheTailPartReportsOnlyTheFramesItHolds() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().directIo(true);
        try (IoPath path = new IoPath(directory, session)) {
            path.append(PAYLOAD);
            path.run();
            assertEquals(List.of(write(BLOCK, BLOCK)), session.operations(), "the tail part alone");
            session.deliverWithResult(WRITE, FRAME);
            path.run();
            assertTrue(path.round.failed(), "the tail part writes a whole block");
            assertEquals(HEADER, path.state.writtenPosition());
        }
    }

    @Test
    void shouldCutALongDirectBatchToWholeBlocksAndRewriteTheCutBlockNext() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().directIo(true);
        try (IoPath path = new IoPath(directory, session, HEADER, false, 2 * BLOCK)) {
            for (int i = 0; i < 5; i++) {
                path.append(PAYLOAD);
            }
            path.run();
            // 5,080 bytes, at least half the batch limit: the whole block only, ending at frame 4.
            assertEquals(List.of(write(BLOCK, BLOCK)), session.operations());
            assertEquals(List.of(CompletionToken.of(WRITE)), session.heldTokens(WRITE));
            session.deliver(WRITE);
            path.run();
            final long cut = HEADER + 4L * FRAME;
            assertEquals(cut, path.state.writtenPosition());
            assertEquals(4, path.positions.writtenRecords());
            assertEquals(BLOCK, path.positions.released());
            // The frame past the cut: its block rewritten from the buffer, and the padded tail.
            assertEquals(
                    List.of(write(BLOCK, BLOCK), write(BLOCK, BLOCK), write(2 * BLOCK, BLOCK)), session.operations());
            session.deliverAll();
            path.run();
            assertEquals(HEADER + 5L * FRAME, path.state.writtenPosition());
            assertEquals(5, path.positions.writtenRecords());
        }
    }

    private static String write(final long offset, final int length) {
        return "write " + segmentName(0) + " " + offset + "+" + length;
    }
}
