package io.walden.crash.corruption;

import static io.walden.crash.corruption.RecoveryAssertions.assertCleanReopen;
import static io.walden.crash.corruption.RecoveryAssertions.assertFinding;
import static io.walden.crash.corruption.RecoveryAssertions.assertOpenFails;
import static io.walden.crash.corruption.RecoveryAssertions.plus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The non-default recovery policies do exactly what {@link RecoveryPolicy}'s decision table says, on
 * both backends: which records survive, the report's counts of bytes dropped ({@link
 * RecoveryPolicy#TRUNCATE}) or skipped ({@link RecoveryPolicy#SKIP}), its findings and evidence, that
 * the log accepts appends afterwards at positions never given before, and that a reopen keeps them.
 * The sample logs were closed cleanly, so every bad frame is corruption.
 *
 * <table>
 *   <caption>What is checked</caption>
 *   <tr><th>finding</th><th>TRUNCATE</th><th>SKIP</th></tr>
 *   <tr><td>torn tail (after a crash)</td><td>cut</td><td>cut</td></tr>
 *   <tr><td>bad frame in the middle</td><td>cut there: dropped = the rest of the segment's data and
 *       every later segment holding data, kept as evidence; the log continues after the highest
 *       segment</td><td>only that frame is skipped: skipped = its aligned length, kept as evidence and
 *       covered by a discard frame; the log then opens under FAIL</td></tr>
 *   <tr><td>bad last frame, nothing valid after it</td><td>cut there</td><td>skipped to the end of the
 *       data: skipped = the bytes from the frame to the last non-zero byte, kept as evidence; the log
 *       continues in the next segment</td></tr>
 *   <tr><td>missing middle segment, bad header, foreign file, other log, short file</td><td>cut before
 *       the file: dropped = that file and every later one holding data, moved into the evidence
 *       directory and replaced by segments that hold one discard frame; the log continues after the
 *       highest segment</td><td>throw, naming the file</td></tr>
 * </table>
 */
@ExtendWith(ViolationCounter.class)
class RecoveryPolicyTest {
    private static final long SEED = 0x9011C1E5L;
    private static final int C = SampleLog.SEGMENT_BYTES;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;

    private static PristineLogs logs;

    @BeforeAll
    static void writeLogs() throws IOException {
        logs = PristineLogs.create("policies", SEED);
    }

    @AfterAll
    static void deleteLogs() throws IOException {
        logs.close();
    }

    @BeforeEach
    void createWorkDirectory() throws IOException {
        logs.newWorkDirectory();
    }

    @AfterEach
    void deleteWorkDirectory() throws IOException {
        logs.deleteWorkDirectory();
    }

    private static SampleLog copy(final CorruptionBackend backend) throws IOException {
        return logs.copy(backend, "log");
    }

    private static Wal open(final SampleLog log, final CorruptionBackend backend, final RecoveryPolicy policy) {
        return Wal.open(SampleLog.config(log.directory(), backend, policy));
    }

    // ---------------------------------------------------------------------------------------------
    // Bad frames
    // ---------------------------------------------------------------------------------------------

    /** Which frame is damaged (one payload bit flipped). */
    enum BadFrame {
        /** A frame in the middle of the sealed segment. */
        IN_THE_SEALED_SEGMENT,
        /** A frame of the newest segment that valid frames follow. */
        IN_THE_NEWEST_SEGMENT_BEFORE_VALID_FRAMES,
        /** The last frame of the log: nothing valid follows, and no sector of it is zero. */
        LAST_FRAME_OF_THE_LOG
    }

    static Stream<Arguments> badFrames() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final BadFrame frame : BadFrame.values()) {
                cases.add(Arguments.of(backend, frame));
            }
        }
        return cases.stream();
    }

    private static LogRecord damage(final SampleLog log, final BadFrame frame) throws IOException {
        final List<LogRecord> candidates =
                switch (frame) {
                    case IN_THE_SEALED_SEGMENT -> log.recordsIn(SampleLog.SEALED_BASE);
                    case IN_THE_NEWEST_SEGMENT_BEFORE_VALID_FRAMES ->
                        log.recordsIn(SampleLog.NEWEST_BASE).subList(0, 3);
                    case LAST_FRAME_OF_THE_LOG ->
                        log.records()
                                .subList(log.records().size() - 1, log.records().size());
                };
        LogRecord victim = candidates.get(candidates.size() - 1);
        for (int i = candidates.size() / 2; i < candidates.size(); i++) {
            if (candidates.get(i).payload().length >= 64) {
                victim = candidates.get(i);
                break;
            }
        }
        assertTrue(victim.payload().length >= 64, "the damaged frame has a payload: " + victim);
        FileDamage.flipBit(
                log.segment(SampleLog.segmentBase(victim.lsn())),
                victim.fileOffset() + FrameDescriptor.HEADER_LENGTH + victim.payload().length / 2,
                3);
        return victim;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badFrames")
    void truncateKeepsExactlyTheRecordsBeforeABadFrameAndDropsTheRest(
            final CorruptionBackend backend, final BadFrame frame) throws IOException {
        final SampleLog log = copy(backend);
        final LogRecord victim = damage(log, frame);
        final long base = SampleLog.segmentBase(victim.lsn());
        final Path file = log.segment(base);
        final long expectedDroppedBytes =
                dataEnd(file, victim.fileOffset()) - victim.fileOffset() + dataSegmentBytesFrom(log, base + C);
        final long continuePosition = lastSegmentBase(log) + C + HEADER;
        final List<LogRecord> before = log.recordsBefore(victim.lsn());

        final LogRecord appended;
        try (Wal wal = open(log, backend, RecoveryPolicy.TRUNCATE)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(before.size(), report.records(), report::summary);
            assertEquals(victim.lsn(), report.recoveredEndPosition(), report::summary);
            assertEquals(continuePosition, report.endPosition(), "the log continues after its highest segment");
            assertEquals(expectedDroppedBytes, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertFinding(report, "truncated at " + file.getFileName() + " offset " + victim.fileOffset());
            assertEvidenceFrom(report, victim.lsn());
            SampleLog.assertRecords(before, SampleLog.readAll(wal));
            appended = SampleLog.appendSynced(wal, 77, 300);
            assertEquals(continuePosition, appended.lsn(), "no position is given twice");
        }
        assertCleanReopen(log, backend, plus(before, appended));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badFrames")
    void skipDropsExactlyTheBadFrameAndKeepsEverythingElse(final CorruptionBackend backend, final BadFrame frame)
            throws IOException {
        final SampleLog log = copy(backend);
        final LogRecord victim = damage(log, frame);
        final long base = SampleLog.segmentBase(victim.lsn());
        final Path file = log.segment(base);
        final List<LogRecord> kept = new ArrayList<>(log.records());
        kept.remove(victim);
        final boolean last = frame == BadFrame.LAST_FRAME_OF_THE_LOG;

        final LogRecord appended;
        try (Wal wal = open(log, backend, RecoveryPolicy.SKIP)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(kept.size(), report.records(), report::summary);
            assertEquals(0, report.droppedBytes(), report::summary);
            if (last) {
                // Nothing valid follows: the rest of the data is skipped (kept as evidence), the log
                // ends there and continues in the next segment.
                assertEquals(victim.frameLength(), report.skippedBytes(), report::summary);
                assertEquals(victim.lsn(), report.recoveredEndPosition(), report::summary);
                assertEquals(base + C + HEADER, report.endPosition(), report::summary);
                assertFinding(
                        report,
                        "skipped the corrupt end of " + file.getFileName() + " from offset " + victim.fileOffset());
                assertEvidenceFrom(report, victim.lsn());
            } else {
                assertEquals(victim.alignedLength(), report.skippedBytes(), report::summary);
                assertFinding(
                        report,
                        "skipped corrupt bytes at positions [" + victim.lsn() + ", "
                                + (victim.lsn() + victim.alignedLength()) + ")");
                // The skip is made permanent: the frame kept as evidence, then covered.
                assertFinding(
                        report,
                        "skipped positions [" + victim.lsn() + ", " + (victim.lsn() + victim.alignedLength()) + ") of "
                                + file.getFileName() + " made permanent");
                assertEvidenceFrom(report, victim.lsn());
            }
            SampleLog.assertRecords(kept, SampleLog.readAll(wal));
            appended = SampleLog.appendSynced(wal, 88, 500);
            assertEquals(report.endPosition(), appended.lsn(), "the log continues at its recovered end");
        }
        // Nothing is left to skip: the corrupt end was zeroed when the log was cut, a bad frame in the
        // middle covered; the default policy opens the log with the same records.
        assertCleanReopen(log, backend, plus(kept, appended));
    }

    // ---------------------------------------------------------------------------------------------
    // Structural damage
    // ---------------------------------------------------------------------------------------------

    /** Damage to whole segment files. */
    enum Structural {
        /** The sealed segment is deleted. */
        MISSING_MIDDLE_SEGMENT(SampleLog.NEWEST_BASE),
        /** The sealed segment's header is zeroed. */
        ZEROED_HEADER(SampleLog.SEALED_BASE),
        /** The sealed segment is cut to half its size. */
        SHORT_SEGMENT_FILE(SampleLog.SEALED_BASE),
        /** The sealed segment is replaced by the same segment of another log. */
        SEGMENT_OF_ANOTHER_LOG(SampleLog.SEALED_BASE),
        /** The newest segment is replaced by random bytes. */
        FOREIGN_FILE(SampleLog.NEWEST_BASE);

        /** Base of the first segment file recovery cannot accept. */
        private final long firstBadBase;

        Structural(final long firstBadBase) {
            this.firstBadBase = firstBadBase;
        }
    }

    static Stream<Arguments> structuralDamage() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final Structural damage : Structural.values()) {
                cases.add(Arguments.of(backend, damage));
            }
        }
        return cases.stream();
    }

    private static void damage(final SampleLog log, final Structural damage) throws IOException {
        final Path sealed = log.segment(SampleLog.SEALED_BASE);
        switch (damage) {
            case MISSING_MIDDLE_SEGMENT -> Files.delete(sealed);
            case ZEROED_HEADER -> FileDamage.zero(sealed, 0, HEADER);
            case SHORT_SEGMENT_FILE -> FileDamage.truncate(sealed, C / 2);
            case SEGMENT_OF_ANOTHER_LOG ->
                Files.copy(logs.otherLog().segment(SampleLog.SEALED_BASE), sealed, StandardCopyOption.REPLACE_EXISTING);
            case FOREIGN_FILE -> FileDamage.writeRandom(log.segment(SampleLog.NEWEST_BASE), C, 99);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("structuralDamage")
    void truncateCutsBeforeStructuralDamageAndTheLogContinuesThere(
            final CorruptionBackend backend, final Structural damage) throws IOException {
        final SampleLog log = copy(backend);
        damage(log, damage);
        final Path firstBad = log.segment(damage.firstBadBase);
        // Everything from the first missing or refused segment on is discarded; the segment files
        // there that hold data are moved into the evidence directory whole.
        final long discardBase =
                damage == Structural.MISSING_MIDDLE_SEGMENT ? SampleLog.SEALED_BASE : damage.firstBadBase;
        final long expectedDroppedBytes = dataSegmentBytesFrom(log, discardBase);
        final long continuePosition = lastSegmentBase(log) + C + HEADER;
        final List<LogRecord> kept = log.recordsBefore(discardBase);

        final LogRecord appended;
        try (Wal wal = open(log, backend, RecoveryPolicy.TRUNCATE)) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(kept.size(), report.records(), report::summary);
            assertEquals(expectedDroppedBytes, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertEquals(continuePosition, report.endPosition(), "no position is given twice");
            assertFinding(report, "truncated before " + firstBad.getFileName());
            assertTrue(
                    report.evidence().stream()
                            .anyMatch(path -> damage == Structural.MISSING_MIDDLE_SEGMENT
                                    || path.getFileName()
                                            .toString()
                                            .endsWith(firstBad.getFileName().toString())),
                    () -> "the refused file is kept as evidence: " + report.summary());
            SampleLog.assertRecords(kept, SampleLog.readAll(wal));
            appended = SampleLog.appendSynced(wal, 99, 1000);
            assertEquals(continuePosition, appended.lsn(), "the log continues after its highest segment");
        }
        assertCleanReopen(log, backend, plus(kept, appended));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("structuralDamage")
    void skipRefusesStructuralDamageNamingTheFile(final CorruptionBackend backend, final Structural damage)
            throws IOException {
        final SampleLog log = copy(backend);
        damage(log, damage);
        final Path firstBad = log.segment(damage.firstBadBase);
        assertOpenFails(
                log, backend, RecoveryPolicy.SKIP, firstBad, damage == Structural.MISSING_MIDDLE_SEGMENT ? -1 : 0);
    }

    /** Offset after the last non-zero byte of a file at or after an offset. */
    private static long dataEnd(final Path file, final long fromOffset) throws IOException {
        return SampleLog.dataEnd(Files.readAllBytes(file), fromOffset);
    }

    /** Bytes of the segment files at or above a base that hold anything after their header. */
    private static long dataSegmentBytesFrom(final SampleLog log, final long fromBase) throws IOException {
        long bytes = 0;
        for (final Path path : log.segmentFiles()) {
            if (SegmentNames.parseSegmentName(path.getFileName().toString()) >= fromBase
                    && (Files.size(path) <= HEADER || dataEnd(path, HEADER) > HEADER)) {
                bytes += Files.size(path);
            }
        }
        return bytes;
    }

    private static long lastSegmentBase(final SampleLog log) throws IOException {
        final List<Path> files = log.segmentFiles();
        return SegmentNames.parseSegmentName(
                files.get(files.size() - 1).getFileName().toString());
    }

    private static void assertEvidenceFrom(final RecoveryReport report, final long position) {
        final String from = String.format("-%020d-", position);
        assertTrue(
                report.evidence().stream()
                        .anyMatch(path -> path.getFileName().toString().contains(from)),
                () -> "the cut from " + position + " is kept as evidence: " + report.summary());
    }

    // ---------------------------------------------------------------------------------------------
    // Torn tails
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void tornTailIsCutTheSameWayUnderEveryPolicy(final CorruptionBackend backend) throws IOException {
        for (final RecoveryPolicy policy : RecoveryPolicy.values()) {
            final SampleLog log = logs.copyCrashed(backend, "log-" + policy);
            // The hole is followed by an intact frame: SKIP must not keep it (no crash keeps a record
            // whose predecessor was lost), so it is cut with the rest of the tail.
            final long cutPosition = TornTails.tear(log, TornTails.Damage.SECOND_TO_LAST_FRAME_TORN_LAST_FRAME_INTACT);
            TornTails.assertCut(log, backend, policy, cutPosition);
        }
    }
}
