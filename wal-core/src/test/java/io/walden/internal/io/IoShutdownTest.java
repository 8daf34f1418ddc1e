package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static io.walden.internal.io.IoPath.temporaryName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shutting the path down after the I/O thread's last round: after a clean close, the clean close
 * recorded in the active segment's header and synced and an unfinished preparation removed; after a
 * failure, neither; the buffers freed only when no operation can read them; the asynchronous appenders' ready signals run;
 * the state closed unless handed over.
 */
class IoShutdownTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long PREPARE = CompletionToken.PREPARE;

    @TempDir
    Path directory;

    @Test
    void shouldRecordTheCleanCloseRemoveTheUnfinishedPreparationAndRunTheReadySignals() throws IOException {
        // Blocking operations use token 0.
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(0, WRITE, SYNC, PREPARE);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.requestSync(end);
            path.run(IoRound.Kind.CALLER, 3);
            assertEquals(end, path.state.durablePosition());
            path.round.preparer.start(SEGMENT);
            // A record past the end: its acknowledgement fails as the log closes (CLOSED).
            final AckSignals signals = AckSignals.watching(path, end, Durability.WRITTEN);
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
            assertTrue(path.state.isClosed());
            assertEquals(end, path.state.writtenPosition());
            assertEquals(1, signals.count(), "no ready signal as the log closed");
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
    void shouldWriteNothingAfterAFailureButRemoveThePreparationAndRunTheReadySignals() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(0);
        try (IoPath path = new IoPath(directory, session)) {
            path.round.preparer.start(SEGMENT);
            final AckSignals signals = AckSignals.watching(path, HEADER, Durability.SYNCED);
            final IOException cause = new IOException("disk gone");
            path.round.fail(cause);
            session.operations().clear();

            assertTrue(path.round.shutdown(true, false));
            path.buffersClosed();
            // No clean close, no write or sync of a segment; only the unfinished preparation's
            // temporary is removed, which on a full file system holds the space the log lacks.
            final String temporary = SegmentNames.temporaryName(SEGMENT);
            assertEquals(List.of("close " + temporary, "delete " + temporary), session.operations());
            assertEquals(1, signals.count());
            assertSame(cause, path.state.failure());
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
}
