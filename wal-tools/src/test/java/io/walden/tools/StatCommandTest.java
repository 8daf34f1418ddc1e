package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.format.SegmentNames;
import io.walden.testing.LogImages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden stat}: segments, positions, records, clean-close state, the lock holder and the
 * evidence, for a clean log, an open one, one recovered after a crash, corrupt ones and bad input.
 */
class StatCommandTest {
    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("stat");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void aCleanLogShowsSegmentsPositionsRecordsAndTheCleanClose() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        final TestLogs.Rec last = written.get(written.size() - 1);
        final long end = last.lsn() + ((last.payload().length + 16 + 7) & ~7);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("stat", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertEquals("", run.err(), run::toString);
        final List<Path> segments = LogImages.segmentFiles(dir);
        assertTrue(
                run.out().contains("segments:         " + segments.size() + " segment file(s): ")
                        && run.out().contains(segments.size() * (long) TestLogs.SEGMENT_BYTES + " bytes on disk"),
                run::toString);
        assertTrue(
                run.out().contains("segment capacity: " + TestLogs.SEGMENT_BYTES + " bytes (256.0 KiB)"),
                run::toString);
        for (final Path segment : segments) {
            assertTrue(run.out().contains("  " + segment.getFileName() + "  base "), run::toString);
        }
        assertTrue(run.out().contains("positions:        start 0, written " + end + ", durable " + end), run::toString);
        assertTrue(run.out().contains("records:          " + written.size() + " valid data record(s)"), run::toString);
        assertTrue(run.out().contains("closed cleanly:   yes"), run::toString);
        assertTrue(run.out().contains("lock:             not open: no process holds walden.lock"), run::toString);
        assertTrue(run.out().contains("verdict:          CLEAN"), run::toString);
        assertTrue(run.out().contains("evidence:         none"), run::toString);
        assertTrue(run.out().contains("other entry:      walden.lock"), run::toString);
    }

    @Test
    void anOpenLogShowsTheProcessHoldingItsLock() throws IOException {
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            for (int i = 0; i < 10; i++) {
                wal.append(TestLogs.payload(i, 200), Durability.SYNCED);
            }
            final ToolRun run = ToolRun.run("stat", dir.toString()).assertExit(0);
            assertTrue(
                    run.out()
                            .contains("lock:             open: process "
                                    + ProcessHandle.current().pid() + " holds"),
                    run::toString);
            assertTrue(run.out().contains("closed cleanly:   no"), run::toString);
            assertTrue(run.out().contains("records:          10 valid"), run::toString);
            final ToolRun verify = ToolRun.run("verify", dir.toString());
            assertTrue(
                    verify.out()
                            .contains("lock:    open: process "
                                    + ProcessHandle.current().pid()),
                    verify::toString);
        }
    }

    @Test
    void theEvidenceRecoveryKeptIsListed() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.tornTailLog(dir, 12);
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            assertEquals(written.size() - 1, wal.recoveryReport().records());
        }
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("stat", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertTrue(run.out().contains("evidence:         recovery-evidence/ holds 1 file(s)"), run::toString);
        assertTrue(run.out().contains(".cut  "), run::toString);
        assertTrue(run.out().contains("records:          " + (written.size() - 1) + " valid"), run::toString);
    }

    @Test
    void aLeftoverPreparationAndForeignFilesAreNamed() throws IOException {
        TestLogs.cleanLog(dir, 5, 100);
        Files.writeString(dir.resolve("README.txt"), "hello");
        Files.write(dir.resolve(SegmentNames.temporaryName(40L * TestLogs.SEGMENT_BYTES)), new byte[100]);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("stat", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertTrue(run.out().contains("README.txt  5 bytes  (not Walden's; ignored)"), run::toString);
        assertTrue(run.out().contains(".wal.tmp  100 bytes  (a segment being prepared"), run::toString);
    }

    @Test
    void corruptionGivesExitCode2AndOneLine() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("stat", dir.toString())
                .assertOneLineError(2, damaged.file(dir).toString(), "at offset " + damaged.offset());
        before.assertUnchanged(run);
        assertTrue(run.out().contains("verdict:          CORRUPTION"), run::toString);

        final Path garbageDir = root.resolve("garbage");
        final Path garbage = TestLogs.garbageSegment(garbageDir);
        final DirectorySnapshot garbageBefore = DirectorySnapshot.of(garbageDir);
        final ToolRun garbageRun = ToolRun.run("stat", garbageDir.toString())
                .assertOneLineError(2, garbage.toString(), "not a Walden segment");
        garbageBefore.assertUnchanged(garbageRun);
        assertTrue(garbageRun.out().contains("header BAD: not a Walden segment"), garbageRun::toString);
        assertTrue(garbageRun.out().contains("positions:        unavailable"), garbageRun::toString);
    }

    @Test
    void badInputGivesOneLineAndExitCode3() throws IOException {
        final Path missing = root.resolve("absent");
        ToolRun.run("stat", missing.toString()).assertOneLineError(3, missing.toString(), "no such directory");
        Files.createDirectories(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        before.assertUnchanged(
                ToolRun.run("stat", dir.toString()).assertOneLineError(3, dir.toString(), "it is empty"));
        ToolRun.run("stat").assertExit(64).assertNoStackTrace();
    }
}
