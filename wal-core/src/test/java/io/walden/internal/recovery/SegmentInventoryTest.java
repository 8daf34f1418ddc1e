package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.FileRecordingSession;
import io.walden.internal.segment.BlockingIo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link SegmentInventory} on log directories built file by file: what it lists (segments by base,
 * leftover temporary files and the space they hold) and removes, the format versions it refuses, the
 * identity it reads (by majority of the valid headers), each structural problem it finds (refused
 * under FAIL, the log cut before it under TRUNCATE, with a finding), and the lost successor it
 * refuses; and that every refusal leaves every file as it was, byte for byte.
 */
class SegmentInventoryTest {
    private static final long LOG_ID = 0x1DE7_1D00L;
    private static final long OTHER_LOG_ID = 0x0FF0_0FF0L;
    private static final int CAPACITY = 64 * 1024;
    private static final String PREPARATION = SegmentNames.temporaryName(3L * CAPACITY);

    @TempDir
    Path directory;

    private final RecoveryTally tally = new RecoveryTally();

    // ---- list, temporaryBytes, removeTemporaries ----

    @Test
    void listsSegmentsByBaseAndLeftoverTemporariesButNothingElse() throws IOException {
        writeLog(3);
        Files.write(directory.resolve(PREPARATION), new byte[5_000]);
        Files.write(directory.resolve(SuffixTruncationDescriptor.TEMPORARY_NAME), new byte[100]);
        Files.write(directory.resolve(SegmentNames.LOCK_FILE_NAME), new byte[0]);
        Files.write(directory.resolve(SegmentNames.freeName(7L * CAPACITY)), new byte[CAPACITY]);
        Files.write(directory.resolve("0000000000000000000x.wal"), new byte[CAPACITY]);
        Files.createDirectory(directory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME));

        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);
        final TreeMap<Long, Path> segments = inventory.list();

        assertEquals(List.of(0L, (long) CAPACITY, 2L * CAPACITY), List.copyOf(segments.keySet()));
        assertEquals(path(1), segments.get((long) CAPACITY));
        assertEquals(8_192 + 4_096, inventory.temporaryBytes(), "each rounded up to a block");
        assertEquals(
                List.of(
                        "unfinished segment preparation " + PREPARATION + " (an open deletes it)",
                        "unfinished write of " + SuffixTruncationDescriptor.TEMPORARY_NAME + " (an open deletes it)"),
                sorted(report().findings()));
    }

    @Test
    void anOpeningInventoryListsTemporariesWithoutAFindingAndRemovesThemThenSyncsTheDirectory() throws IOException {
        writeLog(2);
        Files.write(directory.resolve(PREPARATION), new byte[4_096]);
        Files.write(directory.resolve(SuffixTruncationDescriptor.TEMPORARY_NAME), new byte[0]);
        try (FileRecordingSession session = new FileRecordingSession()) {
            final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, new BlockingIo(session));
            inventory.list();
            assertEquals(List.of(), report().findings(), "an open reports what it deletes, not what it found");
            assertEquals(4_096, inventory.temporaryBytes());

            inventory.removeTemporaries();

            assertEquals(
                    List.of("delete " + PREPARATION, "delete " + SuffixTruncationDescriptor.TEMPORARY_NAME),
                    sorted(session.operations("delete")));
            assertEquals("sync-directory", session.operations.get(session.operations.size() - 1));
            assertEquals(
                    List.of(
                            "deleted unfinished segment preparation " + PREPARATION,
                            "deleted unfinished write of " + SuffixTruncationDescriptor.TEMPORARY_NAME),
                    sorted(report().findings()));
        }
        assertFalse(Files.exists(directory.resolve(PREPARATION)));
        assertFalse(Files.exists(directory.resolve(SuffixTruncationDescriptor.TEMPORARY_NAME)));
        assertEquals(List.of(segmentName(0), segmentName(1)), names(), "the segments stay");
    }

    @Test
    void removingNoTemporariesStillSyncsTheDirectory() throws IOException {
        writeLog(1);
        try (FileRecordingSession session = new FileRecordingSession()) {
            final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, new BlockingIo(session));
            inventory.list();
            assertEquals(0, inventory.temporaryBytes());

            inventory.removeTemporaries();

            assertEquals(List.of("sync-directory"), session.operations);
        }
    }

    // ---- refuseOtherFormats ----

    @Test
    void aSegmentOfAnotherFormatVersionIsRefusedAndNothingChanges() throws IOException {
        writeLog(2);
        segment(2).headerInt(SegmentHeaderDescriptor.VERSION_OFFSET, 2).writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.TRUNCATE, null);
        final TreeMap<Long, Path> segments = inventory.list();

        final WalException refused = refusedUnchanged(WalException.class, () -> inventory.refuseOtherFormats(segments));

        assertEquals(WalException.ErrorCode.FORMAT, refused.errorCode());
        assertTrue(
                refused.getMessage().contains("segment " + segmentName(2) + " holds format version 2,"),
                refused.getMessage());
        assertTrue(refused.getMessage().endsWith("Nothing was changed."), refused.getMessage());
    }

    @Test
    void headersThatAreNotWaldensAreLeftToTheStructuralChecks() throws IOException {
        writeLog(1);
        segment(1).headerInt(SegmentHeaderDescriptor.VERSION_OFFSET, 2).flip(3).writeTo(directory);
        Files.write(path(2), new byte[100]);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);

        inventory.refuseOtherFormats(inventory.list());
    }

    // ---- readIdentity ----

    @Test
    void theIdentityIsTheOneMostValidHeadersCarry() throws IOException {
        new SegmentImage(OTHER_LOG_ID, CAPACITY, 0).writeTo(directory);
        segment(1).writeTo(directory);
        segment(2).writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);

        final SegmentInventory.Identity identity = inventory.readIdentity(inventory.list(), () -> 7L);

        assertEquals(new SegmentInventory.Identity(LOG_ID, CAPACITY), identity);
    }

    @Test
    void aTieGoesToTheOldestSegmentAndHeadersThatAreNotValidDoNotVote() throws IOException {
        new SegmentImage(OTHER_LOG_ID, CAPACITY, 0).writeTo(directory);
        segment(1).writeTo(directory);
        segment(2).flip(20).writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);

        assertEquals(
                new SegmentInventory.Identity(OTHER_LOG_ID, CAPACITY),
                inventory.readIdentity(inventory.list(), () -> 7L));
    }

    @Test
    void theCapacityIsTheLogsOwnNotTheConfigured() throws IOException {
        writeLog(2);
        final SegmentInventory inventory = new SegmentInventory(
                WalConfig.builder(directory).segmentCapacityBytes(4 * CAPACITY).build(), null, tally);

        assertEquals(
                new SegmentInventory.Identity(LOG_ID, CAPACITY), inventory.readIdentity(inventory.list(), () -> 7L));
    }

    @ParameterizedTest
    @EnumSource(
            value = RecoveryPolicy.class,
            names = {"FAIL", "SKIP"})
    void noValidHeaderIsCorruptionOfTheFirstSegment(final RecoveryPolicy policy) throws IOException {
        segment(0).flip(0).writeTo(directory);
        Files.write(path(1), new byte[100]);
        final SegmentInventory inventory = inventory(policy, null);
        final TreeMap<Long, Path> segments = inventory.list();

        final WalCorruptionException refused =
                refusedUnchanged(WalCorruptionException.class, () -> inventory.readIdentity(segments, () -> 7L));

        assertEquals(path(0), refused.file());
        assertEquals(0, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": no segment has a valid header; first: not a Walden segment (bad magic"),
                refused.getMessage());
    }

    @Test
    void noValidHeaderNamesAFirstFileTooShortForOne() throws IOException {
        Files.write(path(0), new byte[100]);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);
        final TreeMap<Long, Path> segments = inventory.list();

        final WalCorruptionException refused =
                assertThrows(WalCorruptionException.class, () -> inventory.readIdentity(segments, () -> 7L));

        assertTrue(refused.getMessage().contains("first: the file is shorter than a segment header"));
    }

    @Test
    void noValidHeaderUnderTruncateIsANewIdentityOfTheConfiguredCapacity() throws IOException {
        segment(0).flip(0).writeTo(directory);
        final SegmentInventory inventory = new SegmentInventory(
                WalConfig.builder(directory)
                        .segmentCapacityBytes(2 * CAPACITY)
                        .recoveryPolicy(RecoveryPolicy.TRUNCATE)
                        .build(),
                null,
                tally);

        assertEquals(
                new SegmentInventory.Identity(7L, 2 * CAPACITY), inventory.readIdentity(inventory.list(), () -> 7L));
    }

    // ---- validate ----

    @Test
    void anUnbrokenRunOfValidSegmentsPasses() throws IOException {
        writeLog(3);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);

        final SegmentInventory.Structure structure = inventory.validate(inventory.list(), identity());

        assertEquals(new SegmentInventory.Structure(List.of(0L, (long) CAPACITY, 2L * CAPACITY), -1), structure);
        assertEquals(List.of(), report().findings());
    }

    /** What is wrong with the second of three segments, and what validation says of it. */
    enum Damage {
        MISSING(-1, "missing segment(s) from position 65536 to 131072 (expected 00000000000000065536.wal)"),
        ZERO_LENGTH(0, "zero-length segment file; Walden renames segments into place only once written and synced"),
        SHORT_HEADER(0, "the file (100 bytes) is shorter than a segment header"),
        BAD_MAGIC(0, "not a Walden segment (bad magic 0x"),
        BAD_CHECKSUM(0, "segment header checksum mismatch"),
        WRONG_BASE(0, "header says base position 0 but the file name says 65536"),
        ANOTHER_LOG(0, "segment belongs to another log (log identity 000000000ff00ff0, this log is 000000001de71d00)"),
        OTHER_CAPACITY(0, "segment capacity 32768 differs from the log's 65536"),
        WRONG_SIZE(0, "file size 61440 differs from the segment capacity 65536");

        final long offset;
        final String problem;

        Damage(final long offset, final String problem) {
            this.offset = offset;
            this.problem = problem;
        }
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void aStructuralProblemIsRefusedUnderFailWithNothingChanged(final Damage damage) throws IOException {
        final Path damaged = writeLogDamagedAt1(damage);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);
        final TreeMap<Long, Path> segments = inventory.list();

        final WalCorruptionException refused =
                refusedUnchanged(WalCorruptionException.class, () -> inventory.validate(segments, identity()));

        assertEquals(damaged, refused.file());
        assertEquals(damage.offset, refused.fileOffset());
        assertTrue(refused.getMessage().contains(": " + damage.problem), refused.getMessage());
        assertEquals(List.of(), report().findings());
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void aStructuralProblemUnderTruncateCutsTheLogBeforeItWithAFinding(final Damage damage) throws IOException {
        final Path damaged = writeLogDamagedAt1(damage);
        final SegmentInventory inventory = inventory(RecoveryPolicy.TRUNCATE, null);

        final SegmentInventory.Structure structure = inventory.validate(inventory.list(), identity());

        assertEquals(new SegmentInventory.Structure(List.of(0L), CAPACITY), structure);
        final List<String> findings = report().findings();
        assertEquals(1, findings.size(), findings.toString());
        assertTrue(
                findings.get(0).startsWith("truncated before " + damaged.getFileName() + ": " + damage.problem),
                findings.get(0));
    }

    @Test
    void aStructuralProblemInTheFirstSegmentUnderTruncateLeavesNoSegment() throws IOException {
        writeLog(2);
        Files.write(path(0), new byte[0]);
        final SegmentInventory inventory = inventory(RecoveryPolicy.TRUNCATE, null);

        assertEquals(new SegmentInventory.Structure(List.of(), 0), inventory.validate(inventory.list(), identity()));
    }

    @Test
    void aLogMayStartAtAnyBase() throws IOException {
        segment(5).writeTo(directory);
        segment(6).writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);

        assertEquals(
                new SegmentInventory.Structure(List.of(5L * CAPACITY, 6L * CAPACITY), -1),
                inventory.validate(inventory.list(), identity()));
    }

    // ---- refuseLostSuccessor ----

    @Test
    void aNewestSegmentThatWentOnIntoAMissingOneIsRefusedWithNothingChanged() throws IOException {
        writeLog(1);
        segment(1).continued().writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.TRUNCATE, null);
        final TreeMap<Long, Path> segments = inventory.list();

        final WalCorruptionException refused =
                refusedUnchanged(WalCorruptionException.class, () -> inventory.refuseLostSuccessor(segments));

        assertEquals(path(1), refused.file());
        assertEquals(SegmentHeaderDescriptor.FLAGS_OFFSET, refused.fileOffset());
        assertTrue(
                refused.getMessage()
                        .contains(": lost segment(s): the header of " + segmentName(1)
                                + " records that the log went on into segment " + segmentName(2)
                                + ", which is missing, so positions from " + 2 * CAPACITY + " on"),
                refused.getMessage());
        assertTrue(refused.getMessage().endsWith("nothing was changed."), refused.getMessage());
    }

    @Test
    void aSuccessorRenamedIntoPlaceAfterTheListingIsNotLost() throws IOException {
        writeLog(1);
        segment(1).continued().writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);
        final TreeMap<Long, Path> segments = inventory.list();
        segment(2).writeTo(directory);

        inventory.refuseLostSuccessor(segments);
    }

    @Test
    void onlyTheNewestValidHeadersContinuedFlagCounts() throws IOException {
        segment(0).continued().writeTo(directory);
        segment(1).writeTo(directory);
        final SegmentInventory inventory = inventory(RecoveryPolicy.FAIL, null);
        inventory.refuseLostSuccessor(inventory.list());

        segment(1).continued().flip(20).writeTo(directory);
        inventory.refuseLostSuccessor(inventory.list());

        Files.delete(path(0));
        Files.delete(path(1));
        inventory.refuseLostSuccessor(inventory.list());
    }

    // ---- helpers ----

    private SegmentInventory inventory(final RecoveryPolicy policy, final BlockingIo io) {
        return new SegmentInventory(
                WalConfig.builder(directory)
                        .segmentCapacityBytes(CAPACITY)
                        .recoveryPolicy(policy)
                        .build(),
                io,
                tally);
    }

    private static SegmentInventory.Identity identity() {
        return new SegmentInventory.Identity(LOG_ID, CAPACITY);
    }

    private static SegmentImage segment(final int index) {
        return new SegmentImage(LOG_ID, CAPACITY, (long) index * CAPACITY);
    }

    private void writeLog(final int segments) throws IOException {
        for (int i = 0; i < segments; i++) {
            segment(i).data(100).writeTo(directory);
        }
    }

    /** Writes segments 0 and 2 whole and segment 1 as the damage makes it; returns where segment 1 is. */
    private Path writeLogDamagedAt1(final Damage damage) throws IOException {
        segment(0).data(100).padToEnd().writeTo(directory);
        segment(2).writeTo(directory);
        final Path path = path(1);
        switch (damage) {
            case MISSING -> {
                return path(2);
            }
            case ZERO_LENGTH -> Files.write(path, new byte[0]);
            case SHORT_HEADER -> Files.write(path, new byte[100]);
            case BAD_MAGIC -> segment(1).flip(0).writeTo(directory);
            case BAD_CHECKSUM ->
                segment(1).flip(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET).writeTo(directory);
            case WRONG_BASE -> Files.write(path, segment(0).bytes());
            case ANOTHER_LOG -> new SegmentImage(OTHER_LOG_ID, CAPACITY, CAPACITY).writeTo(directory);
            case OTHER_CAPACITY -> Files.write(path, new SegmentImage(LOG_ID, CAPACITY / 2, CAPACITY).bytes());
            case WRONG_SIZE -> segment(1).writeTo(directory, CAPACITY - SegmentHeaderDescriptor.HEADER_LENGTH);
            default -> throw new IllegalArgumentException(damage.name());
        }
        return path;
    }

    private Path path(final int index) {
        return SegmentNames.segmentPath(directory, (long) index * CAPACITY);
    }

    private static String segmentName(final int index) {
        return SegmentNames.segmentName((long) index * CAPACITY);
    }

    private List<String> names() throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    /** Every file in the directory and its bytes. */
    private Map<String, String> snapshot() throws IOException {
        final Map<String, String> files = new TreeMap<>();
        for (final String name : names()) {
            final Path path = directory.resolve(name);
            files.put(
                    name,
                    Files.isDirectory(path)
                            ? "directory"
                            : Base64.getEncoder().encodeToString(Files.readAllBytes(path)));
        }
        return files;
    }

    /** Runs what must refuse, and checks that every file is as it was, byte for byte. */
    private <T extends Throwable> T refusedUnchanged(final Class<T> refusal, final Executable refusing)
            throws IOException {
        final Map<String, String> before = snapshot();
        final T refused = assertThrows(refusal, refusing);
        assertEquals(before, snapshot(), "a refusal changes nothing");
        return refused;
    }

    private static List<String> sorted(final List<String> lines) {
        final String[] sorted = lines.toArray(new String[0]);
        Arrays.sort(sorted);
        return List.of(sorted);
    }

    private RecoveryReport report() {
        return tally.report(false, LOG_ID, CAPACITY, 1, 0, 0, List.of(), 0);
    }
}
