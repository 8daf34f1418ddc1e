package io.walden.internal.io;

import static io.walden.internal.io.Futures.assertFailedWith;
import static io.walden.internal.io.Futures.causeOf;
import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static io.walden.internal.io.IoPath.temporaryName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shutting the path down after the I/O thread's last round: after a clean close, the clean close
 * recorded in the active segment's header and synced and an unfinished preparation removed; after a
 * failure, neither; the buffers freed only when no operation can read them; the futures left settled;
 * the state closed unless handed over.
 */
class IoShutdownTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long PREPARE = CompletionToken.PREPARE;

    @TempDir
    Path directory;

    @Test
    void shouldRecordTheCleanCloseRemoveTheUnfinishedPreparationAndSettleTheFutures() throws IOException {
        // Blocking operations use token 0.
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(0, WRITE, SYNC, PREPARE);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.requestSync(end);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(end, path.state.durablePosition());
            path.round.preparer.start(SEGMENT);
            final CompletableFuture<Long> reached = future(path, HEADER, Durability.SYNCED);
            final CompletableFuture<Long> beyond = future(path, end, Durability.WRITTEN);
            session.operations().clear();

            assertTrue(path.round.shutdown(false, false), "the buffers are freeable");
            path.buffersClosed();
            assertEquals(
                    List.of(
                            "write " + segmentName(0) + " 0+4096",
                            "sync " + segmentName(0),
                            "close " + temporaryName(SEGMENT),
                            "delete " + temporaryName(SEGMENT)),
                    session.operations());
            final ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(directory.resolve(segmentName(0))))
                    .order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(
                    SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY, header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET));
            assertEquals(end, header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET));
            assertEquals(HEADER, reached.getNow(-1L));
            final WalException closed = assertInstanceOf(WalException.class, causeOf(beyond));
            assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
            assertTrue(path.state.isClosed());
        }
    }

    @Test
    void shouldLeaveTheStateOpenWhenHandedOver() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(0);
        try (IoPath path = new IoPath(directory, session)) {
            assertTrue(path.round.shutdown(false, true));
            path.buffersClosed();
            assertFalse(path.state.isClosed());
        }
    }

    @Test
    void shouldWriteNothingAfterAFailureButRemoveThePreparationAndFailTheFutures() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(0);
        try (IoPath path = new IoPath(directory, session)) {
            path.round.preparer.start(SEGMENT);
            final CompletableFuture<Long> future = future(path, HEADER, Durability.SYNCED);
            final IOException cause = new IOException("disk gone");
            path.round.fail(cause);
            session.operations().clear();

            assertTrue(path.round.shutdown(true, false));
            path.buffersClosed();
            // No clean close, no write or sync of a segment; only the unfinished preparation's
            // temporary is removed, which on a full file system holds the space the log lacks.
            final String temporary = SegmentNames.temporaryName(SEGMENT);
            assertEquals(List.of("close " + temporary, "delete " + temporary), session.operations());
            assertFailedWith(cause, future, HEADER);
            assertTrue(path.state.isClosed());
        }
    }

    @Test
    void shouldNotFreeTheBuffersWhileAnOperationIsInFlight() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            path.appendPage();
            path.run();
            path.round.fail(new IOException("sync failed"));
            assertEquals(1, session.inFlight());
            assertFalse(path.round.shutdown(true, false), "the write in flight reads the buffer");
            assertTrue(path.state.isClosed());
            // Nothing was freed: the test frees the buffers itself.
        }
    }

    private static CompletableFuture<Long> future(final IoPath path, final long lsn, final Durability durability) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        path.round.asyncCompletions.add(new AsyncCompletions.Pending(lsn, durability, future));
        return future;
    }
}
