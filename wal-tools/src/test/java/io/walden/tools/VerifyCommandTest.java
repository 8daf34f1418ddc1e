package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden verify}: the verdict and exit code for a clean log, a torn tail, corruption and every
 * kind of bad input, each checked to leave the directory exactly as it was.
 */
class VerifyCommandTest {
    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("verify");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void aCleanLogIsCleanWithExitCode0AndTheReport() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("verify", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertTrue(run.out().startsWith("verdict: CLEAN (exit 0)"), run::toString);
        assertTrue(run.out().contains("records: " + written.size() + " valid"), run::toString);
        assertTrue(run.out().contains("closed cleanly: yes"), run::toString);
        assertTrue(run.out().contains("GB/s"), run::toString);
        assertTrue(run.out().contains("lock:    not open: no process holds walden.lock"), run::toString);
        assertTrue(run.out().contains("summary: recovered log"), run::toString);
        assertEquals("", run.err(), run::toString);
    }

    @Test
    void aTornTailGivesExitCode1AndNamesWhereOpeningCuts() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.tornTailLog(dir, 20);
        final TestLogs.Rec torn = written.get(written.size() - 1);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("verify", dir.toString()).assertExit(1);
        before.assertUnchanged(run);
        assertTrue(run.out().startsWith("verdict: TORN_TAIL (exit 1)"), run::toString);
        assertTrue(run.out().contains("records: " + (written.size() - 1) + " valid"), run::toString);
        assertTrue(
                run.out().contains("in " + SegmentNames.segmentPath(dir, 0) + " at offset " + torn.lsn()),
                run::toString);
        assertEquals("", run.err(), run::toString);
    }

    @Test
    void corruptionInAnOlderSegmentGivesExitCode2AndOneLineNamingFileAndOffset() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("verify", dir.toString())
                .assertOneLineError(2, damaged.file(dir).toString(), "corruption in", "at offset " + damaged.offset());
        before.assertUnchanged(run);
        assertTrue(run.out().startsWith("verdict: CORRUPTION (exit 2)"), run::toString);
    }

    @Test
    void aFileWithASegmentNameThatIsNotASegmentIsCorruption() throws IOException {
        final Path garbage = TestLogs.garbageSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run =
                ToolRun.run("verify", dir.toString()).assertOneLineError(2, garbage.toString(), "not a Walden segment");
        before.assertUnchanged(run);
    }

    @Test
    void aShortFileWithASegmentNameIsCorruption() throws IOException {
        Files.createDirectories(dir);
        final Path file = SegmentNames.segmentPath(dir, 0);
        Files.writeString(file, "hello");
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("verify", dir.toString()).assertOneLineError(2, file.toString(), "shorter");
        before.assertUnchanged(run);
    }

    @Test
    void aMissingDirectoryGivesExitCode3() throws IOException {
        final Path missing = root.resolve("absent");
        final DirectorySnapshot before = DirectorySnapshot.of(missing);
        final ToolRun run = ToolRun.run("verify", missing.toString())
                .assertOneLineError(3, missing.toString(), "no such directory");
        before.assertUnchanged(run);
    }

    @Test
    void anEmptyDirectoryOrOneWithoutSegmentsGivesExitCode3() throws IOException {
        Files.createDirectories(dir);
        DirectorySnapshot before = DirectorySnapshot.of(dir);
        ToolRun run = ToolRun.run("verify", dir.toString()).assertOneLineError(3, dir.toString(), "it is empty");
        before.assertUnchanged(run);

        Files.writeString(dir.resolve("notes.txt"), "not a log");
        before = DirectorySnapshot.of(dir);
        run = ToolRun.run("verify", dir.toString()).assertOneLineError(3, dir.toString(), "no Walden log", "notes.txt");
        before.assertUnchanged(run);
    }

    @Test
    void aFileGivenForTheDirectoryGivesExitCode3AndNamesItsDirectory() throws IOException {
        TestLogs.cleanLog(dir, 3, 100);
        final Path segment = SegmentNames.segmentPath(dir, 0);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("verify", segment.toString())
                .assertOneLineError(3, segment.toString(), "is a file", "give its directory, " + dir);
        before.assertUnchanged(run);
    }

    @Test
    void jsonHasTheVerdictAndTheReport() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 25, 300);
        final ToolRun run = ToolRun.run("verify", "--json", dir.toString()).assertExit(0);
        final String json = run.out().trim();
        assertTrue(json.startsWith("{") && json.endsWith("}") && !json.contains("\n"), run::toString);
        assertTrue(json.contains("\"verdict\":\"CLEAN\""), json);
        assertTrue(json.contains("\"exitCode\":0"), json);
        assertTrue(json.contains("\"records\":" + written.size()), json);
        assertTrue(json.contains("\"tornTail\":null"), json);
        assertTrue(json.contains("\"corruption\":null"), json);

        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(root.resolve("corrupt"));
        final ToolRun corrupt =
                ToolRun.run("verify", "--json", root.resolve("corrupt").toString());
        corrupt.assertExit(2);
        assertTrue(corrupt.out().contains("\"verdict\":\"CORRUPTION\""), corrupt::toString);
        assertTrue(corrupt.out().contains("\"offset\":" + damaged.offset()), corrupt::toString);
    }

    @Test
    void verbosePrintsTheStackTraceAfterTheLine() {
        final String missing = root.resolve("absent").toString();
        for (final String[] args :
                List.of(new String[] {"--verbose", "verify", missing}, new String[] {"verify", "--verbose", missing})) {
            final ToolRun run = ToolRun.run(args).assertExit(3);
            assertTrue(run.err().startsWith("walden verify: cannot read " + missing), run::toString);
            assertTrue(run.err().contains("\tat io.walden.tools."), run::toString);
        }
    }

    @Test
    void usageErrorsGiveExitCode64WithoutAStackTrace() {
        ToolRun.run("verify").assertExit(64).assertNoStackTrace();
        final ToolRun unknown = ToolRun.run("verify", "--frobnicate", root.toString());
        unknown.assertExit(64).assertNoStackTrace();
        assertTrue(unknown.err().contains("Unknown option: '--frobnicate'"), unknown::toString);
        ToolRun.run("verify", "a", "b").assertExit(64).assertNoStackTrace();
    }
}
