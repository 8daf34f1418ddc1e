package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden dump}: a line per frame in position order with segment headers, payloads, {@code
 * --from} and {@code --limit}; damage shown where it is, and the dump going on after it; bad input.
 * Every run leaves the directory exactly as it was.
 */
class DumpCommandTest {
    private static final Pattern DATA = Pattern.compile("^position=(\\d+) length=(\\d+) type=DATA flags=0"
            + " durable-offset=(\\d+) checksum=(ok|BAD)( payload=(.*))?$");

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("dump");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void everyFrameOfEverySegmentInPositionOrder() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("dump", dir.toString()).assertExit(0);
        before.assertUnchanged(run);
        assertEquals("", run.err(), run::toString);
        assertEquals(lsns(written), dataPositions(run), run::toString);
        for (final String line : run.outLines()) {
            assertTrue(!line.startsWith("position=") || line.contains(" checksum=ok"), line);
        }
        final List<String> segmentLines = run.outLines().stream()
                .filter(line -> line.startsWith("segment "))
                .collect(Collectors.toList());
        final int segmentFiles = io.walden.testing.LogImages.segmentFiles(dir).size();
        assertTrue(segmentFiles >= 3, "three segments hold data, a fourth may be prepared");
        assertEquals(segmentFiles, segmentLines.size(), run::toString);
        assertTrue(
                segmentLines
                        .get(0)
                        .startsWith("segment " + SegmentNames.segmentName(0) + " base=0 capacity="
                                + TestLogs.SEGMENT_BYTES + " log-id="),
                segmentLines::toString);
        assertTrue(segmentLines.get(0).contains(" closed-cleanly=no "), segmentLines::toString);
        assertTrue(segmentLines.get(2).contains(" closed-cleanly=yes "), segmentLines::toString);
        assertTrue(segmentLines.get(2).contains(" header-checksum=ok "), segmentLines::toString);
        // The log rolled past segments 0 and 1: their headers say so; the one it ended in does not.
        assertTrue(segmentLines.get(0).contains(" continued=yes "), segmentLines::toString);
        assertTrue(segmentLines.get(1).contains(" continued=yes "), segmentLines::toString);
        assertTrue(segmentLines.get(2).contains(" continued=no "), segmentLines::toString);
        // Every segment records a write limit: the session's first, and each one prepared for a roll.
        for (final String line : segmentLines) {
            assertTrue(!line.contains(" write-limit=0 "), segmentLines::toString);
        }
        assertTrue(run.out().contains("type=PADDING"), "segments end in padding");
        assertTrue(
                run.outLines().stream()
                        .anyMatch(line -> line.startsWith("end " + SegmentNames.segmentName(0))
                                && line.endsWith("the segment is full")),
                run::toString);
        final String summary = run.outLines().get(run.outLines().size() - 1);
        assertTrue(summary.startsWith("summary frames="), summary);
        assertTrue(
                summary.contains(" records=" + written.size() + " segments=" + segmentFiles + " invalid=0"), summary);
        // Each frame's length is its payload's plus the 16-byte header.
        for (final String line : run.outLines()) {
            final Matcher m = DATA.matcher(line);
            if (m.matches()) {
                final long lsn = Long.parseLong(m.group(1));
                final TestLogs.Rec rec =
                        written.stream().filter(r -> r.lsn() == lsn).findFirst().orElseThrow();
                assertEquals(rec.payload().length + 16, Integer.parseInt(m.group(2)), line);
                assertTrue(Long.parseLong(m.group(3)) <= lsn % TestLogs.SEGMENT_BYTES, line);
            }
        }
    }

    @Test
    void payloadsAsHexOrEscapedUtf8CutAtTheLimit() throws IOException {
        Files.createDirectories(dir);
        final byte[][] payloads = {
            "plain text".getBytes(StandardCharsets.UTF_8),
            "quote \" backslash \\ newline \n tab \t end".getBytes(StandardCharsets.UTF_8),
            "caf\u00e9 \u2603".getBytes(StandardCharsets.UTF_8),
            {0, 1, (byte) 0xFF, 0x7F},
            new byte[0]
        };
        final List<Long> lsns;
        try (io.walden.Wal wal = io.walden.Wal.open(TestLogs.config(dir).build())) {
            lsns = java.util.Arrays.stream(payloads)
                    .map(p -> wal.append(p, io.walden.Durability.WRITTEN))
                    .collect(Collectors.toList());
        }
        final List<String> utf8 = payloadsShown(ToolRun.run("dump", "--payload", "utf8", dir.toString()));
        assertEquals(
                List.of(
                        "\"plain text\"",
                        "\"quote \\\" backslash \\\\ newline \\n tab \\t end\"",
                        "\"caf\u00e9 \u2603\"",
                        "\"\\u0000\\u0001\ufffd\\u007f\"",
                        "\"\""),
                utf8);
        final List<String> hex = payloadsShown(ToolRun.run("dump", "--payload", "hex", dir.toString()));
        assertEquals(HexFormat.of().formatHex(payloads[0]), hex.get(0));
        assertEquals("0001ff7f", hex.get(3));
        assertEquals("", hex.get(4));
        final List<String> cut =
                payloadsShown(ToolRun.run("dump", "--payload=HEX", "--max-payload-bytes", "3", dir.toString()));
        assertEquals(HexFormat.of().formatHex(payloads[0], 0, 3) + "...", cut.get(0));
        assertEquals("0001ff...", cut.get(3));
        final ToolRun none = ToolRun.run("dump", dir.toString()).assertExit(0);
        assertTrue(!none.out().contains("payload="), none::toString);
        assertEquals(lsns, dataPositions(none));
    }

    @Test
    void fromStartsAtTheFirstFrameAtOrAfterAPositionAndLimitStops() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        final long from = written.get(300).lsn();
        assertEquals(
                lsns(written.subList(300, written.size())),
                dataPositions(ToolRun.run("dump", "--from", Long.toString(from), dir.toString())
                        .assertExit(0)));
        assertEquals(
                lsns(written.subList(301, written.size())),
                dataPositions(ToolRun.run("dump", "--from", Long.toString(from + 1), dir.toString())
                        .assertExit(0)));
        final ToolRun limited = ToolRun.run("dump", "--from", Long.toString(from), "--limit", "7", dir.toString())
                .assertExit(0);
        assertEquals(lsns(written.subList(300, 307)), dataPositions(limited));
        assertTrue(limited.out().contains("(stopped at --limit)"), limited::toString);
        assertTrue(
                limited.outLines().stream()
                        .noneMatch(line -> line.startsWith("segment " + SegmentNames.segmentName(0))),
                "segments wholly before --from are not shown");
        assertEquals(List.of(), dataPositions(ToolRun.run("dump", "--limit", "0", dir.toString())));
    }

    @Test
    void damageInAnOlderSegmentIsShownAndTheDumpGoesOnWithExitCode2() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("dump", dir.toString())
                .assertOneLineError(2, damaged.file(dir).toString(), "at offset " + damaged.offset(), "verify");
        before.assertUnchanged(run);
        final String badFrame = "position=" + damaged.victim().lsn() + " length="
                + (damaged.victim().payload().length + 16) + " type=DATA";
        assertTrue(
                run.outLines().stream().anyMatch(line -> line.startsWith(badFrame) && line.contains("checksum=BAD")),
                run::toString);
        assertTrue(
                run.out()
                        .contains("INVALID " + SegmentNames.segmentName(0) + " offset=" + damaged.offset()
                                + " position=" + damaged.victim().lsn() + ": checksum mismatch"),
                run::toString);
        // Frames before the damage, and every frame of the later segments, are shown.
        final List<Long> expected = damaged.written().stream()
                .map(TestLogs.Rec::lsn)
                .filter(lsn -> lsn < damaged.victim().lsn() || lsn >= TestLogs.SEGMENT_BYTES)
                .collect(Collectors.toList());
        assertEquals(
                expected,
                dataPositions(run).stream()
                        .filter(lsn -> lsn != damaged.victim().lsn())
                        .collect(Collectors.toList()));
        assertTrue(run.out().contains(" invalid=1"), run::toString);
    }

    @Test
    void aCorruptMiddleSegmentIsReportedAndTheDumpGoesOnWithTheNextSegment() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptMiddleSegment(dir);
        final long victim = damaged.victim().lsn();
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("dump", dir.toString())
                .assertOneLineError(2, damaged.file(dir).toString(), "at offset " + damaged.offset());
        before.assertUnchanged(run);
        final String segment = SegmentNames.segmentName(TestLogs.SEGMENT_BYTES);
        assertTrue(
                run.out()
                        .contains("INVALID " + segment + " offset=" + damaged.offset() + " position=" + victim
                                + ": checksum mismatch"),
                run::toString);
        assertTrue(run.out().contains("the rest of the segment is skipped"), run::toString);
        // Every record before the damage and every record of the segments after it, in order.
        final List<Long> expected = damaged.written().stream()
                .map(TestLogs.Rec::lsn)
                .filter(lsn -> lsn < victim || lsn >= 2L * TestLogs.SEGMENT_BYTES)
                .collect(Collectors.toList());
        assertEquals(
                expected,
                dataPositions(run).stream().filter(lsn -> lsn != victim).collect(Collectors.toList()));
        assertTrue(run.out().contains(" invalid=1"), run::toString);

        // The same in JSON: the bad frame, the invalid region with its offset and reason, the summary.
        final ToolRun json = ToolRun.run("dump", "--json", dir.toString()).assertExit(2);
        final List<Map<String, Object>> lines =
                json.outLines().stream().map(JsonParser::parseObject).collect(Collectors.toList());
        final Map<String, Object> bad = lines.stream()
                .filter(line -> Long.valueOf(victim).equals(line.get("position")) && "frame".equals(line.get("kind")))
                .findFirst()
                .orElseThrow();
        assertEquals("BAD", bad.get("checksum"));
        final Map<String, Object> invalid = lines.stream()
                .filter(line -> "invalid".equals(line.get("kind")))
                .findFirst()
                .orElseThrow();
        assertEquals(segment, invalid.get("segment"));
        assertEquals(damaged.offset(), invalid.get("offset"));
        assertTrue(((String) invalid.get("problem")).startsWith("checksum mismatch"), invalid::toString);
        assertEquals(Boolean.TRUE, invalid.get("corruption"));
        assertEquals(
                expected.size() + 1L,
                lines.stream().filter(line -> "DATA".equals(line.get("type"))).count());
        final Map<String, Object> summary = lines.get(lines.size() - 1);
        assertEquals("summary", summary.get("kind"));
        assertEquals(1L, summary.get("corrupt"));
        assertTrue(
                ((String) summary.get("firstProblem"))
                        .contains(damaged.file(dir).toString()),
                summary::toString);
    }

    @Test
    void aTornTailGivesExitCode1() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.tornTailLog(dir, 20);
        final TestLogs.Rec torn = written.get(written.size() - 1);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("dump", dir.toString())
                .assertOneLineError(1, SegmentNames.segmentPath(dir, 0).toString(), "newest segment");
        before.assertUnchanged(run);
        assertTrue(
                run.out().contains("INVALID " + SegmentNames.segmentName(0) + " offset=" + torn.lsn()), run::toString);
        assertTrue(run.out().contains("a torn tail, or a write in progress"), run::toString);
        assertEquals(lsns(written), dataPositions(run), "the torn frame is shown with checksum=BAD");
    }

    @Test
    void aFileThatIsNotASegmentIsShownAsInvalidWithExitCode2() throws IOException {
        final Path garbage = TestLogs.garbageSegment(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run =
                ToolRun.run("dump", dir.toString()).assertOneLineError(2, garbage.toString(), "not a Walden segment");
        before.assertUnchanged(run);
        assertTrue(run.out().contains("header-checksum=BAD"), run::toString);
        assertTrue(
                run.out().contains("INVALID " + SegmentNames.segmentName(0) + " offset=0 position=0: not a Walden"),
                run::toString);
    }

    @Test
    void aForeignFileAmongGoodSegmentsIsSkippedAndTheRestDumped() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 2, 1000);
        final Path last = SegmentNames.segmentPath(dir, 2L * TestLogs.SEGMENT_BYTES);
        Files.write(last, new byte[] {1, 2, 3});
        final Path after = SegmentNames.segmentPath(dir, 3L * TestLogs.SEGMENT_BYTES);
        Files.write(after, new byte[TestLogs.SEGMENT_BYTES]);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = ToolRun.run("dump", dir.toString()).assertExit(2);
        before.assertUnchanged(run);
        assertEquals(lsns(written), dataPositions(run));
        assertTrue(run.out().contains("INVALID " + last.getFileName() + " offset=0"), run::toString);
        assertTrue(run.out().contains("shorter than a segment header"), run::toString);
        assertTrue(run.out().contains("INVALID " + after.getFileName() + " offset=0"), run::toString);
        assertTrue(run.out().contains(" invalid=2"), run::toString);
    }

    @Test
    void aMissingSegmentIsShown() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 3, 1000);
        Files.delete(SegmentNames.segmentPath(dir, TestLogs.SEGMENT_BYTES));
        final ToolRun run = ToolRun.run("dump", dir.toString()).assertExit(2);
        assertTrue(
                run.out()
                        .contains("missing segment(s) from position " + TestLogs.SEGMENT_BYTES + " to "
                                + 2 * TestLogs.SEGMENT_BYTES),
                run::toString);
        assertEquals(
                written.stream()
                        .map(TestLogs.Rec::lsn)
                        .filter(lsn -> TestLogs.segmentBase(lsn) != TestLogs.SEGMENT_BYTES)
                        .collect(Collectors.toList()),
                dataPositions(run));
    }

    @Test
    void badInputGivesOneLineAndTheExitCode() throws IOException {
        final Path missing = root.resolve("absent");
        ToolRun.run("dump", missing.toString()).assertOneLineError(3, missing.toString(), "no such directory");
        Files.createDirectories(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun empty =
                ToolRun.run("dump", dir.toString()).assertOneLineError(3, dir.toString(), "no Walden log");
        before.assertUnchanged(empty);
        for (final String[] args : List.of(
                new String[] {"dump", "--payload", "xml", dir.toString()},
                new String[] {"dump", "--limit", "-1", dir.toString()},
                new String[] {"dump", "--from", "-5", dir.toString()},
                new String[] {"dump", "--from", "ten", dir.toString()},
                new String[] {"dump", "--max-payload-bytes", "99999999", dir.toString()})) {
            final ToolRun run = ToolRun.run(args).assertExit(64).assertNoStackTrace();
            before.assertUnchanged(run);
        }
    }

    @Test
    void aLogOfManySegmentsIsDumpedWholeWithoutLoops() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.logWithSegments(dir, 12, 100);
        final ToolRun run = ToolRun.run("dump", dir.toString()).assertExit(0);
        assertEquals(lsns(written), dataPositions(run));
    }

    private static List<Long> lsns(final List<TestLogs.Rec> records) {
        return records.stream().map(TestLogs.Rec::lsn).collect(Collectors.toList());
    }

    private static List<Long> dataPositions(final ToolRun run) {
        return run.outLines().stream()
                .map(DATA::matcher)
                .filter(Matcher::matches)
                .map(m -> Long.parseLong(m.group(1)))
                .collect(Collectors.toList());
    }

    private static List<String> payloadsShown(final ToolRun run) {
        run.assertExit(0);
        return run.outLines().stream()
                .map(DATA::matcher)
                .filter(Matcher::matches)
                .map(m -> m.group(6))
                .collect(Collectors.toList());
    }
}
