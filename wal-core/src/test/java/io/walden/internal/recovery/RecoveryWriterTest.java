package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.FileRecordingSession;
import io.walden.internal.segment.BlockingIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every write recovery makes, against a session that records each operation: what is written where,
 * and the order of writes and syncs that the crash-safety of a cut rests on.
 */
class RecoveryWriterTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int BLOCK = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final long LOG_ID = 0x1234_5678_9abcL;
    private static final byte DATA = 0x5A;

    @TempDir
    Path directory;

    private final FileRecordingSession session = new FileRecordingSession();

    @AfterEach
    void close() {
        session.close();
    }

    private RecoveryWriter writer() {
        return new RecoveryWriter(directory, session, new BlockingIo(session), LOG_ID, CAPACITY, false);
    }

    /** A segment file whose first {@code dataEnd} bytes hold data, the rest zeros. */
    private Path segment(final long base, final int dataEnd) throws IOException {
        final byte[] content = new byte[CAPACITY];
        Arrays.fill(content, 0, dataEnd, DATA);
        return Files.write(SegmentNames.segmentPath(directory, base), content);
    }

    @Test
    void zeroesACutFromItsEndDownSyncingBetweenStepsAndKeepsTheBytesBeforeIt() throws IOException {
        final Path path = segment(0, 30_000);
        final int handle = session.openFile(path, false);
        session.operations.clear();
        // Steps outside (from, to) are ignored.
        final TreeSet<Long> steps = new TreeSet<>(List.of(3_000L, 12_288L, 20_480L, 40_000L));

        writer().zeroDownInSteps(handle, path, 5_000, 30_000, steps);

        // Three steps, the highest first, a sync between each and the next, none after the last.
        final List<List<long[]>> groups = writeGroups(session.operations);
        assertEquals(3, groups.size(), session.operations.toString());
        assertEquals(
                "sync " + path.getFileName(),
                session.operations.get(
                        session.operations.size() - 1 - groups.get(2).size()));
        assertRange(groups.get(0), 20_480, 32_768);
        assertRange(groups.get(1), 12_288, 20_480);
        assertRange(groups.get(2), 4_096, 12_288);
        assertTrue(
                session.operations.get(session.operations.size() - 1).startsWith("write "),
                "no sync after the last step");
        final byte[] content = Files.readAllBytes(path);
        for (int i = 0; i < CAPACITY; i++) {
            assertEquals(i < 5_000 ? DATA : 0, content[i], "byte " + i);
        }
    }

    @Test
    void zeroesInOneStepWhenNoFrameProvesAnythingPastTheCut() throws IOException {
        final Path path = segment(0, 30_000);
        final int handle = session.openFile(path, false);
        session.operations.clear();

        writer().zeroDownInSteps(handle, path, 5_000, 30_000, new TreeSet<>());

        assertEquals(List.of(), session.operations("sync"));
        assertRange(writeGroups(session.operations).get(0), 4_096, 32_768);
    }

    @Test
    void writesADiscardFrameToTheSegmentsEndAndKeepsTheBytesBeforeItInItsBlock() throws IOException {
        final long base = 3L * CAPACITY;
        final Path path = segment(base, 5_000);
        final int handle = session.openFile(path, false);
        session.operations.clear();

        writer().writeDiscardFrame(handle, path, base, 5_000);

        assertEquals(List.of("write " + path.getFileName() + " 4096+4096"), session.operations);
        final ByteBuffer content = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 4_096; i < 5_000; i++) {
            assertEquals(DATA, content.get(i), "byte " + i + " before the frame");
        }
        assertEquals(CAPACITY - 5_000, content.getInt(5_000 + FrameDescriptor.LENGTH_OFFSET));
        assertEquals(FrameDescriptor.TYPE_DISCARD, content.getShort(5_000 + FrameDescriptor.TYPE_OFFSET));
    }

    @Test
    void replacesASegmentWithADiscardedOneThroughATemporaryFileRenamedIntoPlace() throws IOException {
        final long base = 2L * CAPACITY;
        final Path existing = segment(base, 10_000);
        final String temporary = SegmentNames.temporaryName(base);
        final String name = existing.getFileName().toString();

        writer().replaceWithDiscarded(base, existing, null);

        assertEquals(
                List.of(
                        "open " + temporary,
                        "write " + temporary + " 0+" + 2 * BLOCK,
                        "write " + temporary + " " + (CAPACITY - BLOCK) + "+" + BLOCK,
                        "sync " + temporary,
                        "close " + temporary,
                        // One rename replaces the old file: its name is never missing.
                        "rename " + temporary + " " + name,
                        "sync-directory"),
                session.operations);
        final ByteBuffer content = ByteBuffer.wrap(Files.readAllBytes(existing)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(CAPACITY, content.capacity());
        assertNull(SegmentHeaderDecoder.validate(content.slice(0, BLOCK).order(ByteOrder.LITTLE_ENDIAN), base));
        assertEquals(CAPACITY - BLOCK, content.getInt(BLOCK + FrameDescriptor.LENGTH_OFFSET));
        assertEquals(FrameDescriptor.TYPE_DISCARD, content.getShort(BLOCK + FrameDescriptor.TYPE_OFFSET));
    }

    @Test
    void preparesASegmentWithItsLastBlockWhereTheBackendCannotAllocateAndZeroFillsNothing() throws IOException {
        final long base = CAPACITY;
        final String temporary = SegmentNames.temporaryName(base);
        final String name = SegmentNames.segmentName(base);

        session.closeFile(writer().prepareSegment(base));

        assertEquals(
                List.of(
                        "open " + temporary,
                        "allocate " + temporary + " 0+" + CAPACITY,
                        "write " + temporary + " 0+" + BLOCK,
                        "write " + temporary + " " + (CAPACITY - BLOCK) + "+" + BLOCK,
                        "sync " + temporary,
                        "rename " + temporary + " " + name,
                        "sync-directory",
                        "close " + name),
                renamedClose(session.operations, temporary, name));
        final byte[] content = Files.readAllBytes(directory.resolve(name));
        assertEquals(CAPACITY, content.length);
        assertNull(SegmentHeaderDecoder.validate(
                ByteBuffer.wrap(content, 0, BLOCK).slice().order(ByteOrder.LITTLE_ENDIAN), base));
        for (int i = BLOCK; i < CAPACITY; i++) {
            assertEquals(0, content[i], "byte " + i);
        }
    }

    @Test
    void preparesASegmentWithoutItsLastBlockWhereTheBackendAllocates() throws IOException {
        session.allocates();
        final long base = CAPACITY;
        final String temporary = SegmentNames.temporaryName(base);

        session.closeFile(writer().prepareSegment(base));

        assertEquals(List.of("write " + temporary + " 0+" + BLOCK), session.operations("write"));
        assertEquals(CAPACITY, Files.size(SegmentNames.segmentPath(directory, base)));
    }

    @Test
    void zeroFillsASegmentWhenAskedBeforeItIsSyncedAndRenamed() throws IOException {
        final long base = CAPACITY;
        final String temporary = SegmentNames.temporaryName(base);
        final RecoveryWriter zeroFilling =
                new RecoveryWriter(directory, session, new BlockingIo(session), LOG_ID, CAPACITY, true);

        session.closeFile(zeroFilling.prepareSegment(base));

        final List<String> writes = session.operations("write");
        long written = 0;
        for (final String write : writes) {
            written += Long.parseLong(write.substring(write.lastIndexOf('+') + 1));
        }
        assertEquals(CAPACITY, written, "every byte written once: " + writes);
        final int sync = session.operations.indexOf("sync " + temporary);
        assertTrue(sync > session.operations.lastIndexOf(writes.get(writes.size() - 1)), "synced after the zeros");
    }

    /** A full file system: the preparation fails, and leaves no temporary holding the space. */
    @Test
    void removesTheTemporaryOfAPreparationThatFails() throws IOException {
        final IOException noSpace = new IOException("No space left on device");
        session.failWritesFrom(CAPACITY / 2, noSpace);
        final IOException failed = assertThrows(IOException.class, () -> writer().prepareSegment(0));
        assertSame(noSpace, failed);
        assertFalse(Files.exists(directory.resolve(SegmentNames.temporaryName(0))), "the temporary is left");
        assertFalse(Files.exists(SegmentNames.segmentPath(directory, 0)));
        assertTrue(
                session.operations.contains("close " + SegmentNames.temporaryName(0)), session.operations.toString());

        session.failWritesFrom(0, noSpace);
        assertSame(noSpace, assertThrows(IOException.class, () -> writer().prepareSegment(0)));
        assertFalse(
                Files.exists(directory.resolve(SegmentNames.temporaryName(0))),
                "the temporary of the header's failed write is left");
    }

    /** The write operations between syncs, as [offset, end) pairs, group by group. */
    private static List<List<long[]>> writeGroups(final List<String> operations) {
        final List<List<long[]>> groups = new ArrayList<>();
        List<long[]> group = new ArrayList<>();
        for (final String operation : operations) {
            if (operation.startsWith("sync ")) {
                groups.add(group);
                group = new ArrayList<>();
            } else if (operation.startsWith("write ")) {
                final String[] range =
                        operation.substring(operation.lastIndexOf(' ') + 1).split("\\+");
                final long offset = Long.parseLong(range[0]);
                group.add(new long[] {offset, offset + Long.parseLong(range[1])});
            }
        }
        if (!group.isEmpty()) {
            groups.add(group);
        }
        return groups;
    }

    /** Asserts that a group's writes cover exactly [from, to) without a hole. */
    private static void assertRange(final List<long[]> writes, final long from, final long to) {
        final List<long[]> sorted = new ArrayList<>(writes);
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        assertEquals(from, sorted.get(0)[0], "start of the step");
        long end = from;
        for (final long[] write : sorted) {
            assertEquals(end, write[0], "a hole or an overlap in the step");
            end = write[1];
        }
        assertEquals(to, end, "end of the step");
    }

    /** The operations with the close of the renamed file named by its new name, as the test expects. */
    private static List<String> renamedClose(final List<String> operations, final String temporary, final String name) {
        final List<String> renamed = new ArrayList<>(operations);
        renamed.replaceAll(op -> op.equals("close " + temporary) ? "close " + name : op);
        return renamed;
    }
}
