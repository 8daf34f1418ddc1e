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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code stat} and {@code verify} count a log's segments the same way: every {@code .wal} file, the
 * ones in use (what {@code Wal.inspect} counts) and the next one the writer prepared ahead, empty.
 * (Before, {@code stat} printed the files, 2, and {@code verify} the segments in use, 1, unlabelled.)
 */
class SegmentCountTest {
    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("segment-count");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void statAndVerifyPrintTheSameCountWithThePreparedSegmentLabelled() throws IOException {
        logWithPreparedSegment();
        final List<Path> files = LogImages.segmentFiles(dir);
        final Map<String, Object> verifyJson = JsonParser.parseObject(
                ToolRun.run("verify", "--json", dir.toString()).assertExit(0).out());
        final long inUse = (Long) verifyJson.get("segments");
        assertEquals((long) files.size(), verifyJson.get("segmentFiles"), verifyJson::toString);
        assertEquals(files.size() - inUse, verifyJson.get("segmentsPrepared"), verifyJson::toString);
        assertEquals(2, inUse, "the log ends in its second segment: " + verifyJson);
        assertEquals(3, files.size(), "and the writer prepared the third: " + files);

        final String expected = files.size() + " segment file(s): " + inUse + " in use, " + (files.size() - inUse)
                + " prepared ahead (empty)";
        final ToolRun stat = ToolRun.run("stat", dir.toString()).assertExit(0);
        final ToolRun verify = ToolRun.run("verify", dir.toString()).assertExit(0);
        assertTrue(stat.out().contains("segments:         " + expected + "; "), stat::toString);
        assertTrue(verify.out().contains(", " + expected + ", of "), verify::toString);
        final Path prepared = files.get(files.size() - 1);
        assertTrue(
                stat.out()
                        .lines()
                        .anyMatch(line -> line.startsWith("  " + prepared.getFileName())
                                && line.endsWith("(prepared ahead, empty)")),
                stat::toString);

        final Map<String, Object> statJson = JsonParser.parseObject(
                ToolRun.run("stat", "--json", dir.toString()).assertExit(0).out());
        assertEquals(inUse, statJson.get("segmentsInUse"), statJson::toString);
        assertEquals(files.size() - inUse, statJson.get("segmentsPrepared"), statJson::toString);
        assertEquals((long) files.size(), (long) ((List<?>) statJson.get("segments")).size(), statJson::toString);
    }

    /**
     * A log of two segments, closed once the writer has prepared the third. The writer prepares it in
     * the background as its I/O rounds go on: small appends keep them going until the file is there.
     */
    private void logWithPreparedSegment() {
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            int i = 0;
            while (wal.tailPosition() < TestLogs.SEGMENT_BYTES + 10_000) {
                wal.append(TestLogs.payload(i++, 1000), Durability.WRITTEN);
            }
            final Path next = SegmentNames.segmentPath(dir, 2L * TestLogs.SEGMENT_BYTES);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(next)) {
                assertTrue(System.nanoTime() < deadline, "the writer prepares the next segment: " + next);
                assertTrue(wal.tailPosition() < 2L * TestLogs.SEGMENT_BYTES - 10_000, "still in the second segment");
                wal.append(TestLogs.payload(i++, 10), Durability.WRITTEN);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }
    }
}
