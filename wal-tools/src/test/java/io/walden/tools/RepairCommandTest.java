package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.Wal;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden repair DIR}: a log with a corrupt frame opens under the default policy afterwards,
 * with the records before the damage, and the cut bytes kept as evidence; a log that opens as it is
 * stays untouched; a log a process holds is refused.
 */
class RepairCommandTest {
    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("repair");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void aCorruptFrameIsCutAndTheLogOpensUnderTheDefaultPolicy() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptMiddleSegment(dir);
        assertThrows(
                WalCorruptionException.class,
                () -> Wal.open(TestLogs.config(dir).build()).close());

        final ToolRun run = ToolRun.run("repair", dir.toString()).assertExit(0);
        assertEquals("", run.err(), run::toString);
        assertTrue(run.out().startsWith("found:     CORRUPTION: "), run::toString);
        assertTrue(run.out().contains("now:       CLEAN"), run::toString);

        // Opens under FAIL, the default, with exactly the records before the damage.
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(dir).verdict());
        final List<Long> before = damaged.written().stream()
                .map(TestLogs.Rec::lsn)
                .filter(lsn -> lsn < damaged.victim().lsn())
                .collect(Collectors.toList());
        assertEquals(
                before, TestLogs.readAll(dir).stream().map(TestLogs.Rec::lsn).collect(Collectors.toList()));

        // The cut is kept: a copy of the damaged segment from the damage on, and the later segments.
        final List<Path> evidence = evidence();
        assertFalse(evidence.isEmpty(), run::toString);
        // One line for the evidence: how many files, and where.
        assertTrue(
                run.out()
                        .contains("evidence:  " + evidence.size() + " file(s), "
                                + evidence.stream()
                                        .mapToLong(RepairCommandTest::size)
                                        .sum() + " bytes, in "
                                + dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME) + "/"),
                run::toString);
        final String damagedSegment =
                damaged.file(dir).getFileName().toString().replace(SegmentNames.SEGMENT_SUFFIX, "");
        assertTrue(
                evidence.stream().anyMatch(file -> file.getFileName()
                        .toString()
                        .contains(String.format(
                                "-%s-%020d-", damagedSegment, damaged.victim().lsn()))),
                evidence::toString);
        final long kept = evidence.stream().mapToLong(RepairCommandTest::size).sum();
        assertTrue(kept > 2L * TestLogs.SEGMENT_BYTES / 2, "the later segments' data is kept: " + kept + " bytes");
    }

    @Test
    void jsonSaysWhatWasCutAndWhere() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final Map<String, Object> result = JsonParser.parseObject(
                ToolRun.run("repair", "--json", dir.toString()).assertExit(0).out());
        assertEquals("CORRUPTION", result.get("verdictBefore"));
        assertEquals(Boolean.TRUE, result.get("changed"));
        final Map<?, ?> corruption = (Map<?, ?>) result.get("corruption");
        assertEquals(damaged.file(dir).toString(), corruption.get("file"));
        assertEquals(damaged.offset(), corruption.get("offset"));
        final Map<?, ?> repair = (Map<?, ?>) result.get("repair");
        assertTrue((Long) repair.get("droppedBytes") > 0, result::toString);
        assertEquals(
                evidence().stream().map(Path::toString).sorted().collect(Collectors.toList()),
                ((List<?>) repair.get("evidence"))
                        .stream().map(String::valueOf).sorted().collect(Collectors.toList()));
        assertEquals("CLEAN", result.get("verdict"));
    }

    @Test
    void aLogThatOpensAsItIsIsLeftAlone() throws IOException {
        TestLogs.cleanLog(dir, 20, 100);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("repair", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertTrue(run.out().contains("nothing to repair"), run::toString);
    }

    @Test
    void refusesALogThatAWalHolds() throws IOException {
        TestLogs.cleanLog(dir, 20, 100);
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            wal.append(TestLogs.payload(20, 100), Durability.SYNCED);
            ToolRun.run("repair", dir.toString())
                    .assertOneLineError(4, dir.toString(), "is open", "holds walden.lock", "Nothing was changed");
            assertFalse(Files.exists(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME)));
        }
        assertEquals(21, TestLogs.readAll(dir).size());
    }

    private List<Path> evidence() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME))) {
            return files.sorted().collect(Collectors.toList());
        }
    }

    private static long size(final Path file) {
        try {
            return Files.size(file);
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }
}
