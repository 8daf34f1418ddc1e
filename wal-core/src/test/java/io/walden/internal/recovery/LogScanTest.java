package io.walden.internal.recovery;

import static io.walden.internal.recovery.SegmentImage.FIRST;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogScan} over segment files built byte by byte: which segment is the tail (the first that
 * valid frames do not fill), what it reads from the headers for the judge (a clean close of the tail
 * or of the segment before an unused one, a durability mark), that it asks whether a later segment
 * holds data, what it counts, where the recovered end lies when discard frames follow the last
 * records, and that a batch open at the end of a full segment is refused.
 */
class LogScanTest {
    private static final long LOG_ID = 0x10C5_CA11L;
    private static final int CAPACITY = 64 * 1024;

    @TempDir
    Path directory;

    private final RecoveryTally tally = new RecoveryTally();

    @Test
    void segmentsThatValidFramesFillLeaveNoTail() throws IOException {
        final LogScan.Decision decision = scan(
                RecoveryPolicy.FAIL,
                segment(0).data(100, 200).padToEnd(),
                segment(1).data(300).padToEnd());

        assertEquals(new LogScan.Decision(-1, null, null), decision);
        final RecoveryReport report = report();
        assertEquals(3, report.records());
        assertEquals(2L * (CAPACITY - FIRST), report.bytesScanned());
        assertEquals(2L * CAPACITY, report.recoveredEndPosition());
        assertEquals(2L * CAPACITY, report.provenDurablePosition());
        assertFalse(report.closedCleanly());
    }

    @Test
    void aTornWriteInTheNewestSegmentIsItsTailCutAtTheValidEnd() throws IOException {
        final SegmentImage newest = segment(1).data(100, 100);
        final int torn = newest.offset();
        newest.data(1000).erase(torn + 512, torn + 1016);

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, full(0), newest);

        assertEquals(1, decision.tailIndex());
        assertEquals(new TailJudge.Tail(torn, TailOutcome.CUT_TORN_TAIL), decision.tail());
        assertEquals(torn, decision.scan().prefixEndOffset());
        assertEquals(2 + 2, report().records());
        assertEquals(CAPACITY + torn, tally.recoveredEndPosition);
        assertEquals(CAPACITY + FIRST, tally.provenDurablePosition);
        assertFalse(tally.closedCleanly);
    }

    @Test
    void aPreparedSegmentAfterTheTailHoldsNoDataAndChangesNothing() throws IOException {
        final SegmentImage tail = segment(0).data(100);
        final int end = tail.offset();

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, tail, segment(1));

        assertEquals(0, decision.tailIndex());
        assertEquals(new TailJudge.Tail(end, TailOutcome.CUT_TORN_TAIL), decision.tail());
    }

    @Test
    void aCleanCloseInTheTailsHeaderIsACleanEnd() throws IOException {
        final SegmentImage newest = segment(1).data(100, 100);
        final int end = newest.offset();
        newest.cleanClose(CAPACITY + end);

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, full(0), newest);

        assertEquals(new TailJudge.Tail(end, TailOutcome.CLEAN_END), decision.tail());
        assertTrue(tally.closedCleanly);
        assertEquals(CAPACITY + end, tally.recoveredEndPosition);
        assertEquals(CAPACITY + end, tally.provenDurablePosition);
        assertEquals(4, report().records());
    }

    @Test
    void framesAfterTheCleanEndInTheHeaderAreDiscardedUnderTruncateAndNotCounted() throws IOException {
        final SegmentImage newest = segment(1).data(100);
        final int cleanEnd = newest.offset();
        newest.data(100, 100).cleanClose(CAPACITY + cleanEnd);

        final LogScan.Decision decision = scan(RecoveryPolicy.TRUNCATE, full(0), newest);

        assertEquals(new TailJudge.Tail(cleanEnd, TailOutcome.DISCARD_LATER_TOO), decision.tail());
        assertEquals(cleanEnd, decision.scan().markOffset(), "the clean end is where the scan counts from");
        assertEquals(2 + 1, report().records(), "the two records after the clean end are not kept");
        assertEquals(CAPACITY + cleanEnd, tally.recoveredEndPosition);
    }

    @Test
    void framesAfterTheCleanEndInTheHeaderAreRefusedUnderFail() throws IOException {
        final SegmentImage newest = segment(1).data(100);
        final int cleanEnd = newest.offset();
        newest.data(100).cleanClose(CAPACITY + cleanEnd);

        final WalCorruptionException refused =
                assertThrows(WalCorruptionException.class, () -> scan(RecoveryPolicy.FAIL, full(0), newest));

        assertEquals(path(1), refused.file());
        assertEquals(cleanEnd, refused.fileOffset());
    }

    @Test
    void anUnusedSegmentAfterOneThatClosedCleanlyAtItsEndEndsCleanlyAtItsFirstFrame() throws IOException {
        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, full(0).cleanClose(CAPACITY), segment(1));

        assertEquals(1, decision.tailIndex());
        assertEquals(new TailJudge.Tail(FIRST, TailOutcome.CLEAN_END), decision.tail());
        assertTrue(tally.closedCleanly);
        assertEquals(CAPACITY + FIRST, tally.recoveredEndPosition);
        assertEquals(2, report().records());
    }

    @Test
    void anUnusedSegmentAfterOneThatDidNotCloseCleanlyIsACrashAtItsFirstFrame() throws IOException {
        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, full(0), segment(1));

        assertEquals(new TailJudge.Tail(FIRST, TailOutcome.CUT_TORN_TAIL), decision.tail());
        assertFalse(tally.closedCleanly);
    }

    @Test
    void aSegmentThatEndsEarlyBeforeALaterSegmentWithDataIsRefusedUnderFail() throws IOException {
        final SegmentImage early = segment(0).data(100);
        final int end = early.offset();

        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class,
                () -> scan(RecoveryPolicy.FAIL, early, segment(1), segment(2).data(10)));

        assertEquals(path(0), refused.file());
        assertEquals(end, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains("the later segment " + SegmentNames.segmentName(2L * CAPACITY) + " holds data"),
                refused.getMessage());
    }

    @Test
    void aSegmentThatEndsEarlyIsSkippedToTheLaterSegmentWithDataUnderSkip() throws IOException {
        final SegmentImage early = segment(0).data(100);
        final int skippedFrom = early.offset();
        final SegmentImage later = segment(1).data(10, 10);
        final int end = later.offset();

        final LogScan.Decision decision = scan(RecoveryPolicy.SKIP, early, later);

        assertEquals(1, decision.tailIndex());
        assertEquals(new TailJudge.Tail(end, TailOutcome.CUT_TORN_TAIL), decision.tail());
        assertEquals(3, report().records());
        assertArrayEquals(new long[] {skippedFrom, CAPACITY}, tally.skippedRanges());
        assertEquals(CAPACITY + end, tally.recoveredEndPosition);
    }

    @Test
    void structuralDamageInALaterSegmentCountsAsALaterSegmentWithData() throws IOException {
        final SegmentImage early = segment(0).data(100);
        final int end = early.offset();
        final TreeMap<Long, Path> segments = new TreeMap<>();
        segments.put(0L, early.writeTo(directory));
        segments.put((long) CAPACITY, Files.write(path(1), new byte[0]));

        final LogScan.Decision decision;
        try (SegmentScanner scanner = new SegmentScanner(LOG_ID, 1024)) {
            decision = new LogScan(CAPACITY, RecoveryPolicy.TRUNCATE, tally)
                    .scan(scanner, segments, new SegmentInventory.Structure(List.of(0L), CAPACITY));
        }

        assertEquals(new TailJudge.Tail(end, TailOutcome.DISCARD_LATER_TOO), decision.tail());
        assertTrue(
                report().findings().get(0).contains("the later segment " + path(1).getFileName() + " holds data"),
                report().findings().toString());
    }

    @Test
    void aDurabilityMarkInTheTailsHeaderMakesDamageBelowItCorruption() throws IOException {
        final SegmentImage newest = segment(1).data(100, 100);
        final int damaged = newest.offset();
        newest.data(100).flip(damaged + 40);
        final int mark = newest.offset();

        assertEquals(
                new TailJudge.Tail(damaged, TailOutcome.CUT_TORN_TAIL),
                scan(RecoveryPolicy.FAIL, full(0), newest).tail(),
                "without a mark: a torn write");

        newest.durableMark(CAPACITY + mark);
        final WalCorruptionException refused =
                assertThrows(WalCorruptionException.class, () -> scan(RecoveryPolicy.FAIL, full(0), newest));
        assertEquals(damaged, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains("below offset " + mark
                                + ", which the segment header recorded as synced when the log went idle"),
                refused.getMessage());
    }

    @Test
    void theRecordsEndWhereADiscardFrameAfterThemStarts() throws IOException {
        final SegmentImage tail = segment(0).data(100, 100);
        final int discard = tail.offset();
        tail.discard(2 * FIRST);

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, tail);

        assertEquals(new TailJudge.Tail(2 * FIRST, TailOutcome.CUT_TORN_TAIL), decision.tail());
        assertEquals(discard, tally.recoveredEndPosition, "a range an earlier recovery gave up holds no record");
        assertEquals(2, report().records());
    }

    @Test
    void recordsAfterADiscardFrameEndWhereTheyEnd() throws IOException {
        final SegmentImage tail = segment(0).data(100).discard(2 * FIRST).data(100);
        final int end = tail.offset();

        scan(RecoveryPolicy.FAIL, tail);

        assertEquals(end, tally.recoveredEndPosition);
    }

    @Test
    void aDiscardFrameThatEndsTheSegmentBeforeTheTailEndsTheRecords() throws IOException {
        final SegmentImage first = segment(0).data(100);
        final int discard = first.offset();
        first.discard(CAPACITY);

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, first, segment(1));

        assertEquals(new TailJudge.Tail(FIRST, TailOutcome.CUT_TORN_TAIL), decision.tail());
        assertEquals(discard, tally.recoveredEndPosition);
    }

    @Test
    void discardFramesToTheEndOfEverySegmentEndTheRecordsWhereTheFirstStarts() throws IOException {
        final SegmentImage first = segment(0).data(100);
        final int discard = first.offset();
        first.discard(CAPACITY);

        final LogScan.Decision decision =
                scan(RecoveryPolicy.FAIL, first, segment(1).discard(CAPACITY));

        assertEquals(-1, decision.tailIndex());
        assertEquals(discard, tally.recoveredEndPosition);
        assertEquals(2L * CAPACITY, tally.provenDurablePosition);
    }

    @Test
    void aBatchOpenAtTheEndOfAFullSegmentIsRefused() throws IOException {
        final SegmentImage full = segment(0).data(100);
        final int batch = full.offset();
        full.openBatch(100).dataToEnd(true);

        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class,
                () -> scan(RecoveryPolicy.FAIL, full, segment(1).data(10)));

        assertEquals(path(0), refused.file());
        assertEquals(batch, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains("the batch that starts at offset " + batch + " runs to the end of the segment,"
                                + " which valid frames fill; a batch never continues into another segment"),
                refused.getMessage());
    }

    @Test
    void aBatchThatEndsAtTheEndOfAFullSegmentIsKept() throws IOException {
        final SegmentImage full = segment(0).data(100).openBatch(100).dataToEnd(false);

        final LogScan.Decision decision = scan(RecoveryPolicy.FAIL, full, segment(1));

        assertEquals(1, decision.tailIndex());
        assertEquals(3, report().records());
        assertNull(decision.scan().prefix());
    }

    /** A segment at an index of the log, zeros after its header. */
    private static SegmentImage segment(final int index) {
        return new SegmentImage(LOG_ID, CAPACITY, (long) index * CAPACITY);
    }

    /** A segment at an index that two records and a padding frame fill. */
    private static SegmentImage full(final int index) {
        return segment(index).data(100, 100).padToEnd();
    }

    private Path path(final int index) {
        return SegmentNames.segmentPath(directory, (long) index * CAPACITY);
    }

    private LogScan.Decision scan(final RecoveryPolicy policy, final SegmentImage... images) throws IOException {
        final TreeMap<Long, Path> segments = new TreeMap<>();
        for (final SegmentImage image : images) {
            segments.put(image.base(), image.writeTo(directory));
        }
        try (SegmentScanner scanner = new SegmentScanner(LOG_ID, 1024)) {
            return new LogScan(CAPACITY, policy, tally)
                    .scan(scanner, segments, new SegmentInventory.Structure(List.copyOf(segments.keySet()), -1));
        }
    }

    private RecoveryReport report() {
        return tally.report(false, LOG_ID, CAPACITY, 1, 0, 0, List.of(), 0);
    }
}
