package io.walden.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.WalView;
import io.walden.format.EvidenceFiles;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.WriteLimits;
import io.walden.spi.StorageBackend;
import io.walden.testing.LogImages;
import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Recovery and corruption contract, run by every storage backend: logs are written through the
 * backend, closed (or copied while open, which is what a kill -9 leaves), damaged directly on disk
 * with a {@link FileChannel}, and reopened. Every test states the exact outcome that {@code
 * RecoveryRule} and the {@link RecoveryPolicy} decision table prescribe:
 *
 * <ul>
 *   <li>After a clean close (recorded in the newest segment's header) every invalid byte is
 *       corruption: {@link RecoveryPolicy#FAIL} throws a {@link WalCorruptionException} naming file and
 *       offset.
 *   <li>After a crash, damage below the highest durable offset any valid frame carries (a frame
 *       written after its predecessors were synced proves them) is corruption, whatever its shape;
 *       only data past it is a torn tail, cut under every policy with the cut bytes kept as evidence.
 *   <li>After a crash the log continues at the write limit its tail segment's header records (nothing
 *       was ever written at or past it), so that no position is given twice and a crash costs no
 *       new segment.
 *   <li>A missing middle segment, a bad, foreign, short or empty segment file is corruption.
 * </ul>
 *
 * <p>Segments are small (256 KiB, buffer 64 KiB) so that multi-segment logs are quick to build.
 * Every test works in its own directory under {@code target/} of the running module (not
 * {@code /tmp}, which may be a tmpfs without O_DIRECT).
 */
public abstract class RecoveryContractTest {
    /** Segment capacity used by every test. */
    protected static final int SEGMENT_BYTES = 256 * 1024;
    /** Log buffer capacity used by every test. */
    protected static final int BUFFER_BYTES = 64 * 1024;
    /** Largest record: must fit in half the buffer. */
    protected static final int MAX_RECORD_BYTES = 16 * 1024;

    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int SECTOR = 512;
    private static final String UNFINISHED_PREPARATION = "deleted unfinished segment preparation";

    /**
     * The backend under test; a new instance per call.
     *
     * @return the backend.
     */
    protected abstract StorageBackend newBackend();

    /** A record as appended or as read back. */
    protected record Rec(long lsn, byte[] payload) {
        @Override
        public String toString() {
            return "Rec{lsn=" + lsn + ", length=" + payload.length + '}';
        }
    }

    /** Where a frame of the log lies on disk. */
    private record Location(Path file, long offset, int frameLength) {}

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        final Path base = Path.of("target", "walden-recovery-tests").toAbsolutePath();
        Files.createDirectories(base);
        root = Files.createTempDirectory(base, getClass().getSimpleName() + "-");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        deleteRecursively(root);
    }

    // ---------------------------------------------------------------------------------------------
    // Ground truth: the clean close, and what valid frames prove
    // ---------------------------------------------------------------------------------------------

    @Test
    void cleanCloseIsRecordedInTheHeaderAndClearedBeforeTheLogIsWrittenAgain() throws IOException {
        final List<Rec> written = createLog(dir, 3, 100);
        final Path segment = SegmentNames.segmentPath(dir, 0);
        final long end = endOf(written.get(2));
        assertEquals(end, LogImages.cleanEndPosition(segment), "close records where the log ended");
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertTrue(wal.recoveryReport().closedCleanly(), wal.recoveryReport()::summary);
            assertEquals(end, wal.recoveryReport().provenDurablePosition(), wal.recoveryReport()::summary);
            assertEquals(end, wal.recoveryReport().endPosition(), "after a clean close the log continues there");
            assertEquals(-1, LogImages.cleanEndPosition(segment), "open clears the record before any append");
            assertRecords(written, readAll(wal));
        }
        assertEquals(end, LogImages.cleanEndPosition(segment));
    }

    @Test
    void afterACleanCloseAZeroedSectorInTheLastFrameIsCorruptionNotATornTail() throws IOException {
        final List<Rec> written = createLog(dir, 10, 2000);
        final Location last = locate(dir, written.get(written.size() - 1));
        zeroFirstWholeSectorAfterHeader(last);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, last.file(), last.offset());
        assertTrue(ex.getMessage().contains("closed cleanly"), ex.getMessage());
        assertNoEvidence(dir);
    }

    @Test
    void afterACleanCloseAFlippedBitInTheLastFrameIsCorruption() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 2, 4000);
        final Rec lastRecord = written.get(written.size() - 1);
        final Location last = locate(dir, lastRecord);
        assertEquals(SEGMENT_BYTES, segmentBase(lastRecord.lsn()), "the last frame lies in the last segment");
        flipBit(last.file(), last.offset() + last.frameLength() - 3, 0);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, last.file(), last.offset());
        assertTrue(ex.getMessage().contains("closed cleanly"), ex.getMessage());

        final long highestEnd = lastSegmentBase(dir) + SEGMENT_BYTES;
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            assertEquals(lastRecord.lsn(), wal.recoveryReport().recoveredEndPosition());
            assertTrue(wal.recoveryReport().endPosition() >= highestEnd, wal.recoveryReport()::summary);
            assertRecords(written.subList(0, written.size() - 1), readAll(wal));
            assertEvidenceHolds(wal.recoveryReport(), last.file(), last.offset());
        }
        assertCleanReopen(dir, written.subList(0, written.size() - 1));
    }

    @Test
    void afterACleanCloseANonZeroByteAfterTheEndIsCorruption() throws IOException {
        final List<Rec> written = createLog(dir, 4, 300);
        final long end = endOf(written.get(3));
        final Path segment = SegmentNames.segmentPath(dir, 0);
        flipBit(segment, end + 5000, 3);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, segment, end);
        assertTrue(ex.getMessage().contains("non-zero bytes after offset " + end), ex.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ProvenDamage.class)
    void afterACrashDamageBelowTheProvenDurablePositionIsCorruptionWhateverItsShape(final ProvenDamage damage)
            throws IOException {
        // Every record is appended SYNCED: each frame carries the end of the one before it as the
        // durable offset, so the last frame proves every frame but itself.
        final List<Rec> written = crashedLog(dir, 8, 2000, Durability.SYNCED);
        final Rec victim = written.get(written.size() - 3);
        final Location location = locate(dir, victim);
        damage.apply(location);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, location.file(), location.offset());
        assertTrue(ex.getMessage().contains("proves was synced"), ex.getMessage());
        assertTrue(ex.getMessage().contains("not a torn write"), ex.getMessage());
        assertNoEvidence(dir);
    }

    /** Damage to a synced frame that a crash could not have caused, shaped like a torn write or not. */
    enum ProvenDamage {
        /** A whole zero sector inside the frame: what a torn write looks like. */
        ZERO_SECTOR_INSIDE_FRAME {
            @Override
            void apply(final Location frame) throws IOException {
                zeroFirstWholeSectorAfterHeader(frame);
            }
        },
        /** The frame's part of its first sector zero: the log seems to end there. */
        ZERO_HEADER_SECTOR {
            @Override
            void apply(final Location frame) throws IOException {
                zero(frame.file(), frame.offset(), roundUp(frame.offset() + 1, SECTOR));
            }
        },
        /** The whole frame zero: a page that never reached the disk. */
        ZERO_WHOLE_FRAME {
            @Override
            void apply(final Location frame) throws IOException {
                zero(frame.file(), frame.offset(), frame.offset() + frame.frameLength());
            }
        },
        /** One flipped bit in the length field. */
        FLIPPED_LENGTH_BIT {
            @Override
            void apply(final Location frame) throws IOException {
                flipBit(frame.file(), frame.offset() + FrameDescriptor.LENGTH_OFFSET + 1, 3);
            }
        },
        /** One flipped bit in the payload. */
        FLIPPED_PAYLOAD_BIT {
            @Override
            void apply(final Location frame) throws IOException {
                flipBit(frame.file(), frame.offset() + FrameDescriptor.HEADER_LENGTH + 77, 6);
            }
        };

        abstract void apply(Location frame) throws IOException;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RecoveryPolicy.class)
    void afterACrashUnsyncedDamageIsATornTailCutUnderEveryPolicyWithEvidence(final RecoveryPolicy policy)
            throws IOException {
        // WRITTEN records: nothing was synced during the session, so nothing proves them.
        final List<Rec> written = crashedLog(dir, 10, 2000, Durability.WRITTEN);
        final Location last = locate(dir, written.get(written.size() - 1));
        zeroFirstWholeSectorAfterHeader(last);
        final byte[] damagedBytes = readRange(last.file(), last.offset(), last.offset() + last.frameLength());

        assertTornTailCut(written, written.size() - 1, last, policy, damagedBytes);
    }

    @Test
    void aTornTailAtAnyByteOffsetIsCut() throws IOException {
        final Random random = new Random(dir.hashCode());
        for (int trial = 0; trial < 4; trial++) {
            final Path trialDir = root.resolve("tear-" + trial);
            final List<Rec> written = crashedLog(trialDir, 6, 3000, Durability.WRITTEN);
            final Location last = locate(trialDir, written.get(written.size() - 1));
            // A tear that is not sector-shaped: the frame's bytes from an arbitrary offset on are lost.
            final long tear = last.offset()
                    + FrameDescriptor.HEADER_LENGTH
                    + random.nextInt(last.frameLength() - FrameDescriptor.HEADER_LENGTH);
            zero(last.file(), tear, last.offset() + last.frameLength());
            try (Wal wal = open(trialDir, RecoveryPolicy.FAIL)) {
                final RecoveryReport report = wal.recoveryReport();
                assertEquals(last.offset(), report.tornTailOffset(), report::summary);
                assertEquals(tear - last.offset(), report.tornTailBytesCut(), report::summary);
                assertRecords(written.subList(0, written.size() - 1), readAll(wal));
            }
        }
    }

    @Test
    void validFramesPastAnUnsyncedHoleAreCutAndNeverComeBack() throws IOException {
        // Frames of exactly 1024 bytes from the first frame position: A, B, C, all WRITTEN.
        final int payloadBytes = 1024 - FrameDescriptor.HEADER_LENGTH;
        final List<Rec> written = crashedLog(dir, 3, payloadBytes, Durability.WRITTEN);
        final Rec a = written.get(0);
        final Rec b = written.get(1);
        final Rec c = written.get(2);
        assertEquals(HEADER + 1024, b.lsn());
        final Location bLocation = locate(dir, b);
        // B's page never reached the disk; C's did (the page cache writes pages back in any order).
        zero(bLocation.file(), bLocation.offset(), bLocation.offset() + bLocation.frameLength());
        final long continueAt = continuePositionAfterCrash(bLocation.file(), written);

        final Rec d;
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(b.lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(bLocation.offset(), report.tornTailOffset(), report::summary);
            assertEquals(1, report.tornTailRecordsCut(), "C is cut with the hole before it: " + report.summary());
            assertEquals(2048, report.tornTailBytesCut(), report::summary);
            assertRecords(List.of(a), readAll(wal));
            d = append(wal, 4242, payloadBytes, Durability.SYNCED);
            assertEquals(continueAt, d.lsn(), "after a crash the log continues at the write limit, past C");
        }
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertEquals(2, wal.recoveryReport().records(), "C must not come back");
            assertRecords(List.of(a, d), readAll(wal));
        }
    }

    @Test
    void aValidFramePastAHoleProvesTheHoleIsCorruption() throws IOException {
        // A, B, C appended SYNCED one after the other: C was written after B was synced, and says so.
        final int payloadBytes = 1024 - FrameDescriptor.HEADER_LENGTH;
        final List<Rec> written = crashedLog(dir, 3, payloadBytes, Durability.SYNCED);
        final Location bLocation = locate(dir, written.get(1));
        zero(bLocation.file(), bLocation.offset(), bLocation.offset() + bLocation.frameLength());

        final WalCorruptionException ex =
                assertOpenFails(dir, RecoveryPolicy.FAIL, bLocation.file(), bLocation.offset());
        assertTrue(ex.getMessage().contains("offset " + (bLocation.offset() + 1024)), ex.getMessage());
        try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
            assertRecords(List.of(written.get(0), written.get(2)), readAll(wal));
        }
    }

    @Test
    void aCrashThatLeftEightBytesAtASegmentsEndIsClosedWithAShortPaddingFrame() throws IOException {
        // The log ends 8 bytes before its segment's end, where no frame header fits: recovery must close
        // the segment with the one frame that fits there, within the segment. (It wrote a 16-byte
        // discard header instead, 8 bytes past the end, which no reader could validate: the nio kill
        // campaign found it.)
        final Path live = root.resolve("eight-live");
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(
                configBuilder(live, RecoveryPolicy.FAIL).syncIntervalNs(0).build())) {
            int seed = 0;
            while (SEGMENT_BYTES - wal.tailPosition() >= 8000) {
                written.add(append(wal, seed++, 4000, Durability.WRITTEN));
            }
            final int lastPayload = (int) (SEGMENT_BYTES
                    - wal.tailPosition()
                    - FrameDescriptor.SHORT_PADDING_LENGTH
                    - FrameDescriptor.HEADER_LENGTH);
            written.add(append(wal, seed, lastPayload, Durability.SYNCED));
            assertEquals(SEGMENT_BYTES - FrameDescriptor.SHORT_PADDING_LENGTH, wal.tailPosition());
            LogImages.crashImage(live, dir);
        }
        final Rec next;
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertRecords(written, readAll(wal));
            next = append(wal, 77, 300, Durability.SYNCED);
            assertEquals(SEGMENT_BYTES + HEADER, next.lsn(), "the log continues in the next segment");
        }
        assertEquals(SEGMENT_BYTES, Files.size(SegmentNames.segmentPath(dir, 0)), "nothing written past the end");
        final List<Rec> expected = new ArrayList<>(written);
        expected.add(next);
        assertCleanReopen(dir, expected);
    }

    @Test
    void afterACrashTheLogNeverGivesAPositionItMayHaveWrittenToAnotherRecord() throws IOException {
        final List<Rec> written = crashedLog(dir, 5, 700, Durability.WRITTEN);
        final long end = endOf(written.get(4));
        final long continueAt =
                continuePositionAfterCrash(LogImages.segmentFiles(dir).get(0), written);
        final Rec next;
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.closedCleanly(), report::summary);
            assertEquals(end, report.recoveredEndPosition(), report::summary);
            assertEquals(continueAt, report.endPosition(), report::summary);
            assertEquals(0, report.tornTailBytesCut(), report::summary);
            assertTrue(report.evidence().isEmpty(), "nothing was cut: " + report.summary());
            assertRecords(written, readAll(wal));
            next = append(wal, 31, 50, Durability.SYNCED);
            assertEquals(continueAt, next.lsn());
            // A reader that remembered a position past the crashed session's last record is told.
            final WalException ex = assertThrows(WalException.class, () -> {
                try (WalReader reader = wal.reader(end + 64)) {
                    reader.poll((buffer, offset, length, lsn) -> {}, 10);
                }
            });
            assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex::getMessage);
        }
        final List<Rec> expected = new ArrayList<>(written);
        expected.add(next);
        assertCleanReopen(dir, expected);
    }

    @Test
    void aCrashDuringOrRightAfterRecoveryReportsWhereTheRecordsEndedNotTheRangeRecoveryGaveUp() throws IOException {
        final List<Rec> written = crashedLog(dir, 5, 700, Durability.WRITTEN);
        final long end = endOf(written.get(4));
        final Path again = dir.resolveSibling(dir.getFileName() + "-again");
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertEquals(end, wal.recoveryReport().recoveredEndPosition(), wal.recoveryReport()::summary);
            assertTrue(wal.recoveryReport().endPosition() > end, wal.recoveryReport()::summary);
            // The power fails once recovery has written its discard frame, before any append.
            LogImages.crashImage(dir, again);
        }
        try (Wal wal = open(again, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(end, report.recoveredEndPosition(), "the discarded range is no record: " + report.summary());
            assertRecords(written, readAll(wal));
        } finally {
            TestFiles.deleteRecursively(again);
        }
    }

    @Test
    void aLogThatWentIdleAfterASyncRecordsItsDurablePositionSoDamageToItsLastRecordIsCorruption() throws IOException {
        final Path live = root.resolve("idle-live");
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(
                configBuilder(live, RecoveryPolicy.FAIL).syncIntervalNs(0).build())) {
            // One batch, so that the log pauses exactly once: no pause between two appends can
            // write a mark of its own, and the only mark is the one that covers the last record.
            final WalBatch batch = new WalBatch();
            for (int i = 0; i < 4; i++) {
                batch.add(payload(i, 900));
            }
            wal.append(batch, Durability.SYNCED);
            for (int i = 0; i < 4; i++) {
                written.add(new Rec(batch.lsn(i), payload(i, 900)));
            }
            // No frame proves the last record; after the pause the header does.
            final long end = endOf(written.get(written.size() - 1));
            final Path liveSegment = SegmentNames.segmentPath(live, 0);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            // The header shows the mark as soon as its write reaches the page cache; the counter moves
            // when the write's completion is delivered, a moment later (on io_uring's event loop, say).
            while ((headerDurablePosition(liveSegment) != end || wal.stats().durabilityMarks() == 0)
                    && System.nanoTime() - deadlineNs < 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertEquals(end, headerDurablePosition(liveSegment), "the mark records the durable end");
            // Usually one mark; a busy machine may let the next segment's preparation end after the
            // pause, and its round may pause and mark again (same durable end, asserted above).
            final long marks = wal.stats().durabilityMarks();
            assertTrue(marks >= 1 && marks <= 2, "one pause, one mark (two if a preparation ended after it): " + marks);
            // An idle log writes no more marks: a sync of the idle log runs the I/O thread's rounds
            // again, and leaves the mark as it was.
            wal.sync();
            assertEquals(marks, wal.stats().durabilityMarks(), "no more marks after a sync of the idle log");
            LogImages.crashImage(live, dir);
        }
        final Location last = locate(dir, written.get(written.size() - 1));
        flipBit(last.file(), last.offset() + FrameDescriptor.HEADER_LENGTH + 5, 1);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, last.file(), last.offset());
        assertTrue(ex.getMessage().contains("segment header recorded as synced"), ex.getMessage());
    }

    // ---------------------------------------------------------------------------------------------
    // Read-only inspection: what opening would do, without changing anything
    // ---------------------------------------------------------------------------------------------

    @Test
    void inspectionOfACleanLogIsCleanAndChangesNothing() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 2, 3000);
        final Path leftover = dir.resolve(SegmentNames.temporaryName(40L * SEGMENT_BYTES));
        writeRandomFile(leftover, 5000, 3);
        final LogInspection inspection = inspectUnchanged(dir);
        assertEquals(LogInspection.Verdict.CLEAN, inspection.verdict(), inspection.report()::summary);
        assertTrue(inspection.report().closedCleanly(), inspection.report()::summary);
        assertEquals(written.size(), inspection.report().records());
        assertEquals(endOf(written.get(written.size() - 1)), inspection.report().recoveredEndPosition());
        assertTrue(
                inspection.report().findings().stream()
                        .anyMatch(f -> f.contains(leftover.getFileName().toString())),
                inspection.report()::summary);
        assertTrue(Files.exists(leftover), "an inspection deletes nothing");
    }

    @Test
    void inspectionReportsTheTornTailAnOpenCutsAndProvenDamageAnOpenRefuses() throws IOException {
        final List<Rec> torn = crashedLog(dir, 10, 2000, Durability.WRITTEN);
        final Location last = locate(dir, torn.get(torn.size() - 1));
        zeroFirstWholeSectorAfterHeader(last);
        final LogInspection tornInspection = inspectUnchanged(dir);
        assertEquals(LogInspection.Verdict.TORN_TAIL, tornInspection.verdict(), tornInspection.report()::summary);
        assertEquals(last.offset(), tornInspection.report().tornTailOffset());
        assertEquals(last.frameLength(), tornInspection.report().tornTailBytesCut());
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertEquals(
                    tornInspection.report().tornTailOffset(),
                    wal.recoveryReport().tornTailOffset());
            assertEquals(
                    tornInspection.report().tornTailBytesCut(),
                    wal.recoveryReport().tornTailBytesCut());
            assertEquals(torn.size() - 1, wal.recoveryReport().records());
        }

        final Path provenDir = root.resolve("proven");
        final List<Rec> synced = crashedLog(provenDir, 8, 2000, Durability.SYNCED);
        final Location victim = locate(provenDir, synced.get(3));
        zeroFirstWholeSectorAfterHeader(victim);
        final LogInspection corrupt = inspectUnchanged(provenDir);
        assertEquals(LogInspection.Verdict.CORRUPTION, corrupt.verdict());
        assertEquals(victim.file(), corrupt.corruption().file());
        assertEquals(victim.offset(), corrupt.corruption().fileOffset());
        final WalCorruptionException refused =
                assertOpenFails(provenDir, RecoveryPolicy.FAIL, victim.file(), victim.offset());
        assertEquals(refused.getMessage(), corrupt.corruption().getMessage());
    }

    @Test
    void inspectionWorksOnALogThatIsOpenAndRefusesWhatIsNoLog() throws IOException {
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            final long lsn = append(wal, 1, 500, Durability.SYNCED).lsn();
            awaitQuiet(dir, wal);
            final LogInspection live = inspectUnchanged(dir);
            assertTrue(live.verdict() != LogInspection.Verdict.CORRUPTION, live.report()::summary);
            assertEquals(1, live.report().records(), live.report()::summary);
            assertFalse(live.report().closedCleanly(), "an open log is not closed");
            assertTrue(live.report().recoveredEndPosition() > lsn);
        }
        final WalException missing = assertThrows(WalException.class, () -> Wal.inspect(root.resolve("absent")));
        assertEquals(WalException.ErrorCode.CONFIG, missing.errorCode());
        assertTrue(missing.getMessage().contains("absent"), missing.getMessage());
        final Path empty = Files.createDirectories(root.resolve("empty"));
        Files.writeString(empty.resolve("notes.txt"), "not a log");
        final WalException noLog = assertThrows(WalException.class, () -> Wal.inspect(empty));
        assertTrue(noLog.getMessage().contains("no Walden log"), noLog.getMessage());
        final Path foreign = Files.createDirectories(root.resolve("foreign"));
        writeRandomFile(SegmentNames.segmentPath(foreign, 0), SEGMENT_BYTES, 5);
        final LogInspection notASegment = inspectUnchanged(foreign);
        assertEquals(LogInspection.Verdict.CORRUPTION, notASegment.verdict());
        assertTrue(notASegment.corruption().getMessage().contains("not a Walden segment"), notASegment::toString);
    }

    @Test
    void inspectionOfALogBeingWrittenNeverReportsCorruption() throws Exception {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        int inspections = 0;
        final int segmentBytes = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        try (Wal wal = Wal.open(configBuilder(dir, RecoveryPolicy.FAIL)
                .segmentCapacityBytes(segmentBytes)
                .build())) {
            final Thread writer = new Thread(
                    () -> {
                        try {
                            for (int seed = 0; !stop.get(); seed++) {
                                append(wal, seed, 100 + (seed % 7) * 300, Durability.WRITTEN);
                                if (seed % 1024 == 0) {
                                    // Keeps the log (and so each inspection) short; deletes oldest first.
                                    wal.truncateBefore(wal.writtenPosition() - 4L * segmentBytes);
                                }
                            }
                        } catch (final Throwable ex) {
                            writerFailure.set(ex);
                        }
                    },
                    "racing-writer");
            writer.start();
            try {
                // The smallest segments roll every few milliseconds and retention deletes the oldest in
                // bursts, so inspections meet a segment completed and the next begun between two of their
                // reads (before LiveInspection: false corruption within a second) and segments that vanish
                // after the listing (before: NoSuchFileException).
                final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < endNs && writerFailure.get() == null) {
                    final LogInspection inspection = Wal.inspect(dir);
                    inspections++;
                    assertTrue(
                            inspection.verdict() != LogInspection.Verdict.CORRUPTION,
                            () -> "an inspection of a healthy log being written reported corruption: "
                                    + inspection.corruption().getMessage());
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
        assertNull(writerFailure.get());
        assertTrue(inspections > 10, "only " + inspections + " inspections ran");
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(dir).verdict(), "the closed log is clean");
    }

    /**
     * Waits until an open, idle log stops changing its directory by itself: a background preparation of the next
     * segment ({@code .wal.tmp} renamed to {@code .wal}; a log with a few records prepares none) and the durability
     * mark written after a pause. Only then can a before/after comparison blame the inspection for a change.
     */
    private static void awaitQuiet(final Path directory, final Wal wal) throws IOException {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        TreeMap<String, byte[]> previous = null;
        while (System.nanoTime() < deadlineNs) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            final TreeMap<String, byte[]> current;
            try {
                current = snapshot(directory);
            } catch (final NoSuchFileException ex) {
                // Renamed between the listing and the read: still changing.
                previous = null;
                continue;
            }
            final boolean preparing = current.keySet().stream().anyMatch(name -> name.endsWith(".tmp"));
            if (previous != null && !preparing && wal.stats().durabilityMarks() > 0 && sameFiles(previous, current)) {
                return;
            }
            previous = current;
        }
        fail("the idle log in " + directory + " kept changing its files for 10 s");
    }

    private static boolean sameFiles(final TreeMap<String, byte[]> a, final TreeMap<String, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (final String name : a.keySet()) {
            if (!Arrays.equals(a.get(name), b.get(name))) {
                return false;
            }
        }
        return true;
    }

    /** Inspects a directory and checks that its listing and every byte of every file are unchanged. */
    private static LogInspection inspectUnchanged(final Path directory) throws IOException {
        final TreeMap<String, byte[]> before = snapshot(directory);
        final LogInspection inspection = Wal.inspect(directory);
        final TreeMap<String, byte[]> after = snapshot(directory);
        assertEquals(before.keySet(), after.keySet(), "an inspection adds or removes no file");
        for (final String name : before.keySet()) {
            assertArrayEquals(before.get(name), after.get(name), "an inspection changes no byte of " + name);
        }
        return inspection;
    }

    private static TreeMap<String, byte[]> snapshot(final Path directory) throws IOException {
        final TreeMap<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> entries = Files.walk(directory)) {
            for (final Path path : (Iterable<Path>) entries::iterator) {
                if (Files.isRegularFile(path) && !path.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME)) {
                    files.put(directory.relativize(path).toString(), Files.readAllBytes(path));
                }
            }
        }
        return files;
    }

    @Test
    void aLogOfFormatVersionOneIsRefusedWithAClearMessage() throws IOException {
        final Path segment = logWithFormatVersion(1);
        final WalException ex = assertRefusedUnchangedUnderEveryPolicy(segment);
        assertTrue(ex.getMessage().contains("format version 1"), ex.getMessage());
        assertTrue(ex.getMessage().contains("append them to a new log"), ex.getMessage());
    }

    @Test
    void aLogOfFormatVersionTwoIsRefusedWithAClearMessage() throws IOException {
        final Path segment = logWithFormatVersion(2);
        final WalException ex = assertRefusedUnchangedUnderEveryPolicy(segment);
        assertTrue(ex.getMessage().contains("format version 2"), ex.getMessage());
        assertTrue(ex.getMessage().contains("write limit"), ex.getMessage());
        assertTrue(ex.getMessage().contains("append them to a new log"), ex.getMessage());
    }

    @Test
    void aLogOfANewerFormatVersionIsRefusedUnderEveryPolicyAndLeftAsItWas() throws IOException {
        // Under TRUNCATE an unknown version once read as a bad header, and the whole log was moved away.
        final Path segment = logWithFormatVersion(SegmentHeaderDescriptor.FORMAT_VERSION + 1);
        final WalException ex = assertRefusedUnchangedUnderEveryPolicy(segment);
        assertTrue(
                ex.getMessage().contains("unsupported format version " + (SegmentHeaderDescriptor.FORMAT_VERSION + 1)),
                ex.getMessage());
        assertTrue(ex.getMessage().contains("the Walden version that wrote it"), ex.getMessage());
    }

    /** A log of two segments whose first segment's header says another format version (checksum right). */
    private Path logWithFormatVersion(final int version) throws IOException {
        createLog(dir, 2, 100);
        final Path segment = SegmentNames.segmentPath(dir, 0);
        final ByteBuffer header = ByteBuffer.wrap(readRange(segment, 0, 64)).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(SegmentHeaderDescriptor.VERSION_OFFSET, version);
        header.putInt(SegmentHeaderDescriptor.FLAGS_OFFSET, 0);
        header.putLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET, 0);
        final CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, SegmentHeaderDescriptor.CHECKSUMMED_LENGTH);
        header.putInt(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET, (int) crc.getValue());
        writeRange(segment, 0, header.array());
        // A leftover preparation, which an open that went ahead would delete first.
        Files.write(dir.resolve(SegmentNames.temporaryName(1L << 40)), new byte[] {1});
        return segment;
    }

    /** Every policy refuses the open with FORMAT, naming the segment, and no file changes. */
    private WalException assertRefusedUnchangedUnderEveryPolicy(final Path segment) throws IOException {
        final TreeMap<String, byte[]> before = snapshot(dir);
        WalException last = null;
        for (final RecoveryPolicy policy : RecoveryPolicy.values()) {
            final WalException ex = assertThrows(
                    WalException.class,
                    () -> Wal.open(configBuilder(dir, policy).build()).close(),
                    "opening under " + policy);
            assertEquals(WalException.ErrorCode.FORMAT, ex.errorCode(), policy + ": " + ex);
            assertTrue(ex.getMessage().contains(segment.getFileName().toString()), ex.getMessage());
            final TreeMap<String, byte[]> after = snapshot(dir);
            assertEquals(before.keySet(), after.keySet(), "a refused open under " + policy + " adds or removes files");
            for (final String name : before.keySet()) {
                assertArrayEquals(
                        before.get(name), after.get(name), "a refused open under " + policy + " changed " + name);
            }
            last = ex;
        }
        return last;
    }

    private static void zeroFirstWholeSectorAfterHeader(final Location frame) throws IOException {
        final long sectorStart = roundUp(frame.offset() + FrameDescriptor.HEADER_LENGTH, SECTOR);
        assertTrue(sectorStart + SECTOR <= frame.offset() + frame.frameLength(), "the frame must hold a whole sector");
        zero(frame.file(), sectorStart, sectorStart + SECTOR);
    }

    private void assertTornTailCut(
            final List<Rec> written,
            final int cutIndex,
            final Location cut,
            final RecoveryPolicy policy,
            final byte[] cutBytes)
            throws IOException {
        final List<Rec> survivors = written.subList(0, cutIndex);
        final Rec appended;
        final long continueAt = continuePositionAfterCrash(cut.file(), written);
        try (Wal wal = open(dir, policy)) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.newLog());
            assertFalse(report.closedCleanly());
            assertEquals(cutBytes.length, report.tornTailBytesCut(), report::summary);
            assertEquals(cut.file(), report.tornTailFile(), report::summary);
            assertEquals(cut.offset(), report.tornTailOffset(), report::summary);
            assertTrue(
                    report.findings().stream()
                            .anyMatch(f -> f.contains("torn tail")
                                    && f.contains(cut.file().getFileName().toString())),
                    () -> "findings must mention the cut: " + report.findings());
            assertEquals(0, report.droppedBytes());
            assertEquals(0, report.skippedBytes());
            assertEquals(survivors.size(), report.records());
            assertEquals(written.get(cutIndex).lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(continueAt, report.endPosition(), "the log continues at the crashed segment's write limit");
            assertEquals(1, report.evidence().size(), report::summary);
            assertArrayEquals(cutBytes, Files.readAllBytes(report.evidence().get(0)), "the evidence is the cut bytes");
            assertRecords(survivors, readAll(wal));

            appended = append(wal, 1000, 700, Durability.SYNCED);
            assertEquals(continueAt, appended.lsn(), "no cut position is given to another record");
        }
        final List<Rec> expected = new ArrayList<>(survivors);
        expected.add(appended);
        assertCleanReopen(dir, expected);
    }

    /** Damage that looks like a torn write when it is found in the newest segment. */
    enum TornLooking {
        /** A whole zero sector inside the frame, its length intact. */
        ZERO_SECTOR_INSIDE_FRAME,
        /** The frame's part of its first sector zero: the segment seems to end there. */
        ZERO_HEADER_SECTOR
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TornLooking.class)
    void tornLookingDamageInASegmentFollowedByASegmentWithDataIsCorruption(final TornLooking damage)
            throws IOException {
        // The roll fence (the next segment is used only once the previous one is durable) means a
        // crash cannot tear a frame in a segment that a later segment with data follows.
        final List<Rec> written = createLogWithSegments(dir, 2, 4000);
        int victimIndex = 0;
        while (segmentBase(written.get(victimIndex + 1).lsn()) == 0) {
            victimIndex++;
        }
        victimIndex /= 2;
        final Location victim = locate(dir, written.get(victimIndex));
        if (damage == TornLooking.ZERO_SECTOR_INSIDE_FRAME) {
            zeroFirstWholeSectorAfterHeader(victim);
        } else {
            zero(victim.file(), victim.offset(), roundUp(victim.offset() + 1, SECTOR));
        }

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, victim.file(), victim.offset());
        assertTrue(ex.getMessage().contains("later segment"), ex.getMessage());
        assertTrue(ex.getMessage().contains(SegmentNames.segmentName(SEGMENT_BYTES)), ex.getMessage());

        final long highestEnd = lastSegmentBase(dir) + SEGMENT_BYTES;
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            assertRecords(written.subList(0, victimIndex), readAll(wal));
            assertTrue(wal.recoveryReport().droppedBytes() > 0, wal.recoveryReport()::summary);
            assertEquals(highestEnd + HEADER, wal.recoveryReport().endPosition(), "no position is given twice");
            assertEvidenceHolds(wal.recoveryReport(), victim.file(), victim.offset());
        }
        assertCleanReopen(dir, written.subList(0, victimIndex));
    }

    // ---------------------------------------------------------------------------------------------
    // Flipped bits
    // ---------------------------------------------------------------------------------------------

    /** Where the damaged frame lies. */
    enum Where {
        /** In the middle of the first segment, which is followed by segments holding data. */
        EARLIER_SEGMENT,
        /** In the middle of the last segment, followed by valid frames in that segment. */
        MIDDLE_OF_LAST_SEGMENT
    }

    /** A log with one flipped bit. */
    private record Damaged(List<Rec> written, int damagedIndex, Location location) {
        List<Rec> before() {
            return written.subList(0, damagedIndex);
        }

        List<Rec> allButDamaged() {
            final List<Rec> result = new ArrayList<>(written.subList(0, damagedIndex));
            result.addAll(written.subList(damagedIndex + 1, written.size()));
            return result;
        }
    }

    private Damaged flipBitInPayload(final Path directory, final Where where) throws IOException {
        final List<Rec> written = createLogWithSegments(directory, 3, 4000);
        final long damagedBase = where == Where.EARLIER_SEGMENT ? 0 : 2L * SEGMENT_BYTES;
        final List<Integer> inSegment = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            if (segmentBase(written.get(i).lsn()) == damagedBase) {
                inSegment.add(i);
            }
        }
        assertTrue(inSegment.size() >= 3, "the damaged segment must hold frames before and after the damage");
        final int damagedIndex = inSegment.get(inSegment.size() / 2);
        final Location location = locate(directory, written.get(damagedIndex));
        flipBit(location.file(), location.offset() + FrameDescriptor.HEADER_LENGTH + 1234, 5);
        return new Damaged(written, damagedIndex, location);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Where.class)
    void flippedBitInPayloadFailsOpenNamingFileAndOffset(final Where where) throws IOException {
        final Damaged damaged = flipBitInPayload(dir, where);

        final WalCorruptionException ex = assertOpenFails(
                dir,
                RecoveryPolicy.FAIL,
                damaged.location().file(),
                damaged.location().offset());
        assertTrue(ex.getMessage().contains("checksum"), ex.getMessage());
        // Nothing was changed: the next attempt fails the same way (and the lock was released).
        assertOpenFails(
                dir,
                RecoveryPolicy.FAIL,
                damaged.location().file(),
                damaged.location().offset());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Where.class)
    void flippedBitInPayloadUnderTruncateKeepsExactlyTheRecordsBefore(final Where where) throws IOException {
        final Damaged damaged = flipBitInPayload(dir, where);
        final Rec damagedRecord = damaged.written().get(damaged.damagedIndex());

        final Rec appended;
        final long highestEnd = lastSegmentBase(dir) + SEGMENT_BYTES;
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(damaged.before().size(), report.records(), report::summary);
            assertEquals(damagedRecord.lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(highestEnd + HEADER, report.endPosition(), "no position is given twice");
            assertTrue(report.droppedBytes() > 0, report::summary);
            assertEvidenceHolds(
                    report, damaged.location().file(), damaged.location().offset());
            assertTrue(
                    report.findings().stream()
                            .anyMatch(f -> f.contains("truncated")
                                    && f.contains(damaged.location()
                                            .file()
                                            .getFileName()
                                            .toString())
                                    && f.contains(
                                            String.valueOf(damaged.location().offset()))),
                    () -> "findings must name the truncation: " + report.findings());
            assertRecords(damaged.before(), readAll(wal));
            appended = append(wal, 777, 300, Durability.SYNCED);
            assertEquals(highestEnd + HEADER, appended.lsn());
        }
        final List<Rec> expected = new ArrayList<>(damaged.before());
        expected.add(appended);
        assertCleanReopen(dir, expected);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Where.class)
    void flippedBitInPayloadUnderSkipDropsOnlyTheDamagedRecord(final Where where) throws IOException {
        final Damaged damaged = flipBitInPayload(dir, where);
        final Path file = damaged.location().file();
        final long from = damaged.location().offset();
        final long to = from + FrameDescriptor.alignedLength(damaged.location().frameLength());
        final byte[] damagedBytes = Arrays.copyOfRange(Files.readAllBytes(file), (int) from, (int) to);

        final Rec appended;
        try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(damaged.written().size() - 1, report.records(), report::summary);
            assertEquals(to - from, report.skippedBytes(), report::summary);
            assertEquals(0, report.droppedBytes(), report::summary);
            // The skipped bytes were kept, exactly, before the segment was changed.
            final long base = segmentBaseOf(file);
            final String name = EvidenceFiles.rangeName(file, base + from, base + to);
            final List<Path> kept = report.evidence().stream()
                    .filter(path -> path.getFileName().toString().endsWith(name))
                    .toList();
            assertEquals(1, kept.size(), report::summary);
            assertArrayEquals(damagedBytes, Files.readAllBytes(kept.get(0)), "the evidence holds the skipped bytes");
            assertTrue(report.findings().stream().anyMatch(f -> f.contains("zeroed and covered by")), report::summary);
            assertRecords(damaged.allButDamaged(), readAll(wal));
            appended = append(wal, 888, 500, Durability.SYNCED);
        }
        // The skip is durable: the default policy opens the log, with the same records and nothing to
        // skip or keep again, and a read-only view reads them too.
        final List<Rec> expected = new ArrayList<>(damaged.allButDamaged());
        expected.add(appended);
        assertCleanReopen(dir, expected);
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(dir).verdict(), () -> Wal.inspect(dir)
                .report()
                .summary());
        try (WalView view = Wal.openReadOnly(dir);
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            final List<Rec> viewed = new ArrayList<>();
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                viewed.add(new Rec(lsn, bytes));
            });
            assertRecords(expected, viewed);
        }
    }

    @ParameterizedTest(name = "damaged frame crosses a 4096-byte boundary: {0}")
    @ValueSource(booleans = {true, false})
    void skipInsideABatchIsCoveredWhereADiscardFrameFitsAndElseLeftToEveryOpen(final boolean crossing)
            throws IOException {
        final List<Rec> written = new ArrayList<>();
        final int payloadBytes = 1000;
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            for (int i = 0; i < 3; i++) {
                written.add(append(wal, 500 + i, payloadBytes, Durability.SYNCED));
            }
            final WalBatch batch = new WalBatch();
            for (int i = 0; i < 8; i++) {
                batch.add(payload(600 + i, payloadBytes));
            }
            wal.append(batch, Durability.SYNCED);
            for (int i = 0; i < 8; i++) {
                written.add(new Rec(batch.lsn(i), payload(600 + i, payloadBytes)));
            }
            for (int i = 0; i < 3; i++) {
                written.add(append(wal, 700 + i, payloadBytes, Durability.SYNCED));
            }
        }
        // A record inside the batch, not its first or last, whose frame holds a block boundary at least a
        // frame header past its start (a discard frame fits), or none at all.
        int damagedIndex = -1;
        for (int i = 4; i < 10 && damagedIndex < 0; i++) {
            final Location at = locate(dir, written.get(i));
            final long block = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;
            final long boundary = (at.offset() + FrameDescriptor.alignedLength(at.frameLength())) / block * block;
            if ((boundary >= at.offset() + FrameDescriptor.HEADER_LENGTH) == crossing) {
                damagedIndex = i;
            }
        }
        assertTrue(damagedIndex > 0, "no record in the batch to damage");
        final Location damagedAt = locate(dir, written.get(damagedIndex));
        flipBit(damagedAt.file(), damagedAt.offset() + FrameDescriptor.HEADER_LENGTH + 100, 2);
        final List<Rec> kept = new ArrayList<>(written);
        kept.remove(damagedIndex);

        try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(kept.size(), report.records(), report::summary);
            assertRecords(kept, readAll(wal));
            assertEquals(
                    crossing,
                    report.findings().stream().anyMatch(f -> f.contains("covered by a discard frame")),
                    report::summary);
            assertEquals(
                    !crossing,
                    report.findings().stream().anyMatch(f -> f.contains("left as they are")),
                    report::summary);
        }
        if (crossing) {
            assertCleanReopen(dir, kept);
        } else {
            // Nothing ends the batch there in this format: every open skips the range again.
            assertOpenFails(dir, RecoveryPolicy.FAIL, damagedAt.file(), damagedAt.offset());
            try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
                assertRecords(kept, readAll(wal));
            }
        }
    }

    @Test
    void flippedBitInFrameLengthInTheMiddleFailsOpen() throws IOException {
        final Damaged damaged = flipBitInPayload(dir, Where.EARLIER_SEGMENT);
        // Repair nothing, but damage the length of the frame after the first damaged one too; the
        // first damage is what open reports.
        final Rec next = damaged.written().get(damaged.damagedIndex() + 1);
        final Location nextLocation = locate(dir, next);
        flipBit(nextLocation.file(), nextLocation.offset() + FrameDescriptor.LENGTH_OFFSET + 2, 4);
        assertOpenFails(
                dir,
                RecoveryPolicy.FAIL,
                damaged.location().file(),
                damaged.location().offset());

        // A damaged length alone, mid-log: the impossible length is corruption as well.
        final Path other = root.resolve("length-only");
        final List<Rec> written = createLogWithSegments(other, 2, 4000);
        final Rec victim = written.get(10);
        final Location victimLocation = locate(other, victim);
        flipBit(victimLocation.file(), victimLocation.offset() + FrameDescriptor.LENGTH_OFFSET + 2, 4);
        final WalCorruptionException ex =
                assertOpenFails(other, RecoveryPolicy.FAIL, victimLocation.file(), victimLocation.offset());
        assertTrue(ex.getMessage().contains("length"), ex.getMessage());
        try (Wal wal = open(other, RecoveryPolicy.TRUNCATE)) {
            assertRecords(written.subList(0, 10), readAll(wal));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Segment files: missing, foreign, other log, bad header, empty, short
    // ---------------------------------------------------------------------------------------------

    @Test
    void missingMiddleSegmentFailsOpenNamingTheGap() throws IOException {
        createLogWithSegments(dir, 4, 4000);
        final Path missing = SegmentNames.segmentPath(dir, SEGMENT_BYTES);
        final Path after = SegmentNames.segmentPath(dir, 2L * SEGMENT_BYTES);
        Files.delete(missing);

        final WalCorruptionException ex =
                assertThrows(WalCorruptionException.class, () -> open(dir, RecoveryPolicy.FAIL));
        assertEquals(after, ex.file());
        assertEquals(-1, ex.fileOffset());
        assertEquals(WalException.ErrorCode.CORRUPTION, ex.errorCode());
        assertTrue(ex.getMessage().contains("missing segment"), ex.getMessage());
        assertTrue(
                ex.getMessage().contains("from position " + SEGMENT_BYTES + " to " + 2L * SEGMENT_BYTES),
                ex.getMessage());
        assertTrue(ex.getMessage().contains(missing.getFileName().toString()), ex.getMessage());

        // SKIP does not paper over structural damage.
        assertThrows(WalCorruptionException.class, () -> open(dir, RecoveryPolicy.SKIP));
    }

    @Test
    void missingMiddleSegmentUnderTruncateKeepsSegmentsBeforeTheGap() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 4, 4000);
        Files.delete(SegmentNames.segmentPath(dir, SEGMENT_BYTES));
        final long highestEnd = lastSegmentBase(dir) + SEGMENT_BYTES;
        final List<Rec> firstSegment =
                written.stream().filter(r -> r.lsn() < SEGMENT_BYTES).collect(Collectors.toList());

        final Rec appended;
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(firstSegment.size(), report.records(), report::summary);
            assertTrue(report.droppedBytes() >= 2L * SEGMENT_BYTES, report::summary);
            assertTrue(report.findings().stream().anyMatch(f -> f.contains("missing")), report.findings()::toString);
            assertRecords(firstSegment, readAll(wal));
            // The segments from the gap on were kept in the evidence directory (an unused prepared
            // one is not) and replaced by segments that hold one discard frame; the log continues
            // after the highest one.
            assertEquals(2, report.evidence().size(), report::summary);
            for (final Path evidence : report.evidence()) {
                assertEquals(SEGMENT_BYTES, Files.size(evidence), evidence::toString);
            }
            appended = append(wal, 999, 100, Durability.SYNCED);
            assertEquals(highestEnd + HEADER, appended.lsn(), "no position is given twice");
        }
        final List<Rec> expected = new ArrayList<>(firstSegment);
        expected.add(appended);
        assertCleanReopen(dir, expected);
    }

    @Test
    void foreignFileNamedLikeASegmentAfterTheLogFailsOpen() throws IOException {
        createLogWithSegments(dir, 2, 4000);
        final Path foreign = SegmentNames.segmentPath(dir, lastSegmentBase(dir) + SEGMENT_BYTES);
        writeRandomFile(foreign, SEGMENT_BYTES, 42);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, foreign, 0);
        assertTrue(ex.getMessage().contains("not a Walden segment"), ex.getMessage());
        assertThrows(WalCorruptionException.class, () -> open(dir, RecoveryPolicy.SKIP));
    }

    @Test
    void foreignFileAsTheOnlySegmentFailsOpen() throws IOException {
        Files.createDirectories(dir);
        final Path foreign = SegmentNames.segmentPath(dir, 0);
        writeRandomFile(foreign, SEGMENT_BYTES, 7);
        final byte[] before = Files.readAllBytes(foreign);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, foreign, 0);
        assertTrue(ex.getMessage().contains("not a Walden segment"), ex.getMessage());
        assertArrayEquals(before, Files.readAllBytes(foreign), "a failed open must not touch the file");
    }

    @Test
    void segmentCopiedFromAnotherLogFailsOpen() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 2, 4000);
        final Path otherDir = root.resolve("other");
        createLogWithSegments(otherDir, 2, 3000);
        final Path target = SegmentNames.segmentPath(dir, SEGMENT_BYTES);
        Files.copy(SegmentNames.segmentPath(otherDir, SEGMENT_BYTES), target, StandardCopyOption.REPLACE_EXISTING);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, target, 0);
        assertTrue(ex.getMessage().contains("another log"), ex.getMessage());

        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            assertRecords(
                    written.stream().filter(r -> r.lsn() < SEGMENT_BYTES).collect(Collectors.toList()), readAll(wal));
        }
    }

    @Test
    void zeroedHeaderOfFirstSegmentFailsOpen() throws IOException {
        createLogWithSegments(dir, 2, 4000);
        final Path first = SegmentNames.segmentPath(dir, 0);
        zero(first, 0, HEADER);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, first, 0);
        assertTrue(ex.getMessage().contains("not a Walden segment"), ex.getMessage());
        assertThrows(WalCorruptionException.class, () -> open(dir, RecoveryPolicy.SKIP));
    }

    @Test
    void zeroedHeaderOfALaterSegmentFailsOpenAndTruncateKeepsSegmentsBefore() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 3, 4000);
        final Path second = SegmentNames.segmentPath(dir, SEGMENT_BYTES);
        zero(second, 0, HEADER);

        assertOpenFails(dir, RecoveryPolicy.FAIL, second, 0);
        final List<Rec> firstSegment =
                written.stream().filter(r -> r.lsn() < SEGMENT_BYTES).collect(Collectors.toList());
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            assertRecords(firstSegment, readAll(wal));
        }
        assertCleanReopen(dir, firstSegment);
    }

    @Test
    void flippedBitInSegmentHeaderFailsOpen() throws IOException {
        createLogWithSegments(dir, 2, 4000);
        final Path second = SegmentNames.segmentPath(dir, SEGMENT_BYTES);
        flipBit(second, SegmentHeaderDescriptor.BASE_POSITION_OFFSET + 1, 2);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, second, 0);
        assertTrue(ex.getMessage().contains("header checksum"), ex.getMessage());
    }

    @Test
    void zeroLengthSegmentFileFailsOpenWithAClearMessage() throws IOException {
        createLogWithSegments(dir, 2, 4000);
        final Path empty = SegmentNames.segmentPath(dir, lastSegmentBase(dir) + SEGMENT_BYTES);
        Files.createFile(empty);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, empty, 0);
        assertTrue(ex.getMessage().contains("zero-length segment file"), ex.getMessage());
    }

    @Test
    void shortSegmentFileFailsOpen() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 2, 4000);
        final Path last = SegmentNames.segmentPath(dir, SEGMENT_BYTES);
        truncateFile(last, SEGMENT_BYTES / 2);

        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, last, 0);
        assertTrue(ex.getMessage().contains("file size " + SEGMENT_BYTES / 2), ex.getMessage());

        truncateFile(last, 100);
        final WalCorruptionException shorter = assertOpenFails(dir, RecoveryPolicy.FAIL, last, 0);
        assertTrue(shorter.getMessage().contains("shorter than a segment header"), shorter.getMessage());

        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            assertRecords(
                    written.stream().filter(r -> r.lsn() < SEGMENT_BYTES).collect(Collectors.toList()), readAll(wal));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Directories
    // ---------------------------------------------------------------------------------------------

    @Test
    void emptyDirectoryBecomesANewLog() throws IOException {
        Files.createDirectories(dir);
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertTrue(report.newLog(), report::summary);
            assertEquals(0, report.records());
            assertEquals(1, report.segments());
            assertEquals(0, report.startPosition());
            assertEquals(HEADER, report.endPosition());
            assertEquals(SEGMENT_BYTES, report.segmentCapacityBytes());
            assertNull(report.tornTailFile());
            assertEquals(0, report.tornTailBytesCut());
            assertTrue(report.durationNs() > 0);
            assertTrue(report.summary().contains("created"), report.summary());
            assertEquals(0, wal.startPosition());
            assertEquals(SEGMENT_BYTES, Files.size(SegmentNames.segmentPath(dir, 0)));
            assertEquals(HEADER, append(wal, 1, 10, Durability.SYNCED).lsn());
        }
    }

    @Test
    void missingDirectoryIsCreatedAsANewLog() throws IOException {
        final Path nested = root.resolve("a").resolve("b");
        try (Wal wal = open(nested, RecoveryPolicy.FAIL)) {
            assertTrue(wal.recoveryReport().newLog());
        }
        assertTrue(Files.exists(SegmentNames.segmentPath(nested, 0)));
    }

    @Test
    void directoryWithOnlyUnrelatedFilesBecomesANewLogAndLeavesThemUntouched() throws IOException {
        Files.createDirectories(dir.resolve("archive"));
        final TreeMap<String, byte[]> unrelated = new TreeMap<>();
        unrelated.put("README.txt", "not a log".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        unrelated.put("1.wal", randomBytes(5000, 1));
        unrelated.put("0000000000000000000x.wal", randomBytes(SEGMENT_BYTES, 2));
        unrelated.put("00000000000000000000.wal.bak", randomBytes(300, 3));
        unrelated.put("00000000000000000000.log", randomBytes(300, 4));
        unrelated.put("archive/00000000000000000000.wal", randomBytes(SEGMENT_BYTES, 5));
        for (final var entry : unrelated.entrySet()) {
            Files.write(dir.resolve(entry.getKey()), entry.getValue());
        }

        final List<Rec> expected = new ArrayList<>();
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertTrue(wal.recoveryReport().newLog(), wal.recoveryReport()::summary);
            expected.add(append(wal, 5, 100, Durability.SYNCED));
        }
        assertCleanReopen(dir, expected);
        for (final var entry : unrelated.entrySet()) {
            assertArrayEquals(entry.getValue(), Files.readAllBytes(dir.resolve(entry.getKey())), entry.getKey());
        }
    }

    @Test
    void leftoverTemporarySegmentIsDeletedAtOpen() throws IOException {
        final List<Rec> written = createLog(dir, 5, 100);
        // Names the background preparer of the reopened log never uses (it prepares the segment
        // after the active one), so that their absence after open is recovery's doing.
        final Path leftover = dir.resolve(SegmentNames.temporaryName(lastSegmentBase(dir) + 20L * SEGMENT_BYTES));
        writeRandomFile(leftover, 12345, 9);
        final Path otherLeftover = dir.resolve(SegmentNames.temporaryName(40L * SEGMENT_BYTES));
        writeRandomFile(otherLeftover, SEGMENT_BYTES, 10);

        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertFalse(Files.exists(leftover));
            assertFalse(Files.exists(otherLeftover));
            final List<String> findings = wal.recoveryReport().findings();
            assertTrue(
                    findings.stream()
                            .anyMatch(f -> f.contains(UNFINISHED_PREPARATION)
                                    && f.contains(leftover.getFileName().toString())),
                    findings::toString);
            assertRecords(written, readAll(wal));
        }
    }

    @Test
    void directoryWithOnlyATemporarySegmentBecomesANewLog() throws IOException {
        Files.createDirectories(dir);
        final Path leftover = dir.resolve(SegmentNames.temporaryName(0));
        writeRandomFile(leftover, 4096, 11);
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertTrue(wal.recoveryReport().newLog());
            assertFalse(Files.exists(leftover));
            assertEquals(HEADER, append(wal, 1, 1, Durability.SYNCED).lsn());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The report
    // ---------------------------------------------------------------------------------------------

    @Test
    void reportDescribesACleanlyClosedLog() throws IOException {
        final long logId;
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            logId = wal.recoveryReport().logId();
        }
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            for (int i = 0; segmentBase(lastLsn(written)) < 2L * SEGMENT_BYTES || written.size() < 3; i++) {
                written.add(append(wal, i, 1000 + (i * 37) % 3000, Durability.WRITTEN));
            }
        }
        final Rec last = written.get(written.size() - 1);
        final long expectedEnd =
                last.lsn() + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(last.payload().length));
        long frameBytes = 0;
        for (final Rec rec : written) {
            frameBytes += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(rec.payload().length));
        }

        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.newLog());
            assertEquals(logId, report.logId());
            assertEquals(SEGMENT_BYTES, report.segmentCapacityBytes());
            assertEquals(3, report.segments(), report::summary);
            assertEquals(written.size(), report.records(), report::summary);
            assertTrue(report.bytesScanned() >= frameBytes, report::summary);
            assertTrue(report.bytesScanned() <= 3L * SEGMENT_BYTES, report::summary);
            assertTrue(report.durationNs() > 0, report::summary);
            assertEquals(0, report.startPosition());
            assertEquals(wal.startPosition(), report.startPosition());
            assertEquals(expectedEnd, report.endPosition(), report::summary);
            assertEquals(report.endPosition(), wal.tailPosition());
            assertTrue(report.closedCleanly(), report::summary);
            assertEquals(expectedEnd, report.recoveredEndPosition(), report::summary);
            assertEquals(expectedEnd, report.provenDurablePosition(), report::summary);
            assertTrue(report.evidence().isEmpty(), report::summary);
            assertNull(report.tornTailFile());
            assertEquals(-1, report.tornTailOffset());
            assertEquals(0, report.tornTailBytesCut());
            assertEquals(0, report.droppedBytes());
            assertEquals(0, report.skippedBytes());
            assertTrue(realFindings(report).isEmpty(), report.findings()::toString);
            final String summary = report.summary();
            assertFalse(summary.isBlank());
            assertTrue(summary.contains("recovered"), summary);
            assertTrue(summary.contains(written.size() + " record(s)"), summary);
            assertTrue(summary.contains("[0, " + expectedEnd + ")"), summary);
            assertRecords(written, readAll(wal));
            final Rec next = append(wal, 10_000, 10, Durability.SYNCED);
            assertEquals(report.endPosition(), next.lsn(), "the next record goes at the recovered end");
        }
    }

    @Test
    void logWhoseLastFrameEndsExactlyAtASegmentEndClosesAndReopensInTheNextSegment() throws IOException {
        // Frames that tile the first segment exactly: no frame crosses a buffer lap, so no padding
        // is needed, and the tail ends exactly at the segment's end. The I/O thread then rolls to
        // the next segment although no record goes there yet; close() must still complete.
        final List<Integer> payloadSizes = new ArrayList<>();
        final int firstLapFrame = (BUFFER_BYTES - HEADER) / 4;
        final int lapFrame = BUFFER_BYTES / 4;
        for (int i = 0; i < 4; i++) {
            payloadSizes.add(firstLapFrame - FrameDescriptor.HEADER_LENGTH);
        }
        for (int i = 0; i < 4 * (SEGMENT_BYTES / BUFFER_BYTES - 1); i++) {
            payloadSizes.add(lapFrame - FrameDescriptor.HEADER_LENGTH);
        }
        final List<Rec> written = new ArrayList<>();
        final Wal wal = open(dir, RecoveryPolicy.FAIL);
        try {
            for (int i = 0; i < payloadSizes.size(); i++) {
                written.add(append(wal, i, payloadSizes.get(i), Durability.WRITTEN));
            }
            assertEquals(SEGMENT_BYTES, wal.tailPosition(), "the records fill the first segment exactly");
            wal.sync();
        } finally {
            assertTimeoutPreemptively(
                    Duration.ofSeconds(30), wal::close, "close() of a log whose tail is at a segment end");
        }
        try (Wal reopened = open(dir, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = reopened.recoveryReport();
            assertEquals(written.size(), report.records(), report::summary);
            assertEquals(SEGMENT_BYTES + HEADER, report.endPosition(), report::summary);
            assertRecords(written, readAll(reopened));
            final Rec next = append(reopened, 99, 10, Durability.SYNCED);
            assertEquals(SEGMENT_BYTES + HEADER, next.lsn());
            written.add(next);
        }
        assertCleanReopen(dir, written);
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------------

    /** Opens a log in a directory with the test configuration. */
    // ---------------------------------------------------------------------------------------------
    // Policy edges: SKIP and torn tails, SKIP at the end, TRUNCATE of everything, identity, close
    // ---------------------------------------------------------------------------------------------

    @Test
    void skipPolicyStillCutsATornTailEvenWhenValidFramesFollowTheHole() throws IOException {
        // A torn tail is cut under every policy: keeping C after the lost B would keep a record whose
        // predecessor is missing, which no crash can produce for synced data.
        final int payloadBytes = 1024 - FrameDescriptor.HEADER_LENGTH;
        final List<Rec> written = crashedLog(dir, 3, payloadBytes, Durability.WRITTEN);
        final Location b = locate(dir, written.get(1));
        assertEquals(0, b.offset() % SECTOR);
        zero(b.file(), b.offset() + SECTOR, b.offset() + 2 * SECTOR);
        try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(written.get(1).lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(1, report.tornTailRecordsCut(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertRecords(written.subList(0, 1), readAll(wal));
        }
        assertCleanReopen(dir, written.subList(0, 1));
    }

    @Test
    void skipPolicyDropsACorruptLastFrameThatNothingValidFollows() throws IOException {
        final List<Rec> written = createLogWithSegments(dir, 2, 4000);
        final Rec lastRecord = written.get(written.size() - 1);
        final Location last = locate(dir, lastRecord);
        flipBit(last.file(), last.offset() + last.frameLength() - 3, 0);
        try (Wal wal = open(dir, RecoveryPolicy.SKIP)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(lastRecord.lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(2L * SEGMENT_BYTES + HEADER, report.endPosition(), report::summary);
            assertTrue(
                    report.findings().stream().anyMatch(f -> f.contains("skipped the corrupt end")), report::summary);
            assertEvidenceHolds(report, last.file(), last.offset());
            assertRecords(written.subList(0, written.size() - 1), readAll(wal));
        }
        assertCleanReopen(dir, written.subList(0, written.size() - 1));
    }

    @Test
    void truncatePolicyNeverReusesPositionsWhenNoSegmentIsValid() throws IOException {
        createLogWithSegments(dir, 2, 4000);
        final List<Path> segments = segmentFiles(dir);
        final long highestBase = lastSegmentBase(dir);
        for (final Path segment : segments) {
            zero(segment, 0, HEADER);
        }
        try (Wal wal = open(dir, RecoveryPolicy.TRUNCATE)) {
            final RecoveryReport report = wal.recoveryReport();
            // Restarts after every segment it had, a prepared empty one included.
            assertEquals(highestBase + SEGMENT_BYTES, report.startPosition(), report::summary);
            assertTrue(report.droppedBytes() > 0, report::summary);
            assertEquals(segments.size(), report.evidence().size(), "every segment is kept as evidence");
            assertEquals(report.startPosition() + HEADER, wal.append(new byte[] {1}, Durability.SYNCED));
        }
    }

    @Test
    void logIdentityComesFromMostSegmentsSoTheForeignOldestSegmentIsTheOneNamed() throws IOException {
        createLogWithSegments(dir, 3, 4000);
        final Path otherDir = root.resolve("other");
        createLogWithSegments(otherDir, 1, 3000);
        final Path target = SegmentNames.segmentPath(dir, 0);
        Files.copy(SegmentNames.segmentPath(otherDir, 0), target, StandardCopyOption.REPLACE_EXISTING);
        final WalCorruptionException ex = assertOpenFails(dir, RecoveryPolicy.FAIL, target, 0);
        assertTrue(ex.getMessage().contains("another log"), ex.getMessage());
    }

    @Test
    void closeLeavesNoUnfinishedSegmentPreparationBehind() throws IOException {
        for (int i = 0; i < 5; i++) {
            try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
                wal.append(new byte[] {(byte) i}, Durability.WRITTEN);
            }
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                assertTrue(files.noneMatch(path -> path.toString().endsWith(SegmentNames.TEMPORARY_SUFFIX)));
            }
        }
        try (Wal wal = open(dir, RecoveryPolicy.FAIL)) {
            assertTrue(wal.recoveryReport().findings().isEmpty(), wal.recoveryReport()::summary);
            assertEquals(5, wal.recoveryReport().records());
        }
    }

    protected Wal open(final Path directory, final RecoveryPolicy policy) {
        return Wal.open(config(directory, policy));
    }

    private WalConfig config(final Path directory, final RecoveryPolicy policy) {
        return configBuilder(directory, policy).build();
    }

    private WalConfig.Builder configBuilder(final Path directory, final RecoveryPolicy policy) {
        return WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(BUFFER_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .recoveryPolicy(policy);
    }

    /**
     * Appends records to a live log in a sibling directory, copies its files while it is open (what a
     * kill -9 leaves) into {@code directory}, and closes the live log. No background sync runs, so
     * only SYNCED appends make anything durable.
     */
    private List<Rec> crashedLog(
            final Path directory, final int count, final int payloadBytes, final Durability durability)
            throws IOException {
        final Path live = directory.resolveSibling(directory.getFileName() + "-live");
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(
                configBuilder(live, RecoveryPolicy.FAIL).syncIntervalNs(0).build())) {
            for (int i = 0; i < count; i++) {
                written.add(append(wal, i, payloadBytes, durability));
            }
            LogImages.crashImage(live, directory);
        }
        // The copy may be taken after the log went idle for a millisecond, when the I/O thread had
        // recorded the durable position in the active segment's header (the durability mark). These
        // tests are about what frames prove: the image is made as if taken before the mark.
        for (final Path segment : LogImages.segmentFiles(directory)) {
            clearDurabilityMark(segment);
        }
        return written;
    }

    private static long headerDurablePosition(final Path segment) throws IOException {
        return ByteBuffer.wrap(readRange(segment, 0, SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4))
                .order(ByteOrder.LITTLE_ENDIAN)
                .getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
    }

    /** Sets a header's durable position back to none, if no clean close is recorded with it. */
    private static void clearDurabilityMark(final Path segment) throws IOException {
        final ByteBuffer header = ByteBuffer.wrap(
                        readRange(segment, 0, SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4))
                .order(ByteOrder.LITTLE_ENDIAN);
        if (header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET) != 0
                || header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET) == 0) {
            return;
        }
        header.putLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET, 0);
        final CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, SegmentHeaderDescriptor.CHECKSUMMED_LENGTH);
        header.putInt(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET, (int) crc.getValue());
        writeRange(segment, 0, header.array());
    }

    private List<Rec> createLog(final Path directory, final int count, final int payloadBytes) {
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = open(directory, RecoveryPolicy.FAIL)) {
            for (int i = 0; i < count; i++) {
                written.add(append(wal, i, payloadBytes, Durability.WRITTEN));
            }
        }
        return written;
    }

    /** Creates a log whose records fill {@code segments - 1} segments and a few frames of the next. */
    private List<Rec> createLogWithSegments(final Path directory, final int segments, final int payloadBytes) {
        final long lastBase = (segments - 1L) * SEGMENT_BYTES;
        final List<Rec> written = new ArrayList<>();
        final int seed = directory.hashCode();
        try (Wal wal = open(directory, RecoveryPolicy.FAIL)) {
            int inLast = 0;
            for (int i = 0; inLast < 6; i++) {
                final Rec rec = append(wal, seed + i, payloadBytes, Durability.WRITTEN);
                written.add(rec);
                if (segmentBase(rec.lsn()) == lastBase) {
                    inLast++;
                }
                assertTrue(segmentBase(rec.lsn()) <= lastBase);
            }
        }
        return written;
    }

    private static Rec append(final Wal wal, final int seed, final int payloadBytes, final Durability durability) {
        final byte[] payload = payload(seed, payloadBytes);
        final long lsn = wal.append(payload, durability);
        return new Rec(lsn, payload);
    }

    /** Deterministic payload without zero bytes, so that no part of a frame ever looks unwritten. */
    private static byte[] payload(final int seed, final int length) {
        final byte[] bytes = randomBytes(length, seed);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                bytes[i] = 0x5A;
            }
        }
        return bytes;
    }

    private static byte[] randomBytes(final int length, final long seed) {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Reads every durable record from the start of the log. */
    protected static List<Rec> readAll(final Wal wal) {
        final List<Rec> read = new ArrayList<>();
        try (WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                read.add(new Rec(lsn, bytes));
            });
        }
        return read;
    }

    private static void assertRecords(final List<Rec> expected, final List<Rec> actual) {
        assertEquals(
                expected.stream().map(Rec::lsn).collect(Collectors.toList()),
                actual.stream().map(Rec::lsn).collect(Collectors.toList()),
                "record positions");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).payload(), actual.get(i).payload(), "payload of " + expected.get(i));
        }
    }

    /** Reopens with FAIL and checks that nothing was cut, dropped or skipped. */
    private void assertCleanReopen(final Path directory, final List<Rec> expected) {
        try (Wal wal = open(directory, RecoveryPolicy.FAIL)) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.newLog(), report::summary);
            assertEquals(0, report.tornTailBytesCut(), report::summary);
            assertNull(report.tornTailFile(), report::summary);
            assertEquals(0, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertTrue(realFindings(report).isEmpty(), report.findings()::toString);
            assertEquals(expected.size(), report.records(), report::summary);
            assertRecords(expected, readAll(wal));
        }
    }

    /** Every finding: a clean close leaves nothing for recovery to report. */
    private static List<String> realFindings(final RecoveryReport report) {
        return report.findings();
    }

    private WalCorruptionException assertOpenFails(
            final Path directory, final RecoveryPolicy policy, final Path file, final long fileOffset) {
        final WalCorruptionException ex = assertThrows(WalCorruptionException.class, () -> {
            try (Wal wal = open(directory, policy)) {
                fail("open must fail, but recovered: " + wal.recoveryReport().summary());
            }
        });
        assertEquals(WalException.ErrorCode.CORRUPTION, ex.errorCode());
        assertEquals(file, ex.file(), ex::getMessage);
        assertEquals(fileOffset, ex.fileOffset(), ex::getMessage);
        assertTrue(ex.getMessage().contains(file.toString()), ex::getMessage);
        assertTrue(ex.getMessage().contains("offset " + fileOffset), ex::getMessage);
        return ex;
    }

    /** Checks that recovery kept the bytes of a segment from an offset on in an evidence file. */
    private static void assertEvidenceHolds(final RecoveryReport report, final Path segment, final long offset) {
        final String from = String.format("%020d", segmentBaseOf(segment) + offset);
        assertTrue(
                report.evidence().stream()
                        .anyMatch(path -> path.getFileName().toString().contains(from)
                                && path.getParent()
                                        .getFileName()
                                        .toString()
                                        .equals(SegmentNames.EVIDENCE_DIRECTORY_NAME)),
                () -> "no evidence from position " + from + ": " + report.summary());
    }

    private static void assertNoEvidence(final Path directory) {
        assertFalse(
                Files.exists(directory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME)),
                "a failed open must not create evidence");
    }

    private static long segmentBaseOf(final Path segment) {
        return SegmentNames.parseSegmentName(segment.getFileName().toString());
    }

    /**
     * Where a log continues after a crash in a segment: the write limit its header records, which must
     * lie at or after the end of every record the crashed session wrote there and at most a window
     * (plus a block) past it, so that the crash costs no new segment.
     */
    private static long continuePositionAfterCrash(final Path segment, final List<Rec> written) throws IOException {
        final long base = segmentBaseOf(segment);
        final int limit = ByteBuffer.wrap(readRange(segment, 0, SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET))
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET);
        assertTrue(limit > 0 && limit < SEGMENT_BYTES, "the crashed segment's header records a write limit: " + limit);
        long writtenEnd = base + HEADER;
        for (final Rec rec : written) {
            if (segmentBase(rec.lsn()) == base) {
                writtenEnd = Math.max(writtenEnd, endOf(rec));
            }
        }
        assertTrue(
                base + limit >= writtenEnd, "the limit " + limit + " lies below a written record's end " + writtenEnd);
        assertTrue(
                base + limit - writtenEnd
                        <= Math.max(WriteLimits.windowBytes(SEGMENT_BYTES), 2 * (writtenEnd - base))
                                + WriteLimits.ALIGNMENT,
                "the limit " + limit + " lies far past the written end " + writtenEnd);
        return base + limit;
    }

    private static long endOf(final Rec rec) {
        return rec.lsn() + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(rec.payload().length));
    }

    private static byte[] readRange(final Path file, final long from, final long to) throws IOException {
        final ByteBuffer bytes = ByteBuffer.allocate((int) (to - from));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (bytes.hasRemaining()) {
                if (channel.read(bytes, from + bytes.position()) < 0) {
                    throw new IOException(file + " ends before " + to);
                }
            }
        }
        return bytes.array();
    }

    private static void writeRange(final Path file, final long from, final byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer, from + buffer.position());
            }
            channel.force(true);
        }
    }

    private static long segmentBase(final long lsn) {
        return lsn & -(long) SEGMENT_BYTES;
    }

    private static long lastLsn(final List<Rec> written) {
        return written.isEmpty() ? 0 : written.get(written.size() - 1).lsn();
    }

    private static long roundUp(final long value, final int alignment) {
        return (value + alignment - 1) & -(long) alignment;
    }

    private static Location locate(final Path directory, final Rec rec) {
        final long base = segmentBase(rec.lsn());
        return new Location(
                SegmentNames.segmentPath(directory, base),
                rec.lsn() - base,
                FrameDescriptor.frameLength(rec.payload().length));
    }

    private static List<Path> segmentFiles(final Path directory) throws IOException {
        return LogImages.segmentFiles(directory);
    }

    private static long lastSegmentBase(final Path directory) throws IOException {
        final List<Path> segments = segmentFiles(directory);
        return SegmentNames.parseSegmentName(
                segments.get(segments.size() - 1).getFileName().toString());
    }

    private static void zero(final Path file, final long from, final long to) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            final ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
            long position = from;
            while (zeros.hasRemaining()) {
                position += channel.write(zeros, position);
            }
            channel.force(true);
        }
    }

    private static void flipBit(final Path file, final long offset, final int bit) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            if (channel.read(one, offset) != 1) {
                throw new IOException("cannot read offset " + offset + " of " + file);
            }
            one.put(0, (byte) (one.get(0) ^ (1 << bit))).clear();
            if (channel.write(one, offset) != 1) {
                throw new IOException("cannot write offset " + offset + " of " + file);
            }
            channel.force(true);
        }
    }

    private static void truncateFile(final Path file, final long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
            channel.force(true);
        }
    }

    private static void writeRandomFile(final Path file, final int size, final long seed) throws IOException {
        final byte[] bytes = randomBytes(size, seed);
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    private static void deleteRecursively(final Path path) throws IOException {
        TestFiles.deleteRecursively(path);
    }
}
