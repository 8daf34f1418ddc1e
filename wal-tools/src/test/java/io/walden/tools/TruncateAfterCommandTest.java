package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.Wal;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden truncate-after DIR LSN}: leaves exactly the records up to LSN, which the next open sees,
 * keeps the removed frames as evidence, refuses a log a process holds, an LSN that is no record's, and
 * a corrupt log.
 */
class TruncateAfterCommandTest {
    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("truncate");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void leavesExactlyTheRecordsUpToLsnAndKeepsTheRestAsEvidence() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        final int keep = 300; // in the second segment: the cut is inside it, the third is removed whole
        final TestLogs.Rec last = written.get(keep - 1);
        assertEquals(TestLogs.SEGMENT_BYTES, TestLogs.segmentBase(last.lsn()));
        final ToolRun run = ToolRun.run("truncate-after", dir.toString(), Long.toString(last.lsn()))
                .assertExit(0);
        assertEquals("", run.err(), run::toString);
        assertTrue(
                run.out().contains("kept " + keep + " record(s), removed " + (written.size() - keep)), run::toString);

        final List<TestLogs.Rec> now = TestLogs.readAll(dir);
        assertEquals(lsns(written.subList(0, keep)), lsns(now));
        assertEquals(texts(written.subList(0, keep)), texts(now));

        // The evidence holds the removed frames byte for byte: the first begins with the frame after the cut.
        final List<Path> evidence = evidence();
        assertEquals(2, evidence.size(), evidence::toString);
        final TestLogs.Rec firstRemoved = written.get(keep);
        final Path firstFile = evidence.get(0);
        // Named as recovery names what it cuts: <time>-<segment>-<from position>-<to position>.cut
        final String segment =
                SegmentNames.segmentName(TestLogs.SEGMENT_BYTES).replace(SegmentNames.SEGMENT_SUFFIX, "");
        assertTrue(
                firstFile.getFileName().toString().contains(String.format("-%s-%020d-", segment, firstRemoved.lsn())),
                firstFile::toString);
        assertTrue(firstFile.getFileName().toString().endsWith(".cut"), firstFile::toString);
        final byte[] bytes = Files.readAllBytes(firstFile);
        assertArrayEquals(
                firstRemoved.payload(),
                Arrays.copyOfRange(
                        bytes,
                        FrameDescriptor.HEADER_LENGTH,
                        FrameDescriptor.HEADER_LENGTH + firstRemoved.payload().length));
        final String third =
                SegmentNames.segmentName(2L * TestLogs.SEGMENT_BYTES).replace(SegmentNames.SEGMENT_SUFFIX, "");
        assertTrue(
                evidence.get(1)
                        .getFileName()
                        .toString()
                        .contains(String.format("-%s-%020d-", third, 2L * TestLogs.SEGMENT_BYTES + 4096)),
                evidence::toString);
        assertTrue(run.out().contains("evidence:  " + firstFile), run::toString);
    }

    @Test
    void theLogGoesOnWhereItSaysAndOpensUnderTheDefaultPolicy() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 50, 100);
        final Map<String, Object> result = JsonParser.parseObject(ToolRun.run(
                        "truncate-after",
                        "--json",
                        dir.toString(),
                        Long.toString(written.get(9).lsn()))
                .assertExit(0)
                .out());
        assertEquals(40L, result.get("recordsRemoved"));
        assertEquals(10L, result.get("recordsKept"));
        assertEquals(Boolean.TRUE, result.get("changed"));
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(dir).verdict());
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            assertEquals(result.get("continuePosition"), wal.append(TestLogs.payload(99, 10), Durability.SYNCED));
        }
        assertEquals(11, TestLogs.readAll(dir).size());
    }

    @Test
    void minusOneRemovesEveryRecordAndTheLastLsnChangesNothing() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 20, 100);
        final ToolRun last = ToolRun.run(
                        "truncate-after",
                        dir.toString(),
                        Long.toString(written.get(19).lsn()))
                .assertExit(0);
        assertTrue(last.out().contains("no record after " + written.get(19).lsn()), last::toString);
        assertFalse(Files.exists(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME)), last::toString);
        assertEquals(lsns(written), lsns(TestLogs.readAll(dir)));

        ToolRun.run("truncate-after", dir.toString(), "-1").assertExit(0);
        assertEquals(List.of(), TestLogs.readAll(dir));
        assertEquals(1, evidence().size());
    }

    @Test
    void refusesALogThatAWalHolds() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 20, 100);
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            wal.append(TestLogs.payload(20, 100), Durability.SYNCED);
            final ToolRun run = ToolRun.run(
                            "truncate-after",
                            dir.toString(),
                            Long.toString(written.get(4).lsn()))
                    .assertOneLineError(4, dir.toString(), "is open", "holds walden.lock", "Nothing was changed");
            assertTrue(run.err().contains("process " + ProcessHandle.current().pid()), run::toString);
            assertFalse(Files.exists(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME)), run::toString);
        }
        assertEquals(21, TestLogs.readAll(dir).size(), "every record is still there");
    }

    @Test
    void refusesAnLsnThatIsNoRecordsAndACorruptLog() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 20, 100);
        for (final String lsn : List.of(Long.toString(written.get(3).lsn() + 8), "999999999", "7")) {
            ToolRun.run("truncate-after", dir.toString(), lsn)
                    .assertOneLineError(64, dir.toString(), "no record starts at LSN " + lsn);
        }
        ToolRun.run("truncate-after", dir.toString(), "-2").assertExit(64).assertNoStackTrace();
        assertEquals(lsns(written), lsns(TestLogs.readAll(dir)));
        assertFalse(Files.exists(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME)));

        final Path corrupt = root.resolve("corrupt");
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(corrupt);
        final DirectorySnapshot before = DirectorySnapshot.of(corrupt);
        final ToolRun run = ToolRun.run("truncate-after", corrupt.toString(), "-1")
                .assertOneLineError(2, damaged.file(corrupt).toString(), "walden repair " + corrupt);
        before.assertUnchanged(run);
    }

    private List<Path> evidence() throws IOException {
        final Path evidenceDirectory = dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
        if (!Files.isDirectory(evidenceDirectory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(evidenceDirectory)) {
            return files.sorted().collect(Collectors.toList());
        }
    }

    private static List<Long> lsns(final List<TestLogs.Rec> records) {
        return records.stream().map(TestLogs.Rec::lsn).collect(Collectors.toList());
    }

    private static List<String> texts(final List<TestLogs.Rec> records) {
        return records.stream().map(TestLogs.Rec::text).collect(Collectors.toList());
    }
}
