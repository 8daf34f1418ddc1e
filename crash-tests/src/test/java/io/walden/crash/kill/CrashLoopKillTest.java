package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.ChildJvm;
import io.walden.crash.CrashTally;
import io.walden.testing.LogImages;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A service in a crash loop (issue: disk use across crashes): {@value #CYCLES} times a child JVM opens
 * the log with the default settings, appends {@value #RECORDS} {@code SYNCED} records and is killed
 * with SIGKILL. Every acknowledged record must be there, in order; the log must keep to its first
 * segment (plus the prepared next one), so the directory holds at most 3 segment files; and the
 * opens must not grow with the crash count (the same number of segments to scan each time).
 */
class CrashLoopKillTest {
    private static final int CYCLES = 10;
    private static final int RECORDS = 5;

    @Test
    void aProcessKilledInALoopKeepsEveryRecordAndNoMoreThanThreeSegments() throws Exception {
        final Path root =
                Files.createDirectories(Path.of("target", "kill", "crash-loop")).toAbsolutePath();
        TestFiles.deleteRecursively(root);
        Files.createDirectories(root);
        final Path classes = root.resolve("classes");
        ChildJvm.copyChildClasses(CrashLoopChild.class, classes);
        final Path directory = root.resolve("log");
        final List<long[]> acknowledged = new ArrayList<>();
        final List<String> opens = new ArrayList<>();
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            final long[] lsns = new long[RECORDS];
            final int[] acks = {0};
            final boolean[] done = {false};
            final Process child = ChildJvm.start(
                    CrashLoopChild.class,
                    classes,
                    root.resolve("child.err"),
                    List.of(directory.toString(), Integer.toString(cycle), Integer.toString(RECORDS)));
            ChildJvm.readLines(child, line -> {
                if (line.startsWith("R ")) {
                    opens.add(line);
                } else if (line.startsWith("A ")) {
                    final String[] fields = line.split(" ");
                    lsns[Integer.parseInt(fields[1])] = Long.parseLong(fields[2]);
                    acks[0]++;
                } else if (line.equals("D")) {
                    done[0] = true;
                    child.toHandle().destroyForcibly();
                }
            });
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not die");
            assertTrue(done[0], "cycle " + cycle + " did not append its records; see " + root.resolve("child.err"));
            assertEquals(RECORDS, acks[0]);
            acknowledged.add(lsns);
            CrashTally.KILLS_NIO.incrementAndGet();
        }
        final RecoveryReport report;
        final List<TestRecords.Read> read;
        try (Wal wal = Wal.open(WalConfig.builder(directory).build())) {
            report = wal.recoveryReport();
            read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
        }
        assertEquals(CYCLES * RECORDS, read.size(), report::summary);
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            for (int i = 0; i < RECORDS; i++) {
                final TestRecords.Read record = read.get(cycle * RECORDS + i);
                assertEquals(acknowledged.get(cycle)[i], record.lsn(), "cycle " + cycle + " record " + i);
                assertEquals(new TestRecords.Tag(cycle, i), TestRecords.verify(record.payload()));
            }
        }
        final int segmentFiles = LogImages.segmentFiles(directory).size();
        System.out.println("crash loop: " + CYCLES + " kills, " + segmentFiles + " segment files, opens: " + opens
                + ", the 11th: " + report.summary());
        assertTrue(segmentFiles <= 3, segmentFiles + " segment files after " + CYCLES + " crashes");
        final int firstReopenSegments = Integer.parseInt(opens.get(1).split(" ")[1]);
        assertEquals(
                firstReopenSegments, report.segments(), "the opens scan as many segments after 10 crashes as after 1");
        TestFiles.deleteRecursively(root);
    }
}
