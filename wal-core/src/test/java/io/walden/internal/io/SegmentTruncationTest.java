package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentNames;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The truncation state machine, step by step against a session that records what it is asked to do:
 * the order of deletes and directory syncs, one operation at a time, the new start published before
 * the first delete, the active segment never deleted, and what a failure completes.
 */
class SegmentTruncationTest {
    private static final long SEGMENT = 1 << 20;
    private static final long TOKEN = CompletionToken.of(CompletionToken.TRUNCATE);
    private static final Path DIRECTORY = Path.of("/logs/a");

    private final RecordingSession session = new RecordingSession();
    private final LogState state = new LogState(SEGMENT, 10 * SEGMENT, 0);
    private final StatsCounters stats = new StatsCounters();
    private final IoShared shared = new IoShared(
            session, StorageCapabilities.of(false, false, 4096, 4), null, state, stats, null, DIRECTORY, SEGMENT);
    private final SegmentTruncation truncation =
            new SegmentTruncation(shared, SEGMENT, new FreeSegments(DIRECTORY, 0), () -> false);
    // For the recycling tests: up to two freed files kept, space short while the flag says so.
    private final FreeSegments free = new FreeSegments(DIRECTORY, 2);
    private boolean spaceShort;
    private final SegmentTruncation recycling = new SegmentTruncation(shared, SEGMENT, free, () -> spaceShort);

    @Test
    void shouldDeleteOldestFirstAndSyncTheDirectoryAfterEachDelete() {
        final TruncateRequest request = new TruncateRequest(3 * SEGMENT + 100);
        truncation.request(request);
        assertTrue(truncation.hasPending());
        runToCompletion(10 * SEGMENT);
        assertEquals(
                List.of(delete(SEGMENT), "sync-directory", delete(2 * SEGMENT), "sync-directory"), session.operations);
        assertTrue(request.isDone());
        assertNull(request.failure());
        assertEquals(2, request.deletedCount());
        assertEquals(3 * SEGMENT, state.startPosition());
        assertFalse(truncation.isActive());
        assertEquals(0, stats.segmentsDeletedForSpace(), "no recycling: a delete is no sign of space");
    }

    @Test
    void shouldPublishTheNewStartBeforeTheFirstDelete() {
        truncation.request(new TruncateRequest(3 * SEGMENT));
        assertEquals(1, truncation.step(10 * SEGMENT));
        assertEquals(List.of(delete(SEGMENT)), session.operations);
        assertEquals(3 * SEGMENT, state.startPosition(), "readers must not be handed a segment about to go");
    }

    @Test
    void shouldSubmitNothingWhileAnOperationIsInFlight() {
        truncation.request(new TruncateRequest(5 * SEGMENT));
        truncation.step(10 * SEGMENT);
        assertEquals(0, truncation.step(10 * SEGMENT));
        assertEquals(0, truncation.step(10 * SEGMENT));
        assertEquals(1, session.operations.size());
        session.inFlight = false;
        truncation.onCompletion();
        assertEquals(1, truncation.step(10 * SEGMENT));
        assertEquals(List.of(delete(SEGMENT), "sync-directory"), session.operations);
    }

    @Test
    void shouldNeverDeleteTheActiveSegment() {
        final TruncateRequest request = new TruncateRequest(Long.MAX_VALUE & ~(SEGMENT - 1));
        truncation.request(request);
        runToCompletion(3 * SEGMENT);
        assertEquals(
                List.of(delete(SEGMENT), "sync-directory", delete(2 * SEGMENT), "sync-directory"), session.operations);
        assertEquals(2, request.deletedCount());
    }

    @Test
    void shouldCompleteWithNothingDeletedBelowTheFirstSegment() {
        final TruncateRequest request = new TruncateRequest(SEGMENT + 10);
        truncation.request(request);
        runToCompletion(10 * SEGMENT);
        assertTrue(session.operations.isEmpty());
        assertEquals(0, request.deletedCount());
        assertEquals(SEGMENT, state.startPosition());
    }

    @Test
    void shouldStartTheNextRequestFromWhereTheLastEnded() {
        truncation.request(new TruncateRequest(2 * SEGMENT));
        runToCompletion(10 * SEGMENT);
        session.operations.clear();
        final TruncateRequest second = new TruncateRequest(3 * SEGMENT);
        truncation.request(second);
        runToCompletion(10 * SEGMENT);
        assertEquals(List.of(delete(2 * SEGMENT), "sync-directory"), session.operations);
        assertEquals(1, second.deletedCount());
    }

    @Test
    void shouldFailTheActiveAndTheWaitingRequest() {
        final TruncateRequest active = new TruncateRequest(5 * SEGMENT);
        truncation.request(active);
        truncation.step(10 * SEGMENT);
        final TruncateRequest waiting = new TruncateRequest(6 * SEGMENT);
        truncation.request(waiting);
        final IOException cause = new IOException("disk gone");
        truncation.fail(cause);
        assertTrue(active.isDone());
        assertSame(cause, active.failure());
        assertTrue(waiting.isDone());
        assertSame(cause, waiting.failure());
        assertFalse(truncation.isActive());
        assertFalse(truncation.hasPending());
    }

    @Test
    void shouldKeepFreedSegmentsForReuseWhileSpaceIsNotShort() {
        final TruncateRequest request = new TruncateRequest(3 * SEGMENT);
        recycling.request(request);
        runToCompletion(recycling, 10 * SEGMENT);
        assertEquals(
                List.of(rename(SEGMENT), "sync-directory", rename(2 * SEGMENT), "sync-directory"), session.operations);
        assertEquals(2, free.size());
        assertEquals(2, request.deletedCount());
    }

    @Test
    void shouldDeleteFreedSegmentsWhileSpaceIsShort() {
        spaceShort = true;
        final TruncateRequest request = new TruncateRequest(3 * SEGMENT);
        recycling.request(request);
        runToCompletion(recycling, 10 * SEGMENT);
        assertEquals(
                List.of(delete(SEGMENT), "sync-directory", delete(2 * SEGMENT), "sync-directory"), session.operations);
        assertEquals(0, free.size(), "space comes first: nothing kept for reuse");
        assertNull(request.failure());
        assertEquals(2, stats.segmentsDeletedForSpace(), "the stats say so");
    }

    @Test
    void shouldDeleteEverySegmentOfARequestTakenWhileSpaceWasShortThoughTheFirstDeleteMadeRoom() {
        spaceShort = true;
        final TruncateRequest request = new TruncateRequest(4 * SEGMENT);
        recycling.request(request);
        assertEquals(1, recycling.step(10 * SEGMENT));
        // The first delete freed a segment's space (XFS frees at once): the request still keeps none.
        spaceShort = false;
        session.inFlight = false;
        recycling.onCompletion();
        runToCompletion(recycling, 10 * SEGMENT);
        assertEquals(
                List.of(
                        delete(SEGMENT),
                        "sync-directory",
                        delete(2 * SEGMENT),
                        "sync-directory",
                        delete(3 * SEGMENT),
                        "sync-directory"),
                session.operations);
        assertEquals(0, free.size());
        assertEquals(3, stats.segmentsDeletedForSpace());

        // The next request, taken with room, keeps what it frees again.
        final TruncateRequest next = new TruncateRequest(5 * SEGMENT);
        recycling.request(next);
        runToCompletion(recycling, 10 * SEGMENT);
        assertEquals(1, free.size());
    }

    @Test
    void shouldDeleteTheSegmentWhoseRenameFailedForSpaceAndTheRestOfTheRequest() {
        final TruncateRequest request = new TruncateRequest(4 * SEGMENT);
        recycling.request(request);
        assertEquals(1, recycling.step(10 * SEGMENT));
        assertEquals(List.of(rename(SEGMENT)), session.operations);
        session.inFlight = false;
        assertTrue(recycling.onFailure(
                new IOException(SegmentNames.segmentPath(DIRECTORY, SEGMENT) + ": No space left on device")));
        runToCompletion(recycling, 10 * SEGMENT);
        assertEquals(
                List.of(
                        rename(SEGMENT),
                        delete(SEGMENT),
                        "sync-directory",
                        delete(2 * SEGMENT),
                        "sync-directory",
                        delete(3 * SEGMENT),
                        "sync-directory"),
                session.operations);
        assertNull(request.failure(), "a rename refused for space fails nothing");
        assertEquals(3, request.deletedCount());
        assertEquals(0, free.size());
        assertTrue(free.wantsMore(), "the refused rename is no longer pending");
        assertEquals(3, stats.segmentsDeletedForSpace(), "the stats say so");
    }

    @Test
    void shouldLeaveEveryOtherFailureToFailTheLog() {
        recycling.request(new TruncateRequest(3 * SEGMENT));
        recycling.step(10 * SEGMENT);
        session.inFlight = false;
        assertFalse(recycling.onFailure(new IOException("Input/output error")), "an I/O error is no space shortage");
        spaceShort = true;
        final SegmentTruncation deleting = truncation;
        deleting.request(new TruncateRequest(3 * SEGMENT));
        deleting.step(10 * SEGMENT);
        assertFalse(
                deleting.onFailure(new IOException("No space left on device")),
                "only a rename to the free name is replaced by a delete");
    }

    private void runToCompletion(final long activeBase) {
        runToCompletion(truncation, activeBase);
    }

    private void runToCompletion(final SegmentTruncation truncation, final long activeBase) {
        for (int i = 0; i < 100 && (truncation.hasPending() || truncation.isActive()); i++) {
            if (truncation.step(activeBase) == 1 && session.inFlight) {
                session.inFlight = false;
                truncation.onCompletion();
            }
        }
        assertFalse(truncation.isActive(), "the truncation never completed");
    }

    private static String rename(final long base) {
        return "rename " + SegmentNames.segmentPath(DIRECTORY, base).getFileName() + " " + SegmentNames.freeName(base);
    }

    private static String delete(final long base) {
        return "delete " + SegmentNames.segmentPath(DIRECTORY, base).getFileName();
    }

    /** Records deletes and directory syncs; any other call fails the test. */
    private static final class RecordingSession implements StorageSession {
        final List<String> operations = new ArrayList<>();
        boolean inFlight;

        @Override
        public void submitDelete(final Path path, final long token) {
            assertEquals(TOKEN, token);
            assertFalse(inFlight, "two operations in flight");
            inFlight = true;
            operations.add("delete " + path.getFileName());
        }

        @Override
        public void submitSyncDirectory(final long token) {
            assertEquals(TOKEN, token);
            assertFalse(inFlight, "two operations in flight");
            inFlight = true;
            operations.add("sync-directory");
        }

        @Override
        public StorageCapabilities capabilities() {
            throw unexpected("capabilities");
        }

        @Override
        public int openFile(final Path path, final boolean create) {
            throw unexpected("openFile");
        }

        @Override
        public void closeFile(final int fileHandle) {
            throw unexpected("closeFile");
        }

        @Override
        public void submitWrite(
                final int fileHandle,
                final long fileOffset,
                final ByteBuffer source,
                final int sourceOffset,
                final int lengthBytes,
                final long token) {
            throw unexpected("submitWrite");
        }

        @Override
        public void submitAllocate(
                final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
            throw unexpected("submitAllocate");
        }

        @Override
        public void submitSync(final int fileHandle, final long token) {
            throw unexpected("submitSync");
        }

        @Override
        public void submitRename(final Path source, final Path target, final long token) {
            assertEquals(TOKEN, token);
            assertFalse(inFlight, "two operations in flight");
            inFlight = true;
            operations.add("rename " + source.getFileName() + " " + target.getFileName());
        }

        @Override
        public int poll(final CompletionHandler handler, final int limit) {
            throw unexpected("poll");
        }

        @Override
        public int inFlight() {
            throw unexpected("inFlight");
        }

        @Override
        public void close() {}

        private static AssertionError unexpected(final String method) {
            return new AssertionError("truncation called StorageSession." + method + ", which it never needs");
        }
    }
}
