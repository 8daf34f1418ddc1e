package io.walden.internal.recovery;

import static io.walden.internal.recovery.SegmentImage.FIRST;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.recovery.SegmentScan.Gap;
import io.walden.internal.recovery.SegmentScan.Run;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SegmentScanner} on segment images built byte by byte: the runs of valid frames and the gaps
 * it reports (with each gap's problem and where its non-zero bytes end), the records, payload bytes,
 * open batch, discard frame and mark counts of each run, the highest durable offset a frame proves,
 * that a frame validates only in its log and at its position, that a recycled segment's bytes at or
 * past its write limit read as zeros, and the range reads recovery makes after a scan.
 */
class SegmentScannerTest {
    private static final long LOG_ID = 0x5EED_1234_ABCDL;
    private static final long OTHER_LOG_ID = 0x0BAD_CAFEL;
    private static final int CAPACITY = 64 * 1024;
    private static final long BASE = 3L * CAPACITY;
    private static final String NOTHING_WRITTEN = "zero frame length (nothing written)";

    @TempDir
    Path directory;

    private final SegmentScanner scanner = new SegmentScanner(LOG_ID, 1024);

    @AfterEach
    void close() {
        scanner.close();
    }

    @Test
    void framesThenZerosAreOneRunAndOneGapOfZeros() throws IOException {
        final SegmentImage image = image().data(10, 100, 1000);
        final int end = image.offset();
        assertEquals(FIRST + 32 + 120 + 1016, end, "frames take their aligned lengths");

        final SegmentScan scan = scan(image);

        final Run run = new Run(FIRST, end, 3, 1110, -1, 0, -1, 0);
        assertEquals(List.of(run), scan.runs());
        assertEquals(List.of(new Gap(end, CAPACITY, NOTHING_WRITTEN, end)), scan.gaps());
        assertFalse(scan.gaps().get(0).holdsData());
        assertTrue(scan.holdsData());
        assertFalse(scan.complete());
        assertEquals(run, scan.prefix());
        assertEquals(end, scan.prefixEndOffset());
        assertEquals(FIRST, scan.provenDurableOffset(), "no frame proves anything past the first frame offset");
        assertEquals(-1, scan.provingFrameOffset());
        assertEquals(3, scan.recordsFrom(FIRST));
        assertEquals(0, scan.recordsFrom(end));
        assertEquals(3, scan.recordsBetween(FIRST, end));
    }

    @Test
    void aSegmentOfZerosHoldsNoRunAndNoData() throws IOException {
        final SegmentScan scan = scan(image());

        assertEquals(List.of(), scan.runs());
        assertEquals(List.of(new Gap(FIRST, CAPACITY, NOTHING_WRITTEN, FIRST)), scan.gaps());
        assertFalse(scan.holdsData());
        assertNull(scan.prefix());
        assertEquals(FIRST, scan.prefixEndOffset());
        assertFalse(scanner.holdsData(path(), CAPACITY));
    }

    @Test
    void framesUpToTheCapacityMakeACompleteSegment() throws IOException {
        final SegmentScan scan = scan(image().data(100, 200).padToEnd());

        assertTrue(scan.complete());
        assertEquals(List.of(), scan.gaps());
        assertEquals(List.of(new Run(FIRST, CAPACITY, 2, 300, -1, 0, -1, 0)), scan.runs(), "padding is no record");
    }

    @Test
    void garbageBetweenFramesSplitsTheRunAndTheGapNamesItsProblemAndItsData() throws IOException {
        final SegmentImage image = image().data(100, 100);
        final int garbage = image.offset();
        image.garbage(64);
        final int second = image.offset();
        image.data(200);
        final int end = image.offset();

        final SegmentScan scan = scan(image);

        assertEquals(
                List.of(new Run(FIRST, garbage, 2, 200, -1, 0, -1, 0), new Run(second, end, 1, 200, -1, 0, -1, 0)),
                scan.runs());
        assertEquals(2, scan.gaps().size());
        final Gap gap = scan.gaps().get(0);
        assertEquals(garbage, gap.startOffset());
        assertEquals(second, gap.endOffset());
        assertEquals("frame length " + 0xA5A5A5A5 + " is impossible here", gap.problem());
        assertEquals(second, gap.nonZeroEndOffset(), "the garbage runs up to the next frame");
        assertTrue(gap.holdsData());
        assertEquals(new Gap(end, CAPACITY, NOTHING_WRITTEN, end), scan.gaps().get(1));
        assertEquals(scan.runs().get(0), scan.prefix());
        assertEquals(1, scan.recordsFrom(garbage), "the records after the gap");
        assertEquals(2, scan.recordsBetween(FIRST, garbage));
        assertEquals(gap, scan.gapAt(garbage));
        assertThrows(IllegalStateException.class, () -> scan.gapAt(second));
    }

    @Test
    void aFlippedByteMakesItsFrameAGapUpToTheNextValidFrame() throws IOException {
        final SegmentImage image = image().data(100);
        final int damaged = image.offset();
        image.data(100);
        final int next = image.offset();
        image.data(100).flip(damaged + FrameDescriptor.HEADER_LENGTH + 5);

        final SegmentScan scan = scan(image);

        assertEquals(2, scan.runs().size());
        assertEquals(next, scan.runs().get(1).startOffset());
        final Gap gap = scan.gapAt(damaged);
        assertEquals(next, gap.endOffset());
        assertTrue(gap.problem().startsWith("checksum mismatch (stored 0x"), gap.problem());
        assertEquals(
                damaged + FrameDescriptor.frameLength(100),
                gap.nonZeroEndOffset(),
                "the damaged frame's bytes end at its length; its alignment gap is zero");
    }

    @Test
    void damageAtTheFirstFrameLeavesNoPrefix() throws IOException {
        final SegmentImage image = image().garbage(8);
        final int run = image.offset();
        image.data(10);

        final SegmentScan scan = scan(image);

        assertNull(scan.prefix());
        assertEquals(FIRST, scan.prefixEndOffset());
        assertEquals(run, scan.runs().get(0).startOffset());
        assertEquals(1, scan.recordsFrom(FIRST));
    }

    @Test
    void aBatchOpenAtTheRunsEndIsCountedFromItsFirstFrame() throws IOException {
        final SegmentImage image = image().data(100);
        final int batch = image.offset();
        image.openBatch(50, 60);
        final int end = image.offset();

        final SegmentScan scan = scan(image);

        final Run run = new Run(FIRST, end, 3, 210, batch, 2, -1, 0);
        assertEquals(List.of(run), scan.runs());
        assertEquals(batch, run.completeEndOffset());
        assertEquals(2, scan.recordsFrom(batch));
        assertEquals(2, scan.recordsBetween(batch, end));
        assertEquals(1, scan.recordsBetween(FIRST, batch));
    }

    @Test
    void aCompleteBatchLeavesNothingOpen() throws IOException {
        final SegmentImage image = image().data(100).batch(50, 60, 70);
        final int end = image.offset();

        final Run run = scan(image).runs().get(0);

        assertEquals(new Run(FIRST, end, 4, 280, -1, 0, -1, 0), run);
        assertEquals(end, run.completeEndOffset());
    }

    @Test
    void aBatchThatGoesOnIntoAPaddingFrameEndsTheRunThere() throws IOException {
        final SegmentImage image = image().openBatch(50);
        final int padding = image.offset();
        image.padding(32);
        final int after = image.offset();
        image.data(10);

        final SegmentScan scan = scan(image);

        assertEquals(
                new Run(FIRST, padding, 1, 50, FIRST, 1, -1, 0), scan.runs().get(0), "the batch is left open");
        final Gap gap = scan.gapAt(padding);
        assertEquals("a frame of type 2 where the batch of the frame before it goes on", gap.problem());
        assertEquals(after, gap.endOffset(), "the padding frame is valid on its own: the next run starts after it");
        assertEquals(after, scan.runs().get(1).startOffset());
    }

    @Test
    void theMarkCountsTheRecordsAtOrAfterItInEachRun() throws IOException {
        final SegmentImage image = image().data(10);
        final int firstRunSecond = image.offset();
        image.data(10);
        final int garbage = image.offset();
        image.garbage(16);
        final int secondRun = image.offset();
        image.data(10);
        final int secondRunSecond = image.offset();
        image.data(10, 10);
        final int end = image.offset();

        final SegmentScan inSecondRun = scan(image, secondRunSecond);
        assertEquals(0, inSecondRun.runs().get(0).markRecords());
        assertEquals(2, inSecondRun.runs().get(1).markRecords());
        assertEquals(secondRunSecond, inSecondRun.markOffset());
        assertEquals(2, inSecondRun.recordsFrom(secondRunSecond));
        assertEquals(2, inSecondRun.recordsBetween(secondRunSecond, end));

        final SegmentScan inFirstRun = scan(image, firstRunSecond);
        assertEquals(1, inFirstRun.runs().get(0).markRecords());
        assertEquals(3, inFirstRun.runs().get(1).markRecords());
        assertEquals(4, inFirstRun.recordsFrom(firstRunSecond));
        assertEquals(1, inFirstRun.recordsBetween(firstRunSecond, garbage));

        final SegmentScan atRunStart = scan(image, secondRun);
        assertEquals(3, atRunStart.recordsFrom(secondRun));

        final SegmentScan noMark = scan(image, -1);
        assertEquals(0, noMark.runs().get(0).markRecords());
        assertEquals(0, noMark.runs().get(1).markRecords());
    }

    @Test
    void recordsFromAnOffsetInsideARunThatNoCountCoversThrows() throws IOException {
        final SegmentImage image = image().data(10);
        final int second = image.offset();
        image.data(10, 10);

        final SegmentScan scan = scan(image, -1);

        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> scan.recordsFrom(second));
        assertEquals(
                "no count of the records of the run at offset " + FIRST + " from offset " + second,
                refused.getMessage());
        assertThrows(IllegalStateException.class, () -> scan.recordsBetween(FIRST, second));
    }

    @Test
    void theProvenDurableOffsetIsTheHighestAnyValidFrameCarries() throws IOException {
        final SegmentImage image = image().data(10);
        final int second = image.offset();
        image.data(10);
        final int third = image.offset();
        image.durableOffset(third).data(10);
        image.durableOffset(second).data(10);

        final SegmentScan scan = scan(image);

        assertEquals(third, scan.provenDurableOffset());
        assertEquals(third, scan.provingFrameOffset());
    }

    @Test
    void aValidFramePastAGapProvesTheGapWasSynced() throws IOException {
        final SegmentImage image = image().data(10, 10);
        final int garbage = image.offset();
        image.garbage(64);
        final int proving = image.offset();
        image.durableOffset(proving).data(10);

        final SegmentScan scan = scan(image);

        assertEquals(proving, scan.provenDurableOffset());
        assertEquals(proving, scan.provingFrameOffset());
        assertTrue(scan.provenDurableOffset() > garbage);
    }

    @Test
    void aFrameSealedForAnotherLogDoesNotValidate() throws IOException {
        final SegmentImage image = image().data(100);
        final int foreign = image.offset();
        image.dataSealedFor(OTHER_LOG_ID, BASE + foreign, 100);
        final int next = image.offset();
        image.data(100);

        final SegmentScan scan = scan(image);

        final Gap gap = scan.gapAt(foreign);
        assertTrue(gap.problem().startsWith("checksum mismatch"), gap.problem());
        assertEquals(next, gap.endOffset());
        assertEquals(1, scan.runs().get(0).records());
        assertEquals(next, scan.runs().get(1).startOffset());
    }

    @Test
    void aFrameSealedForAnotherPositionDoesNotValidate() throws IOException {
        final SegmentImage image = image().data(100);
        final int moved = image.offset();
        image.dataSealedFor(LOG_ID, BASE + moved - FrameDescriptor.FRAME_ALIGNMENT, 100);
        final int next = image.offset();
        image.data(100);

        final SegmentScan scan = scan(image);

        final Gap gap = scan.gapAt(moved);
        assertTrue(gap.problem().startsWith("checksum mismatch"), gap.problem());
        assertEquals(next, gap.endOffset());
    }

    @Test
    void aSegmentScannedAsAnotherBaseOrAnotherLogHoldsNoValidFrame() throws IOException {
        final Path path = image().data(10, 20, 30).writeTo(directory);

        final SegmentScan elsewhere = scanner.scan(path, BASE + CAPACITY, CAPACITY, -1);
        assertEquals(List.of(), elsewhere.runs(), "a moved copy's frames never validate");
        assertTrue(elsewhere.holdsData());
        assertTrue(elsewhere.gaps().get(0).problem().startsWith("checksum mismatch"));

        try (SegmentScanner other = new SegmentScanner(OTHER_LOG_ID, 1024)) {
            assertEquals(List.of(), other.scan(path, BASE, CAPACITY, -1).runs(), "nor do another log's");
        }
    }

    @Test
    void aRecycledSegmentReadsItsEarlierLifePastTheWriteLimitAsZeros() throws IOException {
        final int limit = 2 * FIRST;
        final SegmentImage earlier = new SegmentImage(LOG_ID, CAPACITY, BASE - 2 * CAPACITY);
        while (earlier.offset() + 1024 < CAPACITY) {
            earlier.data(1000);
        }
        final int staleEnd = earlier.offset();
        final SegmentImage recycled =
                image().stale(earlier, limit).recycled(limit).data(100, 100);
        final int end = recycled.offset();

        final SegmentScan scan = scan(recycled);
        assertEquals(List.of(new Run(FIRST, end, 2, 200, -1, 0, -1, 0)), scan.runs());
        assertEquals(List.of(new Gap(end, CAPACITY, NOTHING_WRITTEN, end)), scan.gaps(), "stale bytes read as zeros");
        assertEquals(end, scanner.dataEnd(path(), end, CAPACITY));

        final SegmentImage notRecycled =
                image().stale(earlier, limit).writeLimit(limit, false).data(100, 100);
        final SegmentScan plain = scan(notRecycled);
        assertEquals(scan.runs(), plain.runs());
        assertEquals(
                List.of(new Gap(end, CAPACITY, NOTHING_WRITTEN, staleEnd)),
                plain.gaps(),
                "without the flag, the same bytes are data after the frames");
        assertEquals(staleEnd, scanner.dataEnd(path(), end, CAPACITY));
    }

    @Test
    void aFrameValidHerePastTheWriteLimitOfARecycledSegmentIsNotRead() throws IOException {
        final int limit = 2 * FIRST;
        final SegmentScan recycled =
                scan(image().recycled(limit).data(100).at(limit).data(100));
        final int end = FIRST + 120;
        assertEquals(List.of(new Run(FIRST, end, 1, 100, -1, 0, -1, 0)), recycled.runs());
        assertEquals(List.of(new Gap(end, CAPACITY, NOTHING_WRITTEN, end)), recycled.gaps());
        final ByteArrayOutputStream copied = new ByteArrayOutputStream();
        scanner.copyRange(path(), limit, limit + 64, bytes -> copied.writeBytes(remaining(bytes)));
        assertArrayEquals(new byte[64], copied.toByteArray(), "evidence copies stale bytes as zeros too");

        final SegmentScan plain =
                scan(image().writeLimit(limit, false).data(100).at(limit).data(100));
        assertEquals(2, plain.runs().size());
        assertEquals(limit, plain.runs().get(1).startOffset());
    }

    @Test
    void aDiscardFrameAfterTheRecordsIsTheRunsDiscardOffset() throws IOException {
        final SegmentImage image = image().data(100, 100);
        final int discard = image.offset();
        image.discard(2 * FIRST);

        final SegmentScan scan = scan(image);

        assertEquals(List.of(new Run(FIRST, 2 * FIRST, 2, 200, -1, 0, discard, 0)), scan.runs());
        assertEquals(List.of(new Gap(2 * FIRST, CAPACITY, NOTHING_WRITTEN, 2 * FIRST)), scan.gaps());
    }

    @Test
    void aDiscardFrameToTheCapacityCompletesTheSegment() throws IOException {
        final SegmentImage image = image().data(100);
        final int discard = image.offset();

        final SegmentScan scan = scan(image.discard(CAPACITY));

        assertTrue(scan.complete());
        assertEquals(List.of(new Run(FIRST, CAPACITY, 1, 100, -1, 0, discard, 0)), scan.runs());
    }

    @Test
    void aDiscardFrameEndsABatchOpenBeforeIt() throws IOException {
        final SegmentImage image = image().data(10).openBatch(100, 100);
        final int discard = image.offset();
        image.discard(2 * FIRST);

        final SegmentScan scan = scan(image);

        assertEquals(
                List.of(new Run(FIRST, 2 * FIRST, 3, 210, -1, 0, discard, 0)),
                scan.runs(),
                "a truncation kept the batch's records up to the discard frame");
    }

    @Test
    void recordsAfterADiscardFrameClearItsOffset() throws IOException {
        final SegmentImage image = image().data(100).discard(2 * FIRST).data(100);
        final int end = image.offset();

        final SegmentScan scan = scan(image);

        assertEquals(List.of(new Run(FIRST, end, 2, 200, -1, 0, -1, 0)), scan.runs());
    }

    @Test
    void aDiscardFrameOverNonZeroBytesDoesNotValidate() throws IOException {
        final SegmentImage image = image().data(100);
        final int discard = image.offset();
        image.discard(2 * FIRST).at(discard + 64).garbage(8);

        final SegmentScan scan = scan(image);

        assertEquals(discard, scan.runs().get(0).endOffset());
        final Gap gap = scan.gapAt(discard);
        assertEquals(
                "non-zero byte before offset " + (discard + 72)
                        + " in the range the discard frame covers, which recovery leaves zero",
                gap.problem());
        assertEquals(discard + 72, gap.nonZeroEndOffset());
    }

    @Test
    void aFileCutShortEndsInAGapThatSaysSo() throws IOException {
        final SegmentImage image = image().data(100);
        final int end = image.offset();
        final Path path = image.writeTo(directory, end);

        final SegmentScan scan = scanner.scan(path, BASE, CAPACITY, -1);

        assertEquals(end, scan.runs().get(0).endOffset());
        assertEquals(
                List.of(new Gap(end, CAPACITY, "the file ends at " + end + " before its capacity of " + CAPACITY, end)),
                scan.gaps());
    }

    @Test
    void aFrameThatRunsPastTheEndOfTheFileIsAGap() throws IOException {
        final SegmentImage image = image().data(100);
        final int torn = image.offset();
        image.data(1000);
        final Path path = image.writeTo(directory, torn + 104);

        final SegmentScan scan = scanner.scan(path, BASE, CAPACITY, -1);

        final Gap gap = scan.gapAt(torn);
        assertEquals("frame of 1016 bytes runs past the end of the file", gap.problem());
        assertEquals(torn + 104, gap.nonZeroEndOffset());
    }

    @Test
    void holdsDataSeesAnyNonZeroByteAfterTheHeader() throws IOException {
        image().writeTo(directory);
        assertFalse(scanner.holdsData(path(), CAPACITY));

        image().flip(CAPACITY - 1).writeTo(directory);
        assertTrue(scanner.holdsData(path(), CAPACITY), "the segment's last byte");

        image().data(10).writeTo(directory);
        assertTrue(scanner.holdsData(path(), CAPACITY));
    }

    @Test
    void dataEndIsTheEndOfTheLastNonZeroByteInTheRange() throws IOException {
        image().at(10_000).garbage(3).writeTo(directory);

        assertEquals(10_003, scanner.dataEnd(path(), FIRST, CAPACITY));
        assertEquals(10_003, scanner.dataEnd(path(), 10_003, CAPACITY), "all zero: the range's start");
        assertEquals(10_008, scanner.dataEnd(path(), 10_008, CAPACITY));
        assertEquals(10_001, scanner.dataEnd(path(), FIRST, 10_001), "bounded by the range's end");
    }

    @Test
    void dataFrameEndFindsOnlyDataFramesThatStartInTheRun() throws IOException {
        final SegmentImage image = image().data(100);
        final int padding = image.offset();
        image.padding(32);
        final int last = image.offset();
        image.data(10);
        final Run run = scan(image).runs().get(0);

        assertEquals(FIRST + 120, scanner.dataFrameEnd(path(), run, FIRST));
        assertEquals(last + 32, scanner.dataFrameEnd(path(), run, last));
        assertEquals(-1, scanner.dataFrameEnd(path(), run, padding), "a padding frame");
        assertEquals(-1, scanner.dataFrameEnd(path(), run, FIRST + 8), "inside a frame");
        assertEquals(-1, scanner.dataFrameEnd(path(), run, run.endOffset()), "past the run");
        assertEquals(-1, scanner.dataFrameEnd(path(), run, FIRST - 8), "before the run");
    }

    @Test
    void forEachFrameWalksTheRunsFrameHeadersUntilTold() throws IOException {
        final SegmentImage image = image().data(100);
        final int second = image.offset();
        image.durableOffset(second).padding(8);
        final int third = image.offset();
        image.data(10);
        final int end = image.offset();

        final List<String> visited = new ArrayList<>();
        scanner.forEachFrame(path(image), FIRST, end, (offset, length, type, durable) -> {
            visited.add(offset + ":" + length + ":" + type + ":" + durable);
            return true;
        });
        assertEquals(List.of(FIRST + ":116:1:" + FIRST, second + ":8:-1:-1", third + ":26:1:" + second), visited);

        visited.clear();
        scanner.forEachFrame(path(), FIRST, third, (offset, length, type, durable) -> visited.add("" + offset));
        assertEquals(List.of("" + FIRST, "" + second), visited, "frames that start before the end offset");

        visited.clear();
        scanner.forEachFrame(path(), FIRST, end, (offset, length, type, durable) -> {
            visited.add("" + offset);
            return offset < second;
        });
        assertEquals(List.of("" + FIRST, "" + second), visited, "stops when the visitor says so");
    }

    @Test
    void copyRangeHandsOverTheBytesOfTheRange() throws IOException {
        final SegmentImage image = image().data(100, 1000).garbage(24);
        final int end = image.offset();
        final Path path = image.writeTo(directory);

        final ByteArrayOutputStream copied = new ByteArrayOutputStream();
        scanner.copyRange(path, FIRST + 8, end, bytes -> copied.writeBytes(remaining(bytes)));

        assertArrayEquals(Arrays.copyOfRange(image.bytes(), FIRST + 8, end), copied.toByteArray());
        final IOException pastTheFile =
                assertThrows(IOException.class, () -> scanner.copyRange(path, FIRST, CAPACITY + 8, bytes -> {}));
        assertTrue(pastTheFile.getMessage().endsWith("ends before offset " + (CAPACITY + 8)), pastTheFile.getMessage());
    }

    @Test
    void aScannerKeepsNothingFromOneScanToTheNext() throws IOException {
        final SegmentImage image = image().data(100).garbage(16).data(10).openBatch(20);
        final SegmentScan first = scan(image);
        final Path other = new SegmentImage(LOG_ID, CAPACITY, BASE + CAPACITY)
                .data(10)
                .garbage(4000)
                .writeTo(directory);
        scanner.scan(other, BASE + CAPACITY, CAPACITY, FIRST);

        assertEquals(first, scanner.scan(path(), BASE, CAPACITY, -1));
    }

    private static SegmentImage image() {
        return new SegmentImage(LOG_ID, CAPACITY, BASE);
    }

    private SegmentScan scan(final SegmentImage image) throws IOException {
        return scan(image, -1);
    }

    private SegmentScan scan(final SegmentImage image, final long markOffset) throws IOException {
        return scanner.scan(path(image), BASE, CAPACITY, markOffset);
    }

    private Path path(final SegmentImage image) throws IOException {
        return image.writeTo(directory);
    }

    private Path path() {
        return directory.resolve(SegmentNames.segmentName(BASE));
    }

    private static byte[] remaining(final ByteBuffer bytes) {
        final byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        return copy;
    }
}
