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
import io.walden.internal.recovery.SegmentScan.Gap;
import io.walden.internal.recovery.SegmentScan.Run;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TailJudge} on scans built by hand: one case for each {@link TailOutcome} it returns, the
 * refusal of each kind of corruption under {@code FAIL} (naming the file and offset), and what each
 * outcome leaves in the {@link RecoveryTally}: the records kept (a cut batch's and the frames after a
 * clean end taken back), the ranges skipped, the findings, and the clean close, recovered end and
 * proven durable position the report gives.
 */
class TailJudgeTest {
    private static final long LOG_ID = 0x7A11_7A11L;
    private static final int CAPACITY = 64 * 1024;
    private static final long BASE = 5L * CAPACITY;
    private static final Path SEGMENT = Path.of("log", SegmentNames.segmentName(BASE));
    private static final Path LATER = Path.of("log", SegmentNames.segmentName(BASE + CAPACITY));
    private static final String MISMATCH = "checksum mismatch (stored 0x00000001, computed 0x00000002)";
    private static final String NOTHING = "zero frame length (nothing written)";

    // The valid end of the prefix run in most cases, and a second run after a damaged gap.
    private static final int VALID_END = 10_000;
    private static final int SECOND_START = 12_000;
    private static final int SECOND_END = 20_000;

    private final RecoveryTally tally = new RecoveryTally();

    @Test
    void nothingAfterARecordedCleanEndIsACleanEnd() {
        final SegmentScan scan = scan(VALID_END, List.of(prefix(5)), List.of(zeros(VALID_END)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.FAIL, scan, FIRST, VALID_END, null);

        assertEquals(new TailJudge.Tail(VALID_END, TailOutcome.CLEAN_END), tail);
        final RecoveryReport report = report();
        assertTrue(report.closedCleanly());
        assertEquals(5, report.records());
        assertEquals(VALID_END - FIRST, report.bytesScanned());
        assertEquals(BASE + VALID_END, report.recoveredEndPosition());
        assertEquals(BASE + VALID_END, report.provenDurablePosition(), "the clean end, above what frames prove");
        assertEquals(List.of(), report.findings());
    }

    @Test
    void nothingAfterTheValidEndOfACrashedLogIsCutThere() {
        final SegmentScan scan = scan(-1, List.of(prefix(5)), List.of(zeros(VALID_END)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.FAIL, scan, FIRST, -1, null);

        assertEquals(new TailJudge.Tail(VALID_END, TailOutcome.CUT_TORN_TAIL), tail);
        assertFalse(tally.closedCleanly);
        assertEquals(5, report().records());
        assertEquals(BASE + VALID_END, tally.recoveredEndPosition);
        assertEquals(BASE + FIRST, tally.provenDurablePosition);
    }

    @Test
    void dataPastTheProvenOffsetIsATornTailCutAtTheValidEnd() {
        final SegmentScan scan = scan(-1, List.of(prefix(5)), List.of(damage(VALID_END, CAPACITY, 10_500)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.FAIL, scan, 6_000, -1, null);

        assertEquals(new TailJudge.Tail(VALID_END, TailOutcome.CUT_TORN_TAIL), tail);
        assertFalse(tally.closedCleanly);
        assertEquals(5, report().records());
        assertEquals(BASE + VALID_END, tally.recoveredEndPosition);
        assertEquals(BASE + 6_000, tally.provenDurablePosition);
        assertEquals(List.of(), report().findings());
    }

    @Test
    void aBatchOpenAtTheValidEndIsCutAtItsStartAndItsRecordsAreNotCounted() {
        final int batch = 8_000;
        final Run run = new Run(FIRST, VALID_END, 5, 500, batch, 2, -1, 0);
        // The batch lies partly below the proven offset: it is cut all the same, never acknowledged.
        final SegmentScan scan = scan(-1, List.of(run), List.of(zeros(VALID_END)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.FAIL, scan, 9_000, -1, null);

        assertEquals(new TailJudge.Tail(batch, TailOutcome.CUT_TORN_TAIL), tail);
        assertEquals(3, report().records(), "the open batch's two records are taken back");
        assertEquals(BASE + batch, tally.recoveredEndPosition);
        assertEquals(BASE + 9_000, tally.provenDurablePosition);
    }

    @Test
    void damageBelowAMarkTheHeaderRecordedIsSkippedAtTheEndUnderSkip() {
        final SegmentScan scan = scan(-1, List.of(prefix(5)), List.of(damage(VALID_END, CAPACITY, 10_500)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.SKIP, scan, 12_000, -1, null);

        assertEquals(new TailJudge.Tail(VALID_END, TailOutcome.SKIP_END), tail);
        assertEquals(5, report().records());
        assertEquals(BASE + VALID_END, tally.recoveredEndPosition);
        assertEquals(BASE + 12_000, tally.provenDurablePosition);
        assertFalse(tally.closedCleanly);
        assertEquals(
                List.of("skipped the corrupt end of " + SEGMENT.getFileName() + " from offset " + VALID_END + ": "
                        + MISMATCH + ", below offset 12000, which the segment header recorded as synced when the"
                        + " log went idle: damage to synced data, not a torn write"),
                report().findings());
    }

    @Test
    void framesAfterACleanEndAreDiscardedFromItUnderSkipAndNotCounted() {
        final int cleanEnd = 8_000;
        final Run run = new Run(FIRST, VALID_END, 5, 500, -1, 0, -1, 2);
        final SegmentScan scan = scan(cleanEnd, List.of(run), List.of(zeros(VALID_END)));

        final TailJudge.Tail tail = judge(RecoveryPolicy.SKIP, scan, FIRST, cleanEnd, null);

        assertEquals(new TailJudge.Tail(cleanEnd, TailOutcome.DISCARD), tail);
        assertEquals(3, report().records(), "the two records after the clean end are taken back");
        assertEquals(BASE + cleanEnd, tally.recoveredEndPosition);
        assertEquals(BASE + cleanEnd, tally.provenDurablePosition);
        assertFalse(tally.closedCleanly, "a log with frames after its clean end did not close there");
        assertEquals(
                List.of("truncated at " + SEGMENT.getFileName() + " offset " + cleanEnd + ": frames after offset "
                        + cleanEnd + ", but the segment header records that the log was closed cleanly at offset "
                        + cleanEnd + " (position " + (BASE + cleanEnd) + "): after a clean close no write can be torn"),
                report().findings());
    }

    @Test
    void damageBelowWhatALaterFrameProvesIsDiscardedWithEverythingAfterUnderTruncate() {
        final SegmentScan scan = provenBySecondRun();

        final TailJudge.Tail tail = judge(RecoveryPolicy.TRUNCATE, scan, 16_000, -1, null);

        assertEquals(new TailJudge.Tail(VALID_END, TailOutcome.DISCARD_LATER_TOO), tail);
        assertEquals(5, report().records(), "the run after the damage is not kept");
        assertEquals(BASE + VALID_END, tally.recoveredEndPosition);
        assertEquals(BASE + 16_000, tally.provenDurablePosition);
        assertEquals(
                List.of("truncated at " + SEGMENT.getFileName() + " offset " + VALID_END + ": " + MISMATCH
                        + ", below offset 16000, which the valid frame at offset 18000 proves was synced before it"
                        + " was written: damage to synced data, not a torn write"),
                report().findings());
    }

    @Test
    void damageBelowWhatALaterFrameProvesIsRefusedUnderFail() {
        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class, () -> judge(RecoveryPolicy.FAIL, provenBySecondRun(), 16_000, -1, null));

        assertEquals(SEGMENT, refused.file());
        assertEquals(VALID_END, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .startsWith("corruption in " + SEGMENT + " at offset " + VALID_END + ": " + MISMATCH
                                + ", below offset 16000, which the valid frame at offset 18000 proves was synced"),
                refused.getMessage());
    }

    @Test
    void framesAfterACleanEndAreRefusedUnderFailAtTheCleanEnd() {
        final int cleanEnd = 8_000;
        final Run run = new Run(FIRST, VALID_END, 5, 500, -1, 0, -1, 2);
        final SegmentScan scan = scan(cleanEnd, List.of(run), List.of(zeros(VALID_END)));

        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class, () -> judge(RecoveryPolicy.FAIL, scan, FIRST, cleanEnd, null));

        assertEquals(SEGMENT, refused.file());
        assertEquals(cleanEnd, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": frames after offset 8000, but the segment header records that the log was"
                                + " closed cleanly at offset 8000"),
                refused.getMessage());
    }

    @Test
    void bytesAfterACleanEndAreRefusedUnderFail() {
        final SegmentScan scan = scan(VALID_END, List.of(prefix(5)), List.of(damage(VALID_END, CAPACITY, 10_008)));

        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class, () -> judge(RecoveryPolicy.FAIL, scan, FIRST, VALID_END, null));

        assertEquals(VALID_END, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": non-zero bytes after offset " + VALID_END
                                + ", but the segment header records that the log was closed cleanly"),
                refused.getMessage());
    }

    @Test
    void damageBeforeARecordedCleanEndIsRefusedUnderFailAtTheDamage() {
        final int cleanEnd = 16_000;
        final SegmentScan scan = scan(cleanEnd, List.of(prefix(5)), List.of(damage(VALID_END, CAPACITY, 10_500)));

        final WalCorruptionException refused = assertThrows(
                WalCorruptionException.class, () -> judge(RecoveryPolicy.FAIL, scan, FIRST, cleanEnd, null));

        assertEquals(VALID_END, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": " + MISMATCH + ", but the segment header records that the log was closed"
                                + " cleanly at offset 16000 (position " + (BASE + cleanEnd) + ")"),
                refused.getMessage());
    }

    @Test
    void aSegmentThatEndsEarlyBeforeALaterSegmentWithDataIsRefusedUnderFail() {
        final SegmentScan scan = scan(-1, List.of(prefix(5)), List.of(zeros(VALID_END)));

        final WalCorruptionException refused =
                assertThrows(WalCorruptionException.class, () -> judge(RecoveryPolicy.FAIL, scan, FIRST, -1, LATER));

        assertEquals(SEGMENT, refused.file());
        assertEquals(VALID_END, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": " + NOTHING + " (the segment ends early), but the later segment "
                                + LATER.getFileName() + " holds data"),
                refused.getMessage());
    }

    @Test
    void damageBetweenRunsIsSkippedToTheNextRunUnderSkipAndBothRunsAreCounted() {
        final TailJudge.Tail tail = judge(RecoveryPolicy.SKIP, provenBySecondRun(), 16_000, -1, null);

        assertEquals(new TailJudge.Tail(SECOND_END, TailOutcome.CUT_TORN_TAIL), tail);
        final RecoveryReport report = report();
        assertEquals(9, report.records());
        assertEquals(VALID_END - FIRST + SECOND_END - SECOND_START, report.bytesScanned());
        assertEquals(SECOND_START - VALID_END, report.skippedBytes());
        assertArrayEquals(new long[] {BASE + VALID_END, BASE + SECOND_START}, tally.skippedRanges());
        assertEquals(BASE + SECOND_END, tally.recoveredEndPosition);
        assertEquals(
                List.of("skipped corrupt bytes at positions [" + (BASE + VALID_END) + ", " + (BASE + SECOND_START)
                        + "): " + MISMATCH + ", below offset 16000, which the valid frame at offset 18000 proves was"
                        + " synced before it was written: damage to synced data, not a torn write"),
                report.findings());
    }

    @Test
    void damageAtTheFirstFrameIsSkippedToTheFirstRunUnderSkip() {
        final Run run = new Run(SECOND_START, SECOND_END, 4, 400, -1, 0, -1, 0);
        final SegmentScan scan = new SegmentScan(
                List.of(run), List.of(damage(FIRST, SECOND_START, 5_000), zeros(SECOND_END)), 16_000, 18_000, -1);

        final TailJudge.Tail tail = judge(RecoveryPolicy.SKIP, scan, 16_000, -1, null);

        assertEquals(new TailJudge.Tail(SECOND_END, TailOutcome.CUT_TORN_TAIL), tail);
        assertEquals(4, report().records());
        assertArrayEquals(new long[] {BASE + FIRST, BASE + SECOND_START}, tally.skippedRanges());
    }

    @Test
    void theRestOfASegmentBeforeALaterSegmentWithDataIsSkippedUnderSkip() {
        final SegmentScan scan = scan(-1, List.of(prefix(5)), List.of(zeros(VALID_END)));

        assertNull(judge(RecoveryPolicy.SKIP, scan, FIRST, -1, LATER), "a later segment continues the log");

        assertEquals(5, report().records());
        assertArrayEquals(new long[] {BASE + VALID_END, BASE + CAPACITY}, tally.skippedRanges());
        assertEquals(CAPACITY - VALID_END, report().skippedBytes());
        assertEquals(-1, tally.recoveredEndPosition, "the log does not end here");
        assertTrue(report().findings()
                .get(0)
                .startsWith("skipped corrupt bytes at positions [" + (BASE + VALID_END)
                        + ", " + (BASE + CAPACITY) + "): " + NOTHING
                        + " (the segment ends early), but the later segment "
                        + LATER.getFileName() + " holds data"));
    }

    @Test
    void skippingToARunThatFillsTheSegmentLeavesTheTailToALaterSegment() {
        final Run last = new Run(SECOND_START, CAPACITY, 7, 700, -1, 0, -1, 0);
        final SegmentScan scan = new SegmentScan(
                List.of(prefix(5), last), List.of(damage(VALID_END, SECOND_START, 11_000)), 16_000, 18_000, -1);

        assertNull(judge(RecoveryPolicy.SKIP, scan, 16_000, -1, null));

        assertEquals(12, report().records());
        assertArrayEquals(new long[] {BASE + VALID_END, BASE + SECOND_START}, tally.skippedRanges());
    }

    @Test
    void aCleanEndAfterSkippedDamageIsStillACleanEnd() {
        final SegmentScan scan = new SegmentScan(
                List.of(prefix(5), new Run(SECOND_START, SECOND_END, 4, 400, -1, 0, -1, 0)),
                List.of(damage(VALID_END, SECOND_START, 11_000), zeros(SECOND_END)),
                FIRST,
                -1,
                SECOND_END);

        final TailJudge.Tail tail = judge(RecoveryPolicy.SKIP, scan, FIRST, SECOND_END, null);

        assertEquals(new TailJudge.Tail(SECOND_END, TailOutcome.CLEAN_END), tail);
        assertTrue(tally.closedCleanly);
        assertEquals(9, report().records());
        assertEquals(BASE + SECOND_END, tally.provenDurablePosition);
    }

    /** A prefix run to {@link #VALID_END}, damage up to a second run whose frame at 18000 proves 16000. */
    private static SegmentScan provenBySecondRun() {
        return new SegmentScan(
                List.of(prefix(5), new Run(SECOND_START, SECOND_END, 4, 400, -1, 0, -1, 0)),
                List.of(damage(VALID_END, SECOND_START, SECOND_START), zeros(SECOND_END)),
                16_000,
                18_000,
                -1);
    }

    private TailJudge.Tail judge(
            final RecoveryPolicy policy,
            final SegmentScan scan,
            final long provenOffset,
            final long cleanEnd,
            final Path laterSegment) {
        return new TailJudge(CAPACITY, policy, tally).judge(SEGMENT, BASE, scan, provenOffset, cleanEnd, laterSegment);
    }

    /**
     * A scan in which no frame proves anything (what is proven comes from the header's mark), with the
     * clean end a header records as its mark, as {@link LogScan} passes it.
     */
    private static SegmentScan scan(final long markOffset, final List<Run> runs, final List<Gap> gaps) {
        return new SegmentScan(runs, gaps, FIRST, -1, markOffset);
    }

    private static Run prefix(final long records) {
        return new Run(FIRST, VALID_END, records, records * 100, -1, 0, -1, 0);
    }

    private static Gap zeros(final long from) {
        return new Gap(from, CAPACITY, NOTHING, from);
    }

    private static Gap damage(final long from, final long to, final long nonZeroEnd) {
        return new Gap(from, to, MISMATCH, nonZeroEnd);
    }

    private RecoveryReport report() {
        return tally.report(false, LOG_ID, CAPACITY, 1, BASE, BASE + VALID_END, List.of(), 0);
    }
}
