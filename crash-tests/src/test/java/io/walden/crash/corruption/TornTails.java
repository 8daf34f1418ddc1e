package io.walden.crash.corruption;

import static io.walden.crash.corruption.RecoveryAssertions.assertCleanReopen;
import static io.walden.crash.corruption.RecoveryAssertions.assertFinding;
import static io.walden.crash.corruption.RecoveryAssertions.plus;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.segment.WriteLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Torn tails of the newest segment of a crashed {@link SampleLog} (sectors that never reached the disk
 * read as zeros), and what recovery must do with them under any policy: nothing in the newest segment
 * is proven durable, so it cuts the log at the first torn frame, keeps what it cut as evidence,
 * reports it, and continues at the segment's write limit (nothing was written past it) or in the next
 * segment, where appends survive a reopen.
 *
 * <p><b>Threading:</b> stateless.
 */
final class TornTails {
    private static final int C = SampleLog.SEGMENT_BYTES;

    private TornTails() {}

    /** Damage a crash can leave at the end of the newest segment. */
    enum Damage {
        /** The last frame's first sector never reached the disk (its length reads zero). */
        LAST_FRAME_FIRST_SECTOR_LOST,
        /** A sector in the middle of the last frame never reached the disk. */
        LAST_FRAME_MIDDLE_SECTOR_LOST,
        /** The last frame's final sector never reached the disk: the frame is cut short. */
        LAST_FRAME_END_LOST,
        /** A sector of the second-to-last frame was lost while the last frame reached the disk. */
        SECOND_TO_LAST_FRAME_TORN_LAST_FRAME_INTACT,
        /** A sector of the newest segment's first frame was lost: nothing of that segment survives. */
        FIRST_FRAME_OF_THE_NEWEST_SEGMENT_TORN,
        /** Everything from the last frame on is zero: the log simply ends earlier, nothing to cut. */
        TAIL_ZEROED_FROM_THE_LAST_FRAME
    }

    /**
     * Tears the tail of the newest segment.
     *
     * @param log the log to damage.
     * @param torn how.
     * @return the position where the log must end after recovery.
     * @throws IOException on an I/O failure.
     */
    static long tear(final SampleLog log, final Damage torn) throws IOException {
        final List<LogRecord> newest = log.recordsIn(SampleLog.NEWEST_BASE);
        final Path file = log.segment(SampleLog.NEWEST_BASE);
        final LogRecord last = newest.get(newest.size() - 1);
        final LogRecord victim =
                switch (torn) {
                    case SECOND_TO_LAST_FRAME_TORN_LAST_FRAME_INTACT -> newest.get(newest.size() - 2);
                    case FIRST_FRAME_OF_THE_NEWEST_SEGMENT_TORN -> newest.get(0);
                    default -> last;
                };
        final long start = victim.fileOffset();
        final long end = start + victim.frameLength();
        final int sector = SampleLog.sectorBytes();
        final long firstWholeSector = SampleLog.sectorCeiling(start + FrameDescriptor.HEADER_LENGTH);
        final boolean wholeSectorInside = firstWholeSector + sector < end;
        if (torn == Damage.FIRST_FRAME_OF_THE_NEWEST_SEGMENT_TORN && !wholeSectorInside) {
            // The first frame is a record that did not fit at the end of the segment before, sized
            // for that one: too short to lose a sector after its header, so its first sector is lost.
            FileDamage.zero(file, start, SampleLog.sectorCeiling(start + 1));
            return victim.lsn();
        }
        switch (torn) {
            case LAST_FRAME_FIRST_SECTOR_LOST -> FileDamage.zero(file, start, SampleLog.sectorCeiling(start + 1));
            case LAST_FRAME_END_LOST -> FileDamage.zero(file, (end - 1) & -(long) sector, end);
            case TAIL_ZEROED_FROM_THE_LAST_FRAME -> FileDamage.zero(file, start, C);
            default -> {
                assertTrue(wholeSectorInside, "the torn frame must span several sectors: " + victim);
                FileDamage.zero(file, firstWholeSector, firstWholeSector + sector);
            }
        }
        return victim.lsn();
    }

    /**
     * Opens a torn log and checks the cut, the evidence, the report, appends after it and a clean
     * reopen.
     *
     * @param log the torn log, a copy of a crashed sample log.
     * @param backend the backend.
     * @param policy the policy: a torn tail is cut under every one.
     * @param cutPosition where the log's records must end.
     * @throws IOException on an I/O failure.
     */
    static void assertCut(
            final SampleLog log, final CorruptionBackend backend, final RecoveryPolicy policy, final long cutPosition)
            throws IOException {
        final Path file = log.segment(SampleLog.NEWEST_BASE);
        final long cutOffset = cutPosition - SampleLog.NEWEST_BASE;
        final byte[] bytes = Files.readAllBytes(file);
        final long nonZeroEnd = SampleLog.dataEnd(bytes, cutOffset);
        final List<LogRecord> survivors = log.recordsBefore(cutPosition);
        final long cutRecords = log.records().size() - survivors.size();
        final long continueOffset = WriteLimits.continueOffset(
                cutOffset,
                nonZeroEnd,
                SegmentHeaderDecoder.writeLimitOffset(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)),
                C);
        final long continuePosition = continueOffset == WriteLimits.NEXT_SEGMENT
                ? SampleLog.NEWEST_BASE + C + SegmentHeaderDescriptor.HEADER_LENGTH
                : SampleLog.NEWEST_BASE + continueOffset;
        final LogRecord appended;
        try (Wal wal = Wal.open(SampleLog.config(log.directory(), backend, policy))) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.closedCleanly(), report::summary);
            assertEquals(cutPosition, report.recoveredEndPosition(), report::summary);
            assertEquals(
                    continuePosition,
                    report.endPosition(),
                    "the log continues at the write limit or in the next segment");
            assertEquals(survivors.size(), report.records(), report::summary);
            assertEquals(nonZeroEnd - cutOffset, report.tornTailBytesCut(), report::summary);
            if (nonZeroEnd > cutOffset) {
                assertEquals(file, report.tornTailFile(), report::summary);
                assertEquals(cutOffset, report.tornTailOffset(), report::summary);
                assertFinding(report, "cut the torn tail of " + file.getFileName() + " at offset " + cutOffset);
                assertEquals(1, report.evidence().size(), report::summary);
                assertArrayEquals(
                        Arrays.copyOfRange(bytes, (int) cutOffset, (int) nonZeroEnd),
                        Files.readAllBytes(report.evidence().get(0)),
                        "the evidence holds the cut bytes");
                assertTrue(report.tornTailRecordsCut() <= cutRecords, report::summary);
            } else {
                assertNull(report.tornTailFile(), report::summary);
                assertEquals(-1, report.tornTailOffset(), report::summary);
                assertTrue(report.evidence().isEmpty(), report::summary);
            }
            assertEquals(0, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            SampleLog.assertRecords(survivors, SampleLog.readAll(wal));
            appended = SampleLog.appendSynced(wal, 4242, 777);
            assertEquals(continuePosition, appended.lsn(), "no cut position is given to another record");
        }
        assertCleanReopen(log, backend, plus(survivors, appended));
    }
}
