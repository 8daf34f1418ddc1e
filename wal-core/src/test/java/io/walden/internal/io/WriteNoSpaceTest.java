package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.segmentName;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write or header write that fails with ENOSPC is back-pressure (docs/design/full-disks.md): the log
 * does not fail, nothing moves past the failed write, nothing new is submitted while the writes drain
 * and wait, and after the retry time (or retention's completion) every write not yet retired is
 * submitted again with the same bytes; appenders read why they wait until a write lands. A sync that
 * fails with ENOSPC, and a write that fails with anything else, still fail the log.
 */
class WriteNoSpaceTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long MARK = CompletionToken.MARK;
    private static final String NO_SPACE = "No space left on device";
    /** A 1000-byte frame. */
    private static final int PAYLOAD = 1000 - FrameDescriptor.HEADER_LENGTH;

    private static final int FRAME = FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + PAYLOAD);

    @TempDir
    Path directory;

    private static IOException noSpace() {
        return new IOException("write to " + segmentName(0) + " failed: " + NO_SPACE);
    }

    /** Moves the path's clock past the retry time of a write that failed for space now. */
    private static void pastRetryTime(final IoPath path) {
        path.nowNs = System.nanoTime() + SegmentPreparer.NO_SPACE_RETRY_NS + 1;
    }

    @Test
    void shouldWriteAgainAfterTheRetryTimeAndNotFailTheLog() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.append(PAYLOAD) + FRAME;
            path.run();
            final List<String> first = List.copyOf(session.operations("write"));
            assertEquals(1, first.size());

            session.deliverFailure(WRITE, noSpace());
            path.nowNs = System.nanoTime();
            path.run();
            assertFalse(path.round.failed(), "no space is back-pressure, not a failure");
            assertEquals(HEADER, path.state.writtenPosition());
            assertTrue(path.round.writes.waitingForSpace());
            assertTrue(path.round.ioThreadNeeded(), "the I/O thread keeps the retry");
            final String shortage = path.state.spaceShortage();
            assertNotNull(shortage, "appenders learn why they wait");
            assertTrue(
                    shortage.contains(directory.toString())
                            && shortage.contains(NO_SPACE)
                            && shortage.contains("bytes free")
                            && shortage.contains("truncateBefore"),
                    shortage);

            // More frames come meanwhile: nothing is submitted before the retry time.
            final long second = path.append(PAYLOAD) + FRAME;
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertEquals(0, path.run(), "a round that waits for space does nothing (the I/O thread may park)");
            assertFalse(path.round.hasWorkHint());
            assertFalse(path.round.operationInFlight(), "no completion to wait for");
            assertEquals(first, session.operations("write"), "no write before the retry time");

            pastRetryTime(path);
            path.run();
            assertEquals(List.of(first.get(0), first.get(0)), session.operations("write"), "the same write again");
            // Frames below the written position are released (and cleared) once written: kept now.
            final byte[] frames = path.bufferBytes(HEADER, (int) (second - HEADER));
            session.deliver(WRITE);
            path.run();
            assertEquals(end, path.state.writtenPosition());
            assertNull(path.state.spaceShortage(), "cleared once a write landed");
            assertFalse(path.round.writes.waitingForSpace());
            // The frames that came meanwhile follow as usual.
            session.deliver(WRITE);
            path.run();
            assertEquals(second, path.state.writtenPosition());
            assertArrayEquals(frames, path.firstSegmentBytes(HEADER, (int) (second - HEADER)));
            assertEquals(
                    1,
                    path.stats
                            .snapshot("test", path.state, path.logBuffer, "ext4", null)
                            .writesWaitedForSpace());
            assertFalse(path.round.failed());
        }
    }

    @Test
    void shouldWriteAgainAtOnceWhenRetentionFreedSpace() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long end = appendAndFailForSpace(path, session);
            assertEquals(1, session.operations("write").size());
            path.round.writes.spaceFreed();
            path.nowNs = System.nanoTime();
            path.run();
            assertEquals(2, session.operations("write").size(), "written again without waiting");
            session.deliver(WRITE);
            path.run();
            assertEquals(end, path.state.writtenPosition());
        }
    }

    @Test
    void shouldDrainEveryDurableWriteInFlightAndWriteAgainEveryOneNotRetired() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = new IoPath(directory, session, HEADER, false, builder -> builder.durableWritesInFlightMax(16)
                .writeDepthMeasured(false))) {
            final long first = syncedAndRun(path);
            syncedAndRun(path);
            final long third = syncedAndRun(path);
            final List<String> writes = List.copyOf(session.operations("write"));
            assertEquals(3, writes.size());

            // The third lands, the second fails for space, the first lands last.
            session.deliverNewest(WRITE);
            session.deliverNewestFailure(WRITE, noSpace());
            path.nowNs = System.nanoTime();
            path.run();
            assertTrue(path.round.writes.inFlight(), "the first is still out");
            session.deliver(WRITE);
            path.run();
            assertFalse(path.round.failed());
            assertEquals(first, path.state.durablePosition(), "the prefix before the failed write only");
            assertEquals(first, path.positions.released());

            syncedAndRun(path);
            assertEquals(3, session.operations("write").size(), "nothing new while the writes wait");

            pastRetryTime(path);
            path.run();
            assertEquals(
                    List.of(writes.get(1), writes.get(2)),
                    session.operations("write").subList(3, 5),
                    "every write not retired, the one that landed too, with the same bytes");
            session.deliver(WRITE);
            session.deliver(WRITE);
            path.run();
            assertEquals(third, path.state.durablePosition());
            assertFalse(path.round.failed());
        }
    }

    /** Direct I/O: whichever part finds no space, the other's landing completes nothing. */
    @ParameterizedTest(name = "blocks part fails: {0}")
    @ValueSource(booleans = {true, false})
    void shouldWriteBothPartsAgainWhicheverFoundNoSpace(final boolean blocksFail) throws IOException {
        final HeldCompletionSession session =
                new HeldCompletionSession().directIo(true).writesDurable(true);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.append(PAYLOAD + 4096) + FRAME + 4096;
            path.requestSync(end);
            path.run();
            final List<String> parts = List.copyOf(session.operations("write"));
            assertEquals(2, parts.size(), "whole blocks and the partial last one: " + parts);
            if (blocksFail) {
                session.deliverFailure(WRITE, noSpace());
                session.deliver(WRITE);
            } else {
                session.deliver(WRITE);
                session.deliverFailure(WRITE, noSpace());
            }
            path.nowNs = System.nanoTime();
            path.run();
            assertFalse(path.round.failed());
            assertEquals(HEADER, path.state.writtenPosition(), "nothing written past the part that found no space");
            assertEquals(HEADER, path.state.durablePosition());
            assertTrue(path.round.writes.waitingForSpace());

            pastRetryTime(path);
            path.run();
            assertEquals(parts, session.operations("write").subList(2, 4));
            final byte[] frames = path.bufferBytes(HEADER, (int) (end - HEADER));
            session.deliverAll();
            path.run();
            assertEquals(end, path.state.durablePosition());
            assertArrayEquals(
                    frames,
                    path.firstSegmentBytes(HEADER, (int) (end - HEADER)),
                    "the block written from scratch memory again holds the frames");
        }
    }

    @Test
    void shouldGiveUpClosingAfterTheAppendTimeoutWhileAWriteWaitsForSpace() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(
                directory, session, HEADER, false, builder -> builder.appendTimeoutNs(TimeUnit.SECONDS.toNanos(2)))) {
            final long end = appendAndFailForSpace(path, session);
            path.round.requestClose();
            path.run();
            assertFalse(path.round.hasWorkHint(), "closing while the log waits for space: no spin");
            path.nowNs += TimeUnit.SECONDS.toNanos(1);
            path.run();
            assertFalse(path.round.failed(), "still within the append timeout");
            assertFalse(path.round.isClosable());

            path.nowNs += TimeUnit.SECONDS.toNanos(2);
            path.run();
            assertTrue(path.round.failed(), "closing gave up");
            assertTrue(path.round.isClosable());
            final WalException abandoned = path.round.closeAbandonment();
            assertNotNull(abandoned);
            assertEquals(WalException.ErrorCode.STORAGE_SPACE, abandoned.errorCode());
            final String message = abandoned.getMessage();
            assertTrue(
                    message.contains(directory.toString())
                            && message.contains("2000 ms (appendTimeoutNs)")
                            && message.contains("from position " + HEADER + " to " + end)
                            && message.contains(NO_SPACE),
                    message);
            assertEquals(HEADER, path.state.writtenPosition());
        }
    }

    @Test
    void shouldGiveUpClosingThoughOnePartOfEachRetryLands() throws IOException {
        final HeldCompletionSession session =
                new HeldCompletionSession().directIo(true).writesDurable(true);
        try (IoPath path = new IoPath(
                directory, session, HEADER, false, builder -> builder.appendTimeoutNs(TimeUnit.SECONDS.toNanos(10)))) {
            final long end = path.append(PAYLOAD + 4096) + FRAME + 4096;
            path.requestSync(end);
            path.run();
            long nowNs = System.nanoTime();
            path.nowNs = nowNs;
            session.deliver(WRITE);
            session.deliverFailure(WRITE, noSpace());
            path.run();
            path.round.requestClose();
            path.run();
            for (int retry = 0; retry < 5; retry++) {
                // Each retry's whole blocks land and its partial last block finds no space again.
                nowNs = Math.max(nowNs, System.nanoTime()) + 2 * SegmentPreparer.NO_SPACE_RETRY_NS;
                path.nowNs = nowNs;
                path.run();
                session.deliver(WRITE);
                session.deliverFailure(WRITE, noSpace());
                path.run();
                assertNotNull(path.state.spaceShortage(), "a part that landed is no write that landed");
            }
            assertFalse(path.round.failed());
            nowNs += TimeUnit.SECONDS.toNanos(10);
            path.nowNs = nowNs;
            path.run();
            assertTrue(path.round.failed(), "closing gave up");
            assertNotNull(path.round.closeAbandonment());
        }
    }

    @Test
    void shouldCloseWithoutGivingUpOnceTheWriteLanded() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long end = appendAndFailForSpace(path, session);
            path.round.requestClose();
            path.run();
            pastRetryTime(path);
            path.run();
            session.deliver(WRITE);
            path.run();
            assertEquals(end, path.state.writtenPosition());
            assertFalse(path.round.failed());
            assertNull(path.round.closeAbandonment());
        }
    }

    @Test
    void shouldFailTheLogOnAnyOtherWriteError() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            path.append(PAYLOAD);
            path.run();
            session.deliverFailure(WRITE, new IOException("write failed: Input/output error"));
            path.run();
            assertTrue(path.round.failed());
        }
    }

    @Test
    void shouldFailTheLogWhenASyncFindsNoSpace() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.append(PAYLOAD) + FRAME;
            path.requestSync(end);
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertEquals(1, session.heldCount(SYNC), session.operations().toString());
            session.deliverFailure(SYNC, new IOException("fdatasync failed: " + NO_SPACE));
            path.run();
            assertTrue(path.round.failed(), "a failed sync may have lost pages: never retried");
            assertEquals(HEADER, path.state.durablePosition());
        }
    }

    @Test
    void shouldWriteAHeaderThatFoundNoSpaceAgainLater() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE, SYNC);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.append(PAYLOAD) + FRAME;
            path.requestSync(end);
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertEquals(end, path.state.durablePosition());
            // Idle long enough for the durability mark.
            path.nowNs = System.nanoTime() + DurabilityMarker.MARK_IDLE_NS * 2;
            path.run();
            assertEquals(1, session.heldCount(MARK), session.operations().toString());
            session.deliverFailure(MARK, new IOException("write of the header failed: " + NO_SPACE));
            path.run();
            assertFalse(path.round.failed(), "a header write that found no space is back-pressure");
            assertFalse(path.round.marker.writeInFlight());
            assertNotNull(path.state.spaceShortage());
            assertEquals(
                    0,
                    path.stats
                            .snapshot("test", path.state, path.logBuffer, "ext4", null)
                            .durabilityMarks());
            final int headerWrites = session.operations("write").size();
            path.run();
            assertEquals(headerWrites, session.operations("write").size(), "not again before the retry time");

            path.round.marker.spaceFreed();
            path.run();
            assertEquals(1, session.heldCount(MARK), "written again");
            session.deliver(MARK);
            path.run();
            assertNull(path.state.spaceShortage());
            assertEquals(
                    1,
                    path.stats
                            .snapshot("test", path.state, path.logBuffer, "ext4", null)
                            .durabilityMarks());
        }
    }

    /** Appends a frame, runs its write and fails it for space; where the frame ends. */
    private static long appendAndFailForSpace(final IoPath path, final HeldCompletionSession session) {
        final long end = path.append(PAYLOAD) + FRAME;
        path.run();
        session.deliverFailure(WRITE, noSpace());
        path.nowNs = System.nanoTime();
        path.run();
        return end;
    }

    private static long syncedAndRun(final IoPath path) {
        final long end = path.append(PAYLOAD) + FRAME;
        path.requestSync(end);
        path.run();
        return end;
    }
}
