package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalView;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden tail}: records from the start or from now on, following a writer in this process,
 * with either visibility, {@code --count} and {@code --timeout}; corruption and bad input.
 */
class TailCommandTest {
    private static final Pattern LINE = Pattern.compile("^position=(\\d+) record-bytes=(\\d+)( payload=(.*))?$");

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("tail");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void fromStartPrintsEveryRecordThenStopsAtTheTimeout() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 2, 1000);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("tail", dir.toString(), "--from", "start", "--timeout", "300ms")
                .assertExit(0);
        before.assertUnchanged(run);
        assertEquals("", run.err(), run::toString);
        assertEquals(lsns(written), positions(run));
        assertTrue(run.out().startsWith("position=4096 record-bytes=1000\n"), run::toString);
    }

    @Test
    void countStopsAndPayloadsShow() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 10, 40);
        final ToolRun run = ToolRun.run(
                        "tail",
                        dir.toString(),
                        "--from",
                        Long.toString(written.get(2).lsn()),
                        "--count",
                        "3",
                        "--payload",
                        "utf8",
                        "--max-payload-bytes",
                        "9")
                .assertExit(0);
        assertEquals(lsns(written.subList(2, 5)), positions(run));
        assertTrue(run.outLines().get(0).endsWith(" payload=\"record-2:\"..."), run::toString);
        final ToolRun all =
                ToolRun.run("tail", dir.toString(), "--from", "start", "--count", "100", "--timeout", "200ms");
        assertEquals(lsns(written), positions(all.assertExit(0)));
    }

    @Test
    void followsAWriterFromNowOnWithEitherVisibility() throws Exception {
        for (final String visibility : List.of("written", "synced")) {
            final Path live = root.resolve("live-" + visibility);
            try (Wal wal = Wal.open(TestLogs.config(live).build())) {
                final List<Long> appended = new ArrayList<>();
                final long before = wal.append(TestLogs.payload(0, 100), Durability.SYNCED); // not shown
                // A reader in another process sees it durable once the files prove it (a later frame, or the
                // durability mark the idle log writes): only then is it before 'end' at SYNCED visibility.
                awaitProvenDurable(live, before);
                final CompletableFuture<ToolRun> tail = CompletableFuture.supplyAsync(() -> ToolRun.run(
                        "tail", live.toString(), "--count", "200", "--timeout", "30s", "--visibility", visibility));
                for (int i = 1; !tail.isDone() && i < 1_000_000; i++) {
                    // Every third append waits for its sync, which paces the writer.
                    appended.add(
                            wal.append(TestLogs.payload(i, 300), i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN));
                }
                final ToolRun run = tail.get(60, TimeUnit.SECONDS).assertExit(0);
                final List<Long> shown = positions(run);
                assertEquals(200, shown.size(), run::toString);
                final int first = appended.indexOf(shown.get(0));
                assertTrue(first >= 0, run::toString);
                assertEquals(appended.subList(first, first + 200), shown, "consecutive records, in order");
                wal.sync();
            }
        }
    }

    @Test
    void corruptionReachedGivesExitCode2() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("tail", dir.toString(), "--from", "start", "--timeout", "5s")
                .assertOneLineError(2, damaged.file(dir).toString(), "corruption");
        before.assertUnchanged(run);
        final List<Long> expected = damaged.written().stream()
                .map(TestLogs.Rec::lsn)
                .filter(lsn -> lsn < damaged.victim().lsn())
                .collect(Collectors.toList());
        assertEquals(expected, positions(run), "records before the damage are shown");

        final Path garbageDir = root.resolve("garbage");
        final Path garbage = TestLogs.garbageSegment(garbageDir);
        final DirectorySnapshot garbageBefore = DirectorySnapshot.of(garbageDir);
        garbageBefore.assertUnchanged(ToolRun.run("tail", garbageDir.toString(), "--timeout", "1s")
                .assertOneLineError(2, garbage.toString(), "not a Walden segment"));
    }

    @Test
    void badInputGivesOneLineAndTheExitCode() throws IOException {
        final Path missing = root.resolve("absent");
        ToolRun.run("tail", missing.toString(), "--timeout", "1s")
                .assertOneLineError(3, missing.toString(), "no such directory");
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 5, 100);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        before.assertUnchanged(ToolRun.run("tail", dir.toString(), "--from", "99999999", "--timeout", "1s")
                .assertOneLineError(64, dir.toString(), "outside the log"));
        before.assertUnchanged(ToolRun.run(
                        "tail",
                        dir.toString(),
                        "--from",
                        Long.toString(written.get(1).lsn() + 8),
                        "--timeout",
                        "1s")
                .assertOneLineError(64, dir.toString(), "is not the start of a record"));
        for (final String[] args : List.of(
                new String[] {"tail", dir.toString(), "--from", "middle"},
                new String[] {"tail", dir.toString(), "--visibility", "buffered"},
                new String[] {"tail", dir.toString(), "--timeout", "soon"},
                new String[] {"tail", dir.toString(), "--count", "-1"})) {
            before.assertUnchanged(ToolRun.run(args).assertExit(64).assertNoStackTrace());
        }
    }

    private static void awaitProvenDurable(final Path directory, final long lsn) {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (WalView view = Wal.openReadOnly(directory)) {
                if (view.durablePosition() > lsn) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadlineNs, "the files prove " + lsn + " durable within 30 s");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static List<Long> lsns(final List<TestLogs.Rec> records) {
        return records.stream().map(TestLogs.Rec::lsn).collect(Collectors.toList());
    }

    private static List<Long> positions(final ToolRun run) {
        final List<Long> positions = new ArrayList<>();
        for (final String line : run.outLines()) {
            final Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), () -> "a record line: " + line);
            positions.add(Long.parseLong(m.group(1)));
        }
        return positions;
    }
}
