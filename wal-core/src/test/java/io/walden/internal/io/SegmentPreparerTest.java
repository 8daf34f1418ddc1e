package io.walden.internal.io;

import static io.walden.internal.io.IoPath.LOG_ID;
import static io.walden.internal.io.IoPath.SEGMENT;
import static io.walden.internal.io.IoPath.segmentName;
import static io.walden.internal.io.IoPath.temporaryName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.WriteLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segment preparation step by step against a session whose completions the test delivers: a
 * temporary file allocated (or its last block written), its header with a write limit written and
 * synced, renamed into place and the directory synced, one operation at a time, nothing zero-filled;
 * a freed file recycled; a short write; space shortages; and an unfinished preparation abandoned.
 */
class SegmentPreparerTest {
    private static final long PREPARE = CompletionToken.PREPARE;
    private static final int WRITE_BYTES = SegmentPreparer.INLINE_WRITE_BYTES;
    private static final int BLOCK = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int LIMIT = WriteLimits.initialLimit(SegmentHeaderDescriptor.HEADER_LENGTH, SEGMENT);
    private static final String TEMPORARY = temporaryName(SEGMENT);

    @TempDir
    Path directory;

    private HeldCompletionSession session;
    private SegmentPreparer preparer;

    @BeforeEach
    void open() {
        // Blocking operations (abandon's delete) use token 0.
        session = new HeldCompletionSession().autoDeliver(0);
        preparer = newPreparer(new FreeSegments(directory, 0));
    }

    @AfterEach
    void close() {
        preparer.close();
        session.close();
    }

    @Test
    void shouldWriteTheHeaderAndTheLastBlockSyncRenameAndSyncTheDirectoryOneOperationAtATime() throws IOException {
        preparer.start(SEGMENT);
        runToReady();
        assertEquals(
                List.of(
                        "open " + TEMPORARY,
                        "allocate " + TEMPORARY + " 0+" + SEGMENT,
                        "write " + TEMPORARY + " 0+" + SegmentHeaderDescriptor.HEADER_LENGTH,
                        // The session cannot allocate: the last block gives the file its length.
                        "write " + TEMPORARY + " " + (SEGMENT - BLOCK) + "+" + BLOCK,
                        "sync " + TEMPORARY,
                        "rename " + TEMPORARY + " " + segmentName(SEGMENT),
                        "sync-directory"),
                session.operations(),
                "no zero-fill");
        assertTrue(preparer.isReady(SEGMENT));
        assertFalse(preparer.isReady(2L * SEGMENT));
        assertFalse(Files.exists(directory.resolve(TEMPORARY)));
        final byte[] content = Files.readAllBytes(SegmentNames.segmentPath(directory, SEGMENT));
        assertEquals(SEGMENT, content.length);
        final ByteBuffer header = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
        assertNull(SegmentHeaderDecoder.validate(
                header.slice(0, SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN), SEGMENT));
        assertEquals(SEGMENT, header.getLong(SegmentHeaderDescriptor.BASE_POSITION_OFFSET));
        assertEquals(LIMIT, SegmentHeaderDecoder.writeLimitOffset(header), "bounded by a write limit");
        assertFalse(SegmentHeaderDecoder.recycled(header), "a new file is not recycled");
        for (int i = SegmentHeaderDescriptor.HEADER_LENGTH; i < SEGMENT; i++) {
            assertEquals(0, content[i], "byte " + i);
        }
        assertEquals(LIMIT, preparer.readyLimitOffset());
        assertFalse(preparer.readyRecycled());

        final int handle = preparer.take();
        assertTrue(handle > 0);
        assertFalse(preparer.isReady(SEGMENT));
        assertFalse(preparer.hasStepToSubmit());
    }

    @Test
    void shouldWriteOnlyTheHeaderWhenTheFileIsAllocated() throws IOException {
        session.files.allocates();
        preparer.start(SEGMENT);
        runToReady();
        assertEquals(
                List.of(
                        "write " + TEMPORARY + " 0+" + SegmentHeaderDescriptor.HEADER_LENGTH,
                        "sync " + TEMPORARY,
                        "rename " + TEMPORARY + " " + segmentName(SEGMENT),
                        "sync-directory"),
                session.operations().subList(2, session.operations().size()));
        assertEquals(SEGMENT, Files.size(SegmentNames.segmentPath(directory, SEGMENT)));
        assertEquals(LIMIT, preparer.readyLimitOffset());
    }

    @Test
    void shouldZeroFillANewFileWhenAskedAndStopWhenTheAppendersComeNear() throws IOException {
        preparer.close();
        preparer = new SegmentPreparer(
                session, directory, SEGMENT, WRITE_BYTES, LOG_ID, new FreeSegments(directory, 0), true);
        preparer.start(SEGMENT);
        runToReady();
        final List<String> expected = new ArrayList<>();
        expected.add("open " + TEMPORARY);
        expected.add("allocate " + TEMPORARY + " 0+" + SEGMENT);
        expected.add("write " + TEMPORARY + " 0+" + BLOCK);
        for (int offset = BLOCK; offset < SEGMENT; offset += WRITE_BYTES) {
            expected.add("write " + TEMPORARY + " " + offset + "+" + WRITE_BYTES);
        }
        expected.add("sync " + TEMPORARY);
        expected.add("rename " + TEMPORARY + " " + segmentName(SEGMENT));
        expected.add("sync-directory");
        assertEquals(expected, session.operations(), "every byte written");
        assertEquals(LIMIT, preparer.readyLimitOffset(), "bounded by a limit all the same");
        preparer.take();

        session.operations().clear();
        preparer.start(2L * SEGMENT);
        step(); // allocate: the session cannot
        step(); // header
        step(); // the first zeros
        preparer.stopZeroFill();
        for (int i = 0; i < 100 && !preparer.isReady(2L * SEGMENT); i++) {
            step();
        }
        final String temporary = temporaryName(2L * SEGMENT);
        assertEquals(
                List.of(
                        "write " + temporary + " " + (SEGMENT - BLOCK) + "+" + BLOCK,
                        "sync " + temporary,
                        "rename " + temporary + " " + segmentName(2L * SEGMENT),
                        "sync-directory"),
                session.operations().subList(4, session.operations().size()),
                "the rest of the zero-fill skipped: the last block gives the file its length");
    }

    @Test
    void shouldFailAShortWrite() throws IOException {
        preparer.start(SEGMENT);
        step();
        assertEquals(1, preparer.doWork());
        session.deliverWithResult(PREPARE, 100);
        session.poll(
                (token, result, failure) -> {
                    final IOException ex = assertThrows(IOException.class, () -> preparer.onCompletion(result));
                    assertTrue(ex.getMessage().startsWith("short write"), ex.getMessage());
                },
                1);
    }

    @Test
    void shouldAbandonAnUnfinishedPreparationByDeletingItsFile() throws IOException {
        preparer.start(SEGMENT);
        step();
        step();
        assertTrue(Files.exists(directory.resolve(TEMPORARY)));
        session.operations().clear();
        preparer.abandon(new BlockingIo(session), false);
        assertEquals(List.of("close " + TEMPORARY, "delete " + TEMPORARY), session.operations());
        assertFalse(Files.exists(directory.resolve(TEMPORARY)));
        assertFalse(preparer.hasStepToSubmit());
        preparer.start(2L * SEGMENT);
        assertTrue(preparer.hasStepToSubmit(), "idle again");
    }

    @Test
    void shouldAbandonAfterAFailureWhoseRoundDroppedTheStepsCompletion() throws IOException {
        preparer.start(SEGMENT);
        step();
        assertEquals(1, preparer.doWork());
        // The log failed: its I/O round drops the step's completion (fail-stop).
        session.deliverWithResult(PREPARE, WRITE_BYTES);
        session.poll((token, result, failure) -> {}, 1);
        assertTrue(preparer.isOperationInFlight(), "the preparer never heard of the completion");
        assertThrows(AssertionError.class, () -> preparer.abandon(new BlockingIo(session), false));

        session.operations().clear();
        preparer.abandon(new BlockingIo(session), true);

        assertEquals(List.of("close " + TEMPORARY, "delete " + TEMPORARY), session.operations());
        assertFalse(Files.exists(directory.resolve(TEMPORARY)));
        assertFalse(preparer.isOperationInFlight());
    }

    @Test
    void shouldKeepASegmentRenamedIntoPlaceWhenAbandoned() throws IOException {
        preparer.start(SEGMENT);
        runToReady();
        session.operations().clear();
        preparer.abandon(new BlockingIo(session), false);
        assertEquals(List.of(), session.operations());
        assertTrue(preparer.isReady(SEGMENT));
    }

    @Test
    void shouldAdoptASegmentRecoveryFoundPreparedWithTheLimitItsHeaderRecords() throws IOException {
        writeSegmentHeader(SEGMENT, LIMIT, false);
        preparer.adoptReady(SEGMENT, 7);
        assertTrue(preparer.isReady(SEGMENT));
        assertEquals(LIMIT, preparer.readyLimitOffset());
        assertFalse(preparer.readyRecycled());
        assertEquals(0, preparer.doWork());
        assertEquals(7, preparer.take());

        writeSegmentHeader(2L * SEGMENT, LIMIT, true);
        preparer.adoptReady(2L * SEGMENT, 8);
        assertEquals(LIMIT, preparer.readyLimitOffset());
        assertTrue(preparer.readyRecycled());
        assertEquals(8, preparer.take());

        // One an older build prepared: zero-filled, no limit.
        writeSegmentHeader(3L * SEGMENT, 0, false);
        preparer.adoptReady(3L * SEGMENT, 9);
        assertEquals(0, preparer.readyLimitOffset());
        assertFalse(preparer.readyRecycled());
    }

    private void writeSegmentHeader(final long base, final int limitOffset, final boolean recycled) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        SegmentHeaders.write(header, SEGMENT, base, LOG_ID);
        if (recycled) {
            SegmentHeaders.writeRecycled(header, limitOffset);
        } else {
            SegmentHeaders.writeLimitAndContinued(header, limitOffset, false);
        }
        Files.write(SegmentNames.segmentPath(directory, base), header.array());
    }

    @Test
    void shouldTryAStepThatFailedForSpaceAgainLaterAndKeepItsFile() throws IOException {
        preparer.start(SEGMENT);
        step(); // allocate
        assertEquals(1, preparer.doWork()); // the header's write
        session.deliverFailure(PREPARE, new IOException(TEMPORARY + ": No space left on device"));
        session.poll((token, result, failure) -> assertTrue(preparer.onFailure(failure), "space is no failure"), 1);
        final String shortage = preparer.spaceShortage();
        assertNotNull(shortage);
        assertTrue(
                shortage.contains(directory.toString())
                        && shortage.contains(SEGMENT + " bytes")
                        && shortage.contains("bytes free"),
                shortage);
        session.operations().clear();
        assertEquals(0, preparer.doWork(), "tried again at once");
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (preparer.doWork() == 0) {
            assertTrue(System.nanoTime() < deadlineNs, "never tried again");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertEquals(List.of("write " + TEMPORARY + " 0+4096"), session.operations(), "the header again");
        session.deliver(PREPARE);
        session.poll(
                (token, result, failure) -> {
                    try {
                        preparer.onCompletion(result);
                    } catch (final IOException ex) {
                        throw new AssertionError(ex);
                    }
                },
                1);
        runToReady();
        assertNull(preparer.spaceShortage(), "a prepared segment ends the shortage");
        assertTrue(session.operations().stream().noneMatch(op -> op.startsWith("delete ")), "the file was kept");
    }

    @Test
    void shouldTryARenameThatFailedForSpaceAgainButNotADirectorySync() throws IOException {
        preparer.start(SEGMENT);
        for (int i = 0; i < 4; i++) {
            step(); // allocate, header, last block, sync
        }
        session.operations().clear();
        assertEquals(1, preparer.doWork());
        assertEquals(List.of("rename " + TEMPORARY + " " + segmentName(SEGMENT)), session.operations());
        // XFS may need a block for the directory entry: the rename changed nothing, and is tried again.
        session.deliverFailure(PREPARE, new IOException(TEMPORARY + ": No space left on device"));
        session.poll((token, result, failure) -> assertTrue(preparer.onFailure(failure), "space is no failure"), 1);
        assertNotNull(preparer.spaceShortage());
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!preparer.hasStepToSubmit()) {
            assertTrue(System.nanoTime() < deadlineNs, "never tried again");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        step(); // the rename, again
        assertEquals(1, preparer.doWork());
        assertFalse(
                preparer.onFailure(new IOException("No space left on device")),
                "a failed directory sync is fail-stop, whatever its errno");
    }

    @Test
    void shouldLeaveEveryOtherFailureToFailTheLog() throws IOException {
        preparer.start(SEGMENT);
        step();
        assertEquals(1, preparer.doWork());
        assertFalse(preparer.onFailure(new IOException("Input/output error")), "not space");
        session.deliverAll();
        session.poll((token, result, failure) -> {}, 10);
        final SegmentPreparer ready = newPreparer(new FreeSegments(directory, 0));
        try {
            writeSegmentHeader(2L * SEGMENT, LIMIT, false);
            ready.adoptReady(2L * SEGMENT, 7);
            assertFalse(
                    ready.onFailure(new IOException("No space left on device")),
                    "space is tolerated only while the temporary file is allocated, filled or synced");
        } finally {
            ready.close();
        }
    }

    /** Submits the next step, checks that no other can be submitted meanwhile, and completes it. */
    private void step() throws IOException {
        assertTrue(preparer.hasStepToSubmit());
        assertEquals(1, preparer.doWork());
        assertTrue(preparer.isOperationInFlight());
        assertEquals(0, preparer.doWork(), "two operations in flight");
        session.deliver(PREPARE);
        final List<Long> results = new ArrayList<>();
        session.poll((token, result, failure) -> results.add(result), 1);
        preparer.onCompletion(results.get(0));
    }

    @Test
    void shouldMakeAFreedFileTheSegmentWritingOnlyItsHeaderAndFirstWindow() throws IOException {
        final Path freed = directory.resolve(SegmentNames.freeName(0));
        final byte[] stale = new byte[SEGMENT];
        java.util.Arrays.fill(stale, (byte) 0x5A);
        Files.write(freed, stale);
        preparer.close();
        preparer = newPreparer(FreeSegments.find(directory, SEGMENT, 2));
        preparer.start(SEGMENT);
        runToReady();
        final int limit = LIMIT;
        final List<String> expected = new ArrayList<>();
        expected.add("open " + freed.getFileName());
        for (int offset = 0;
                offset < limit;
                offset += offset == 0 ? SegmentHeaderDescriptor.HEADER_LENGTH : WRITE_BYTES) {
            expected.add("write " + freed.getFileName() + " " + offset + "+"
                    + (offset == 0 ? SegmentHeaderDescriptor.HEADER_LENGTH : WRITE_BYTES));
        }
        expected.add("sync " + freed.getFileName());
        expected.add("rename " + freed.getFileName() + " " + segmentName(SEGMENT));
        expected.add("sync-directory");
        assertEquals(expected, session.operations(), "no allocation, no zero-fill past the first window");
        assertEquals(limit, preparer.readyLimitOffset());
        final byte[] content = Files.readAllBytes(SegmentNames.segmentPath(directory, SEGMENT));
        final ByteBuffer header = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
        assertNull(SegmentHeaderDecoder.validate(
                header.slice(0, SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN), SEGMENT));
        assertTrue(SegmentHeaderDecoder.recycled(header));
        assertTrue(preparer.readyRecycled());
        assertEquals(limit, SegmentHeaderDecoder.writeLimitOffset(header));
        for (int i = SegmentHeaderDescriptor.HEADER_LENGTH; i < SEGMENT; i++) {
            assertEquals(i < limit ? 0 : 0x5A, content[i], "byte " + i);
        }
        assertFalse(Files.exists(freed));
    }

    @Test
    void shouldPrepareANewFileWhenTheFreedFileIsGone() throws IOException {
        final FreeSegments free = new FreeSegments(directory, 2);
        free.add(free.renaming(0));
        preparer.close();
        preparer = newPreparer(free);
        preparer.start(SEGMENT);
        runToReady();
        assertEquals("open " + TEMPORARY, session.operations().get(0));
        assertEquals(LIMIT, preparer.readyLimitOffset(), "a new segment is bounded by a limit too");
        assertFalse(preparer.readyRecycled());
        assertEquals(0, free.size());
    }

    /** A preparer over the test's session and directory, with the given freed files. */
    private SegmentPreparer newPreparer(final FreeSegments free) {
        return new SegmentPreparer(session, directory, SEGMENT, WRITE_BYTES, LOG_ID, free, false);
    }

    private void runToReady() throws IOException {
        for (int i = 0; i < 100 && !preparer.isReady(SEGMENT); i++) {
            step();
        }
        assertTrue(preparer.isReady(SEGMENT), session.operations().toString());
        assertFalse(preparer.hasStepToSubmit());
    }
}
