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
 * temporary file allocated, its header and zeros written and synced, renamed into place and the
 * directory synced, one operation at a time; hurried with and without allocation; a short write; and
 * an unfinished preparation abandoned.
 */
class SegmentPreparerTest {
    private static final long PREPARE = CompletionToken.PREPARE;
    private static final int WRITE_BYTES = SegmentPreparer.INLINE_WRITE_BYTES;
    private static final String TEMPORARY = temporaryName(SEGMENT);

    @TempDir
    Path directory;

    private HeldCompletionSession session;
    private SegmentPreparer preparer;

    @BeforeEach
    void open() {
        // Blocking operations (abandon's delete) use token 0.
        session = new HeldCompletionSession().autoDeliver(0);
        preparer = newPreparer(new FreeSegments(directory, 0), () -> Long.MAX_VALUE);
    }

    @AfterEach
    void close() {
        preparer.close();
        session.close();
    }

    @Test
    void shouldZeroFillSyncRenameAndSyncTheDirectoryOneOperationAtATime() throws IOException {
        preparer.start(SEGMENT);
        runToReady();
        final List<String> expected = new ArrayList<>();
        expected.add("open " + TEMPORARY);
        expected.add("allocate " + TEMPORARY + " 0+" + SEGMENT);
        for (int offset = 0; offset < SEGMENT; offset += WRITE_BYTES) {
            expected.add("write " + TEMPORARY + " " + offset + "+" + WRITE_BYTES);
        }
        expected.add("sync " + TEMPORARY);
        expected.add("rename " + TEMPORARY + " " + segmentName(SEGMENT));
        expected.add("sync-directory");
        assertEquals(expected, session.operations());
        assertTrue(preparer.isReady(SEGMENT));
        assertFalse(preparer.isReady(2L * SEGMENT));
        assertFalse(Files.exists(directory.resolve(TEMPORARY)));
        final byte[] content = Files.readAllBytes(SegmentNames.segmentPath(directory, SEGMENT));
        assertEquals(SEGMENT, content.length);
        final ByteBuffer header = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(SegmentHeaderDescriptor.MAGIC, header.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET));
        assertEquals(SEGMENT, header.getLong(SegmentHeaderDescriptor.BASE_POSITION_OFFSET));
        for (int i = SegmentHeaderDescriptor.HEADER_LENGTH; i < SEGMENT; i++) {
            assertEquals(0, content[i], "byte " + i);
        }

        final int handle = preparer.take();
        assertTrue(handle > 0);
        assertFalse(preparer.isReady(SEGMENT));
        assertFalse(preparer.hasStepToSubmit());
    }

    @Test
    void shouldSkipTheZeroFillToTheLastBlockWhenHurriedWithoutAllocation() throws IOException {
        preparer.start(SEGMENT);
        step(); // allocate: the session cannot
        step(); // header
        step(); // first zeros
        assertTrue(preparer.hurry());
        assertFalse(preparer.hurry(), "once");
        assertTrue(preparer.isHurried());
        runToReady();
        assertEquals(
                List.of(
                        "write " + TEMPORARY + " " + WRITE_BYTES + "+" + WRITE_BYTES,
                        "write " + TEMPORARY + " " + (SEGMENT - WRITE_BYTES) + "+" + WRITE_BYTES,
                        "sync " + TEMPORARY,
                        "rename " + TEMPORARY + " " + segmentName(SEGMENT),
                        "sync-directory"),
                session.operations().subList(3, session.operations().size()));
        assertEquals(SEGMENT, Files.size(SegmentNames.segmentPath(directory, SEGMENT)));
    }

    @Test
    void shouldZeroFillOnWhenHurriedWithoutAllocationAndTheHoleWouldNotFit() throws IOException {
        // Room for less than the rest of the segment: a hole there would need blocks that a data write
        // could then not get (fail-stop); zero-filling on meets the shortage as back-pressure instead.
        preparer.close();
        preparer = newPreparer(new FreeSegments(directory, 0), () -> SEGMENT / 2);
        preparer.start(SEGMENT);
        step(); // allocate: the session cannot
        step(); // header
        step(); // first zeros
        assertTrue(preparer.hurry());
        runToReady();
        final List<String> expected = new ArrayList<>();
        // After the header and the first zeros, every block to the end.
        for (int offset = SegmentHeaderDescriptor.HEADER_LENGTH + WRITE_BYTES;
                offset < SEGMENT;
                offset += WRITE_BYTES) {
            expected.add("write " + TEMPORARY + " " + offset + "+" + WRITE_BYTES);
        }
        final List<String> writes = session.operations().stream()
                .filter(operation -> operation.startsWith("write "))
                .toList();
        assertEquals(expected, writes.subList(2, writes.size()), "every block written: no hole");
    }

    @Test
    void shouldSyncAtOnceWhenHurriedWithTheFileAllocated() throws IOException {
        session.files.allocates();
        preparer.start(SEGMENT);
        step(); // allocate
        step(); // header
        preparer.hurry();
        runToReady();
        assertEquals(
                List.of("sync " + TEMPORARY, "rename " + TEMPORARY + " " + segmentName(SEGMENT), "sync-directory"),
                session.operations().subList(3, session.operations().size()));
    }

    @Test
    void shouldNotHurryOncePastTheZeroFill() throws IOException {
        assertFalse(preparer.hurry(), "idle");
        preparer.start(SEGMENT);
        runToReady();
        assertFalse(preparer.hurry());
        assertFalse(preparer.isHurried());
    }

    @Test
    void shouldFailAShortZeroFillWrite() throws IOException {
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
    void shouldAdoptASegmentRecoveryFoundPrepared() throws IOException {
        preparer.adoptReady(SEGMENT, 7);
        assertTrue(preparer.isReady(SEGMENT));
        assertEquals(0, preparer.doWork());
        assertEquals(7, preparer.take());
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
    void shouldLeaveEveryOtherFailureToFailTheLog() throws IOException {
        preparer.start(SEGMENT);
        step();
        assertEquals(1, preparer.doWork());
        assertFalse(preparer.onFailure(new IOException("Input/output error")), "not space");
        session.deliverAll();
        session.poll((token, result, failure) -> {}, 10);
        final SegmentPreparer ready = newPreparer(new FreeSegments(directory, 0), () -> Long.MAX_VALUE);
        try {
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
        preparer = newPreparer(FreeSegments.find(directory, SEGMENT, 2), () -> Long.MAX_VALUE);
        preparer.start(SEGMENT);
        runToReady();
        final int limit = WriteLimits.initialLimit(SegmentHeaderDescriptor.HEADER_LENGTH, SEGMENT);
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
        preparer = newPreparer(free, () -> Long.MAX_VALUE);
        preparer.start(SEGMENT);
        runToReady();
        assertEquals("open " + TEMPORARY, session.operations().get(0));
        assertEquals(0, preparer.readyLimitOffset(), "a new, zero-filled segment records no limit");
        assertEquals(0, free.size());
    }

    /** A preparer over the test's session and directory, with the given freed files and free space. */
    private SegmentPreparer newPreparer(final FreeSegments free, final SegmentPreparer.SpaceProbe usableSpace) {
        return new SegmentPreparer(session, directory, SEGMENT, WRITE_BYTES, LOG_ID, free, usableSpace);
    }

    private void runToReady() throws IOException {
        for (int i = 0; i < 100 && !preparer.isReady(SEGMENT); i++) {
            step();
        }
        assertTrue(preparer.isReady(SEGMENT), session.operations().toString());
        assertFalse(preparer.hasStepToSubmit());
    }
}
