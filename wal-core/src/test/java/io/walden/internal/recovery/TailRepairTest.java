package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.FileRecordingSession;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.SegmentHeaders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of a cut's writes against the segment header's durability mark: a mark that proves
 * bytes the cut zeroes is lowered to the cut, and synced, before any of them is zeroed. Otherwise a
 * crash in the middle of the zeroing leaves zeros below a mark that calls them synced, which the next
 * recovery must refuse as damage (found by the power-loss property suite, a crash during a recovery
 * that cut a batch the first crash left open).
 */
class TailRepairTest {
    private static final int CAPACITY = 64 * 1024;
    private static final long LOG_ID = 0x1234_5678_9abcL;
    private static final int CUT = 20_000;
    private static final int DATA_END = 40_000;
    private static final long MARK = 36_000;

    @TempDir
    Path directory;

    private final FileRecordingSession session = new FileRecordingSession();

    @AfterEach
    void close() {
        session.close();
    }

    @Test
    void lowersADurabilityMarkPastTheCutBeforeZeroingAnything() throws IOException {
        final Path path = segment(MARK);
        final int handle = session.openFile(path, false);
        session.operations.clear();

        repair().cutAndDiscard(
                        new SegmentScanner(LOG_ID, 1024),
                        path,
                        0,
                        handle,
                        new TailJudge.Tail(CUT, TailOutcome.CUT_TORN_TAIL),
                        new SegmentScan(List.of(), List.of(), 0, -1, -1),
                        DATA_END,
                        CAPACITY);

        final List<String> operations = session.operations;
        final String name = path.getFileName().toString();
        final int headerWrite = operations.indexOf("write " + name + " 0+" + SegmentHeaderDescriptor.HEADER_LENGTH);
        assertTrue(headerWrite >= 0, "the header was rewritten: " + operations);
        assertEquals("sync " + name, operations.get(headerWrite + 1), "the lowered mark is synced first");
        for (int i = 0; i < headerWrite; i++) {
            assertTrue(!operations.get(i).startsWith("write "), "written before the mark was lowered: " + operations);
        }
        assertTrue(
                operations.subList(headerWrite + 2, operations.size()).stream().anyMatch(op -> op.startsWith("write ")),
                "the cut zeroes after it: " + operations);
        final ByteBuffer header = FileReads.readHeader(path);
        assertEquals(CUT, SegmentHeaderDecoder.durablePosition(header), "the mark records the cut");
        final byte[] content = Files.readAllBytes(path);
        for (int offset = CUT; offset < DATA_END; offset += 4096) {
            assertTrue(offset < CUT + 16 || content[offset] == 0, "not zeroed at " + offset);
        }
    }

    @Test
    void leavesAMarkAtOrBelowTheCutAlone() throws IOException {
        final Path path = segment(CUT - 4096);
        final int handle = session.openFile(path, false);
        session.operations.clear();

        repair().cutAndDiscard(
                        new SegmentScanner(LOG_ID, 1024),
                        path,
                        0,
                        handle,
                        new TailJudge.Tail(CUT, TailOutcome.CUT_TORN_TAIL),
                        new SegmentScan(List.of(), List.of(), 0, -1, -1),
                        DATA_END,
                        CAPACITY);

        assertTrue(
                session.operations.stream()
                        .noneMatch(op -> op.equals(
                                "write " + path.getFileName() + " 0+" + SegmentHeaderDescriptor.HEADER_LENGTH)),
                session.operations.toString());
        assertEquals(CUT - 4096, SegmentHeaderDecoder.durablePosition(FileReads.readHeader(path)));
    }

    private TailRepair repair() {
        final BlockingIo io = new BlockingIo(session);
        final RecoveryWriter writer = new RecoveryWriter(directory, session, io, LOG_ID, CAPACITY, false);
        return new TailRepair(session, io, writer, new RecoveryEvidence(directory), new RecoveryTally(), CAPACITY);
    }

    /** Segment 0: a valid header whose durability mark is at {@code mark}, then data up to {@link #DATA_END}. */
    private Path segment(final long mark) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocateDirect(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        SegmentHeaders.write(header, CAPACITY, 0, LOG_ID);
        SegmentHeaders.writeState(header, mark, false);
        final byte[] content = new byte[CAPACITY];
        header.clear().get(content, 0, SegmentHeaderDescriptor.HEADER_LENGTH);
        Arrays.fill(content, SegmentHeaderDescriptor.HEADER_LENGTH, DATA_END, (byte) 0x5A);
        return Files.write(SegmentNames.segmentPath(directory, 0), content);
    }
}
