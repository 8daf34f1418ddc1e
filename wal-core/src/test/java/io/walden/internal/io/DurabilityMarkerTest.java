package io.walden.internal.io;

import static io.walden.internal.io.IoPath.LOG_ID;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.PendingWrite;
import io.walden.internal.state.StatsCounters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durability mark against a session whose completions the test delivers: when a mark is due,
 * what its header write holds, what a short write does, which sync makes it durable, and the clean
 * close record.
 */
class DurabilityMarkerTest {
    private static final long MARK = CompletionToken.MARK;
    private static final long IDLE = DurabilityMarker.MARK_IDLE_NS;
    private static final long NOW = 1_000_000_000L;
    private static final byte REPAIR_BYTE = 0x7A;

    @TempDir
    Path directory;

    private HeldCompletionSession session;
    private DurabilityMarker marker;
    private int handle;

    @BeforeEach
    void open() throws IOException {
        // Blocking operations (the clean close) use token 0.
        session = new HeldCompletionSession().autoDeliver(0);
        handle = session.openFile(SegmentNames.segmentPath(directory, 0), true);
        session.operations().clear();
        marker = marker(new DurabilityMarker.ActiveSegment(4096, 0, false));
    }

    @AfterEach
    void close() {
        marker.close();
        session.close();
    }

    @Test
    void shouldBeDueOnlyWhenRecordsAreDurableThatNothingProvesAndTheLogIdled() {
        assertTrue(marker.due(NOW, 8192, NOW - IDLE, 4096));
        assertFalse(marker.due(NOW, 8192, NOW - IDLE, 8192), "a frame proves it");
        assertFalse(marker.due(NOW, 8192, NOW - IDLE + 1, 4096), "not idle long enough");
        marker.write(8192, 0, handle);
        assertFalse(marker.due(NOW, 12288, NOW - IDLE, 4096), "a mark is being written");
        assertNull(marker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0));
        assertFalse(marker.due(NOW, 8192, NOW - IDLE, 4096), "the header proves it");
        assertTrue(marker.due(NOW, 12288, NOW - IDLE, 4096));
    }

    @Test
    void shouldWriteTheDurablePositionIntoTheActiveSegmentsHeader() throws IOException {
        assertEquals(1, marker.write(8192, 0, handle));
        assertEquals(List.of("write " + segmentName(0) + " 0+4096"), session.operations());
        assertEquals(List.of(CompletionToken.of(MARK)), session.heldTokens(MARK));
        assertTrue(marker.writeInFlight());
        assertFalse(marker.awaitsSync(), "in flight");
        final ByteBuffer header = header();
        assertEquals(SegmentHeaderDescriptor.MAGIC, header.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET));
        assertEquals(LOG_ID, header.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET));
        assertEquals(8192, header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET));
        assertEquals(0, header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET));

        assertNull(marker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0));
        assertFalse(marker.writeInFlight());
        assertTrue(marker.awaitsSync());
    }

    @Test
    void shouldFailAShortWriteAndKeepTheMarkDue() {
        marker.write(8192, 0, handle);
        final IOException failure = marker.onWritten(100, 0);
        assertNotNull(failure);
        assertTrue(
                failure.getMessage().startsWith("short write: the storage backend reported 100"), failure.getMessage());
        assertFalse(marker.writeInFlight());
        assertFalse(marker.awaitsSync());
        assertTrue(marker.due(NOW, 8192, NOW - IDLE, 4096), "the header does not prove it");
    }

    @Test
    void shouldBeMadeDurableOnlyByASyncSubmittedAfterItWasWritten() {
        marker.onSyncSubmitted();
        marker.write(8192, 0, handle);
        marker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0);
        marker.onSynced();
        assertTrue(marker.awaitsSync(), "a sync submitted before the mark was written");
        marker.onSyncSubmitted();

        // A newer mark written while that sync was in flight.
        marker.write(12288, 0, handle);
        assertFalse(marker.awaitsSync(), "in flight");
        marker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0);
        marker.onSynced();
        assertTrue(marker.awaitsSync(), "the sync covered the older mark only");
        marker.onSyncSubmitted();
        marker.onSynced();
        assertFalse(marker.awaitsSync());
    }

    @Test
    void shouldHoldWritesPastTheDurableLimitUntilASyncCoversTheRaisedOne() throws IOException {
        final DurabilityMarker limited = marker(new DurabilityMarker.ActiveSegment(4096, 8192, false));
        try {
            assertTrue(limited.allowsWrite(8192, 0));
            assertFalse(limited.allowsWrite(8200, 0), "past the limit");
            assertEquals(0, limited.maybeRaiseLimit(4096 + 1024, 0, handle), "not due: far below the limit");
            assertEquals(1, limited.maybeRaiseLimit(8200, 0, handle));
            final int raised = header().getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET);
            assertTrue(raised >= 8200 && raised % 4096 == 0, "raised to " + raised);
            assertFalse(limited.allowsWrite(8200, 0), "in flight");
            assertFalse(limited.limitWaitsForSync(8200, 0), "in flight: nothing to sync yet");
            assertNull(limited.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0));
            assertFalse(limited.allowsWrite(8200, 0), "written, not durable");
            assertTrue(limited.limitWaitsForSync(8200, 0));
            limited.onSyncSubmitted();
            limited.onSynced();
            assertTrue(limited.allowsWrite(raised, 0));
            assertFalse(limited.allowsWrite(raised + 8, 0));
            assertFalse(limited.limitWaitsForSync(8200, 0));
        } finally {
            limited.close();
        }
    }

    @Test
    void shouldWithdrawADeferredCleanCloseWithTheLimitBeforeAnyWritePastIt() throws IOException {
        // Recovery could not rewrite the header (no space): it still records the clean close at 8192.
        final DurabilityMarker deferred = marker(new DurabilityMarker.ActiveSegment(8192, 16384, false, true, null));
        try {
            assertTrue(deferred.allowsWrite(8192, 0));
            assertFalse(deferred.allowsWrite(8200, 0), "nothing past the clean close before it is withdrawn");
            assertEquals(1, deferred.maybeRaiseLimit(8200, 0, handle), "the withdrawal goes at once");
            final ByteBuffer header = header();
            assertEquals(16384, header.getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET), "the session's limit");
            assertEquals(
                    0,
                    header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET) & SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY,
                    "the clean close withdrawn");
            assertEquals(8192, header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET), "what is durable");
            assertFalse(deferred.allowsWrite(8200, 0), "in flight");
            assertNull(deferred.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0));
            assertFalse(deferred.allowsWrite(8200, 0), "written, not durable");
            assertTrue(deferred.limitWaitsForSync(8200, 0));
            deferred.onSyncSubmitted();
            deferred.onSynced();
            assertTrue(deferred.allowsWrite(16384, 0));
            assertFalse(deferred.allowsWrite(16392, 0));
            assertEquals(0, deferred.maybeRaiseLimit(8200, 0, handle), "withdrawn once");
        } finally {
            deferred.close();
        }
    }

    @Test
    void shouldWriteAndSyncADeferredTailRepairBeforeAnyHeader() throws IOException {
        // Recovery could not write the discard frame after a crashed log's last record (no space): it
        // is to cover the positions up to the old limit, 8192, where the session starts.
        final DurabilityMarker deferred =
                marker(new DurabilityMarker.ActiveSegment(8192, 16384, false, true, repair()));
        try {
            assertFalse(deferred.allowsWrite(8200, 0));
            assertEquals(1, deferred.maybeRaiseLimit(8200, 0, handle), "the repair goes first");
            assertEquals(List.of("write " + segmentName(0) + " 4096+4096"), session.operations());
            assertTrue(deferred.onNoSpace(new IOException("No space left on device"), 0), "space is back-pressure");
            assertTrue(deferred.spaceShortage().contains("discard frame"), deferred.spaceShortage());
            deferred.spaceFreed();
            assertEquals(1, deferred.maybeRaiseLimit(8200, 0, handle), "written again");
            assertNull(deferred.onWritten(4096, 0));
            assertEquals(REPAIR_BYTE, header().get(4096 + 100), "the repair landed");
            assertEquals(0, deferred.maybeRaiseLimit(8200, 0, handle), "no header before the repair is durable");
            assertTrue(deferred.limitWaitsForSync(8200, 0), "the frames need a sync for it");
            deferred.onSyncSubmitted();
            deferred.onSynced();
            assertEquals(1, deferred.maybeRaiseLimit(8200, 0, handle), "then the header");
            assertEquals(16384, header().getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET));
            assertNull(deferred.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0));
            deferred.onSyncSubmitted();
            deferred.onSynced();
            assertTrue(deferred.allowsWrite(16384, 0));
        } finally {
            deferred.close();
        }
    }

    @Test
    void shouldWriteAndSyncAnUnwrittenTailRepairBeforeTheCleanClose() throws IOException {
        final DurabilityMarker deferred =
                marker(new DurabilityMarker.ActiveSegment(8192, 16384, false, true, repair()));
        try {
            deferred.recordCleanClose(new BlockingIo(session), 0, handle, 8192);
            assertEquals(
                    List.of(
                            "write " + segmentName(0) + " 4096+4096",
                            "sync " + segmentName(0),
                            "write " + segmentName(0) + " 0+4096",
                            "sync " + segmentName(0)),
                    session.operations());
        } finally {
            deferred.close();
        }
    }

    /** A discard frame's block, filled with a marker byte, for positions 6336 to 8192. */
    private static PendingWrite repair() {
        final ByteBuffer blocks = BufferUtil.allocateDirectAligned(4096, 4096);
        for (int i = 0; i < 4096; i++) {
            blocks.put(i, REPAIR_BYTE);
        }
        return new PendingWrite(4096, blocks, 6336, 8192);
    }

    @Test
    void shouldRecordTheContinuedFlagAndKeepTheLimitInEveryLaterHeader() throws IOException {
        final DurabilityMarker limited = marker(new DurabilityMarker.ActiveSegment(4096, 8192, false));
        try {
            limited.writeContinued(0, handle);
            assertTrue(limited.continuedWritten());
            assertFalse(limited.continuedDurable());
            final ByteBuffer header = header();
            assertEquals(SegmentHeaderDescriptor.FLAG_CONTINUED, header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET));
            assertEquals(8192, header.getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET));
            limited.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0);
            limited.onSyncSubmitted();
            limited.onSynced();
            assertTrue(limited.continuedDurable());
            limited.write(8192, 0, handle);
            assertEquals(
                    SegmentHeaderDescriptor.FLAG_CONTINUED,
                    header().getInt(SegmentHeaderDescriptor.FLAGS_OFFSET),
                    "a later mark keeps the flag");
            assertEquals(8192, header().getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET));
            limited.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0);
            limited.onRoll(0, false);
            assertFalse(limited.continuedWritten());
            assertTrue(limited.allowsWrite(SEGMENT + SEGMENT, SEGMENT), "a rolled-into segment has no limit");
        } finally {
            limited.close();
        }
    }

    @Test
    void shouldNeedNoSyncWithDurableWrites() throws IOException {
        final HeldCompletionSession durable = new HeldCompletionSession().writesDurable(true);
        final int durableHandle = durable.openFile(SegmentNames.segmentPath(directory, SEGMENT), true);
        final DurabilityMarker durableMarker = new DurabilityMarker(
                durable,
                durable.capabilities(),
                new StatsCounters(),
                directory,
                SEGMENT,
                LOG_ID,
                new DurabilityMarker.ActiveSegment(4096, 0, false));
        try {
            durableMarker.write(SEGMENT + 8192, SEGMENT, durableHandle);
            assertNull(durableMarker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, SEGMENT));
            assertFalse(durableMarker.awaitsSync());
        } finally {
            durableMarker.close();
            durable.close();
        }
    }

    @Test
    void shouldForgetTheOldSegmentsMarkOnARoll() {
        marker.write(8192, 0, handle);
        marker.onWritten(SegmentHeaderDescriptor.HEADER_LENGTH, 0);
        marker.onRoll(0, false);
        assertFalse(marker.awaitsSync());
        assertTrue(marker.due(NOW, SEGMENT + 8192, NOW - IDLE, SEGMENT + 4096));
    }

    @Test
    void shouldRecordTheCleanCloseAndSyncIt() throws IOException {
        marker.recordCleanClose(new BlockingIo(session), 0, handle, 20_000);
        assertEquals(List.of("write " + segmentName(0) + " 0+4096", "sync " + segmentName(0)), session.operations());
        final ByteBuffer header = header();
        assertEquals(
                SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY,
                header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET) & SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY);
        assertEquals(20_000, header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET));
    }

    /** A marker over the test's session and directory, for an active segment. */
    private DurabilityMarker marker(final DurabilityMarker.ActiveSegment active) {
        return new DurabilityMarker(
                session, session.capabilities(), new StatsCounters(), directory, SEGMENT, LOG_ID, active);
    }

    private ByteBuffer header() throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(SegmentNames.segmentPath(directory, 0)))
                .order(ByteOrder.LITTLE_ENDIAN);
    }
}
