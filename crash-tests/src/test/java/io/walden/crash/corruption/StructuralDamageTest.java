package io.walden.crash.corruption;

import static io.walden.crash.corruption.RecoveryAssertions.assertCleanReopen;
import static io.walden.crash.corruption.RecoveryAssertions.assertOpenFails;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walden.RecoveryPolicy;
import io.walden.Wal;
import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * Structural damage to the files of a log, on both backends: each kind is refused by the default
 * policy with a {@link io.walden.WalCorruptionException} naming the file (and the offset, where there
 * is one) and saying what is wrong; and the damage a crash can cause, a torn tail in the newest
 * segment, is cut, reported, and leaves a log that accepts appends that survive a reopen.
 *
 * <p>A segment file that is shorter than the segment capacity is corruption even when it is the
 * newest one: segments are written in full and synced before they are renamed into place, so no crash
 * leaves a short segment (FORMAT.md, "Preparation"). A torn tail is damage to the <em>frames</em> at
 * the end of the newest segment: sectors that never reached the disk, which read as zeros.
 */
@ExtendWith(ViolationCounter.class)
class StructuralDamageTest {
    private static final long SEED = 0x57_2C_7A_11L;
    private static final int C = SampleLog.SEGMENT_BYTES;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;

    private static PristineLogs logs;

    @BeforeAll
    static void writeLogs() throws IOException {
        logs = PristineLogs.create("structural", SEED);
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

    // ---------------------------------------------------------------------------------------------
    // Truncated segment files
    // ---------------------------------------------------------------------------------------------

    /** Which segment is damaged. */
    enum Which {
        /** Segment 0, the oldest. */
        FIRST(0),
        /** Segment 1, sealed: full, and a segment with data follows. */
        SEALED(SampleLog.SEALED_BASE),
        /** Segment 2, the newest with data. */
        NEWEST(SampleLog.NEWEST_BASE);

        private final long base;

        Which(final long base) {
            this.base = base;
        }

        long base() {
            return base;
        }
    }

    /** Where a segment file is cut. */
    enum Cut {
        /** Nothing left. */
        EMPTY,
        /** Inside the header's checksummed fields. */
        INSIDE_HEADER_FIELDS,
        /** Inside the header's unused bytes. */
        INSIDE_HEADER_UNUSED,
        /** One byte short of a whole header. */
        ONE_BYTE_SHORT_OF_THE_HEADER,
        /** Exactly the header. */
        HEADER_ONLY,
        /** Inside the first frame's header. */
        INSIDE_FIRST_FRAME_HEADER,
        /** In the middle of a frame's payload. */
        MID_FRAME,
        /** At a frame boundary in the middle of the segment. */
        AT_A_FRAME_BOUNDARY,
        /** One byte short of the segment capacity. */
        ONE_BYTE_SHORT
    }

    static Stream<Arguments> truncations() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final Which which : List.of(Which.SEALED, Which.NEWEST)) {
                for (final Cut cut : Cut.values()) {
                    cases.add(Arguments.of(backend, which, cut));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} segment cut {2}")
    @MethodSource("truncations")
    void truncatedSegmentIsCorruptionNamingTheFile(final CorruptionBackend backend, final Which which, final Cut cut)
            throws IOException {
        final SampleLog log = copy(backend);
        final Path segment = log.segment(which.base());
        final List<LogRecord> inSegment = log.recordsIn(which.base());
        final LogRecord middle = inSegment.get(inSegment.size() / 2);
        final long size =
                switch (cut) {
                    case EMPTY -> 0;
                    case INSIDE_HEADER_FIELDS -> 30;
                    case INSIDE_HEADER_UNUSED -> 2048;
                    case ONE_BYTE_SHORT_OF_THE_HEADER -> HEADER - 1;
                    case HEADER_ONLY -> HEADER;
                    case INSIDE_FIRST_FRAME_HEADER -> HEADER + 6;
                    case MID_FRAME -> middle.fileOffset() + middle.frameLength() / 2;
                    case AT_A_FRAME_BOUNDARY -> middle.fileOffset();
                    case ONE_BYTE_SHORT -> C - 1;
                };
        FileDamage.truncate(segment, size);
        final String expected = size == 0
                ? "zero-length segment file"
                : size < HEADER
                        ? "(" + size + " bytes) is shorter than a segment header"
                        : "file size " + size + " differs from the segment capacity " + C;
        assertOpenFails(log, backend, RecoveryPolicy.FAIL, segment, 0, expected);
    }

    // ---------------------------------------------------------------------------------------------
    // Zeroed headers
    // ---------------------------------------------------------------------------------------------

    static Stream<Arguments> backendsAndSegments() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final Which which : Which.values()) {
                cases.add(Arguments.of(backend, which));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} segment")
    @MethodSource("backendsAndSegments")
    void zeroedSegmentHeaderIsCorruptionNamingTheFile(final CorruptionBackend backend, final Which which)
            throws IOException {
        final SampleLog log = copy(backend);
        final Path segment = log.segment(which.base());
        FileDamage.zero(segment, 0, HEADER);
        assertOpenFails(log, backend, RecoveryPolicy.FAIL, segment, 0, "not a Walden segment (bad magic 0x0)");
        assertOpenFails(log, backend, RecoveryPolicy.SKIP, segment, 0, "not a Walden segment");
    }

    // ---------------------------------------------------------------------------------------------
    // Foreign files
    // ---------------------------------------------------------------------------------------------

    /** A file that Walden did not write, named like a segment. */
    enum Foreign {
        /** Random bytes of a segment's size, in place of the sealed segment. */
        RANDOM_SEGMENT_SIZED_FILE_REPLACING_THE_SEALED_SEGMENT,
        /** Random bytes of a segment's size, named as the segment after the newest. */
        RANDOM_SEGMENT_SIZED_FILE_AFTER_THE_NEWEST,
        /** A small random file named as the segment after the newest. */
        SMALL_RANDOM_FILE_AFTER_THE_NEWEST,
        /** A text file named as the segment after the newest. */
        TEXT_FILE_AFTER_THE_NEWEST,
        /** An empty file named as the segment after the newest. */
        EMPTY_FILE_AFTER_THE_NEWEST,
        /** Walden's magic followed by random bytes, in place of the sealed segment. */
        RANDOM_BYTES_AFTER_WALDEN_MAGIC_REPLACING_THE_SEALED_SEGMENT
    }

    static Stream<Arguments> foreignFiles() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final Foreign foreign : Foreign.values()) {
                cases.add(Arguments.of(backend, foreign));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("foreignFiles")
    void foreignFileNamedLikeASegmentIsCorruptionNamingTheFile(final CorruptionBackend backend, final Foreign foreign)
            throws IOException {
        final SampleLog log = copy(backend);
        final List<Path> segments = log.segmentFiles();
        final long afterNewest = SegmentNames.parseSegmentName(
                        segments.get(segments.size() - 1).getFileName().toString())
                + C;
        final Path sealed = log.segment(SampleLog.SEALED_BASE);
        final Path after = log.segment(afterNewest);
        final Path file;
        final String expected;
        switch (foreign) {
            case RANDOM_SEGMENT_SIZED_FILE_REPLACING_THE_SEALED_SEGMENT -> {
                file = sealed;
                FileDamage.writeRandom(file, C, 1);
                expected = "not a Walden segment";
            }
            case RANDOM_SEGMENT_SIZED_FILE_AFTER_THE_NEWEST -> {
                file = after;
                FileDamage.writeRandom(file, C, 2);
                expected = "not a Walden segment";
            }
            case SMALL_RANDOM_FILE_AFTER_THE_NEWEST -> {
                file = after;
                FileDamage.writeRandom(file, 1000, 3);
                expected = "(1000 bytes) is shorter than a segment header";
            }
            case TEXT_FILE_AFTER_THE_NEWEST -> {
                file = after;
                FileDamage.writeBytes(file, "not a log\n".getBytes(StandardCharsets.UTF_8));
                expected = "(10 bytes) is shorter than a segment header";
            }
            case EMPTY_FILE_AFTER_THE_NEWEST -> {
                file = after;
                FileDamage.writeBytes(file, new byte[0]);
                expected = "zero-length segment file";
            }
            case RANDOM_BYTES_AFTER_WALDEN_MAGIC_REPLACING_THE_SEALED_SEGMENT -> {
                file = sealed;
                final byte[] bytes = Files.readAllBytes(log.segment(0));
                new java.util.Random(4).nextBytes(bytes);
                System.arraycopy(Files.readAllBytes(log.segment(0)), 0, bytes, 0, 8);
                FileDamage.writeBytes(file, bytes);
                expected = "segment header checksum mismatch";
            }
            default -> throw new IllegalArgumentException(foreign.toString());
        }
        final byte[] before = Files.readAllBytes(file);
        assertOpenFails(log, backend, RecoveryPolicy.FAIL, file, 0, expected);
        assertOpenFails(log, backend, RecoveryPolicy.SKIP, file, 0, expected);
        assertArrayEquals(before, Files.readAllBytes(file), "a refused open leaves the foreign file alone");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void filesNotNamedLikeSegmentsAreIgnoredAndLeftUntouched(final CorruptionBackend backend) throws IOException {
        final SampleLog log = copy(backend);
        final TreeMap<String, byte[]> unrelated = new TreeMap<>();
        unrelated.put("README.txt", "not a log".getBytes(StandardCharsets.UTF_8));
        unrelated.put(SegmentNames.segmentName(SampleLog.SEALED_BASE) + ".bak", new byte[] {1, 2, 3});
        unrelated.put(SegmentNames.segmentName(SampleLog.SEALED_BASE).toUpperCase(java.util.Locale.ROOT), new byte[C]);
        unrelated.put("0000000000000131072.wal", new byte[] {4});
        unrelated.put("0000000000000013107x.wal", new byte[] {5});
        for (final Map.Entry<String, byte[]> entry : unrelated.entrySet()) {
            FileDamage.writeBytes(log.directory().resolve(entry.getKey()), entry.getValue());
        }
        assertCleanReopen(log, backend, log.records());
        for (final Map.Entry<String, byte[]> entry : unrelated.entrySet()) {
            assertArrayEquals(
                    entry.getValue(), Files.readAllBytes(log.directory().resolve(entry.getKey())), entry.getKey());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Missing segments, segments of another log, wrong base positions
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void missingMiddleSegmentIsCorruptionNamingTheGap(final CorruptionBackend backend) throws IOException {
        final SampleLog log = copy(backend);
        Files.delete(log.segment(SampleLog.SEALED_BASE));
        for (final RecoveryPolicy policy : List.of(RecoveryPolicy.FAIL, RecoveryPolicy.SKIP)) {
            assertOpenFails(
                    log,
                    backend,
                    policy,
                    log.segment(SampleLog.NEWEST_BASE),
                    -1,
                    "missing segment(s) from position " + SampleLog.SEALED_BASE + " to " + SampleLog.NEWEST_BASE,
                    SegmentNames.segmentName(SampleLog.SEALED_BASE));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void missingOldestSegmentIsRetentionNotCorruption(final CorruptionBackend backend) throws IOException {
        // truncateBefore removes segments from the front: a log that starts later is a valid log.
        // The format cannot tell an old segment deleted by hand from one retired by retention.
        final SampleLog log = copy(backend);
        Files.delete(log.segment(0));
        try (Wal wal = Wal.open(SampleLog.config(log.directory(), backend, RecoveryPolicy.FAIL))) {
            assertEquals(SampleLog.SEALED_BASE, wal.startPosition());
            assertEquals(0, wal.recoveryReport().droppedBytes(), wal.recoveryReport()::summary);
            SampleLog.assertRecords(recordsFrom(log, SampleLog.SEALED_BASE), SampleLog.readAll(wal));
        }
    }

    private static List<LogRecord> recordsFrom(final SampleLog log, final long position) {
        final List<LogRecord> from = new ArrayList<>(log.records());
        from.removeAll(log.recordsBefore(position));
        return from;
    }

    @ParameterizedTest(name = "{0} {1} segment")
    @MethodSource("backendsAndSegments")
    void segmentOfAnotherLogIsCorruptionNamingTheFile(final CorruptionBackend backend, final Which which)
            throws IOException {
        final SampleLog log = copy(backend);
        final Path target = log.segment(which.base());
        Files.copy(logs.otherLog().segment(which.base()), target, StandardCopyOption.REPLACE_EXISTING);
        assertOpenFails(log, backend, RecoveryPolicy.FAIL, target, 0, "segment belongs to another log");
        assertOpenFails(log, backend, RecoveryPolicy.SKIP, target, 0, "segment belongs to another log");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void segmentRenamedToAnotherBasePositionIsCorruptionNamingTheFile(final CorruptionBackend backend)
            throws IOException {
        final SampleLog log = copy(backend);
        final Path newest = log.segment(SampleLog.NEWEST_BASE);
        Files.copy(log.segment(SampleLog.SEALED_BASE), newest, StandardCopyOption.REPLACE_EXISTING);
        assertOpenFails(
                log,
                backend,
                RecoveryPolicy.FAIL,
                newest,
                0,
                "header says base position " + SampleLog.SEALED_BASE + " but the file name says "
                        + SampleLog.NEWEST_BASE);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CorruptionBackend.class)
    void framesMovedToAnotherBasePositionNeverValidateEvenUnderAValidHeader(final CorruptionBackend backend)
            throws IOException {
        // Segment 0's bytes in place of segment 1, its header rewritten (with a valid checksum) to
        // claim segment 1's base: the frames are bound to segment 0's positions and fail there.
        final SampleLog log = copy(backend);
        final Path sealed = log.segment(SampleLog.SEALED_BASE);
        Files.copy(log.segment(0), sealed, StandardCopyOption.REPLACE_EXISTING);
        FileDamage.forgeBasePosition(sealed, SampleLog.SEALED_BASE);
        assertOpenFails(
                log,
                backend,
                RecoveryPolicy.FAIL,
                sealed,
                HEADER,
                "checksum mismatch",
                "the later segment " + SegmentNames.segmentName(SampleLog.NEWEST_BASE) + " holds data");
    }

    // ---------------------------------------------------------------------------------------------
    // Torn tails: cut and reported, never a failed open
    // ---------------------------------------------------------------------------------------------

    static Stream<Arguments> tornTails() {
        final List<Arguments> cases = new ArrayList<>();
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            for (final TornTails.Damage torn : TornTails.Damage.values()) {
                cases.add(Arguments.of(backend, torn));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("tornTails")
    void tornTailIsCutAndReportedAndTheLogKeepsWorking(final CorruptionBackend backend, final TornTails.Damage torn)
            throws IOException {
        final SampleLog log = logs.copyCrashed(backend, "log");
        final long cutPosition = TornTails.tear(log, torn);
        TornTails.assertCut(log, backend, RecoveryPolicy.FAIL, cutPosition);
    }
}
