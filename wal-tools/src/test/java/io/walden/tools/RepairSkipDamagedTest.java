package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.RecoveryPolicy;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code walden repair --skip-damaged} and {@code --dry-run} on the damage of issue 43: 420 garbage
 * bytes in the middle of one of 24 small segments. The skipping repair keeps exactly the records
 * whose frames the garbage did not touch, and the log opens under the default policy afterwards; a dry
 * run changes no byte of the directory and predicts the repair's figures exactly.
 */
class RepairSkipDamagedTest {
    private Path root;
    private Path dir;
    private Path scratch;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("repair-skip");
        dir = root.resolve("log");
        scratch = root.resolve("scratch");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void skipDamagedKeepsEveryRecordOutsideTheDamagedFrames() throws IOException {
        final GarbageLog log = GarbageLog.create(dir);
        final List<TestLogs.Rec> touched = log.touched();
        assertTrue(touched.size() >= 3, "420 bytes of garbage span several small records: " + touched.size());

        final ToolRun run = ToolRun.run("repair", "--skip-damaged", dir.toString());

        // Exactly the untouched records, by position and content, and so exactly the touched ones lost.
        final List<String> kept = texts(GarbageLog.readAll(dir, RecoveryPolicy.SKIP));
        assertEquals(log.untouched().size(), kept.size(), run::toString);
        assertEquals(texts(log.untouched()), kept);
        assertEquals(touched.size(), log.written().size() - kept.size());
        run.assertExit(Walden.EXIT_OK);
        assertEquals("", run.err(), run::toString);
        assertTrue(run.out().contains("kept:      " + kept.size() + " record(s)"), () -> kept.size() + ": " + run);
        final long[] range = log.touchedRange();
        assertTrue(run.out().contains("positions [" + range[0] + ", " + range[1] + ")"), run::toString);

        // The skip is durable: the default policy opens the log with the same records, as the output
        // says, and the skipped bytes are kept as evidence.
        assertEquals(kept, texts(GarbageLog.readAll(dir, RecoveryPolicy.FAIL)));
        assertTrue(run.out().contains("the log opens under the default policy"), run::toString);
        assertFalse(run.out().contains("Open the log with RecoveryPolicy.SKIP"), run::toString);
        final List<Path> evidence = children(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME));
        assertFalse(evidence.isEmpty(), run::toString);
    }

    @Test
    void jsonOfSkipDamagedNamesTheSkippedRangeAndTheCounts() throws IOException {
        final GarbageLog log = GarbageLog.create(dir);
        final Map<String, Object> result =
                JsonParser.parseObject(ToolRun.run("repair", "--skip-damaged", "--json", dir.toString())
                        .assertExit(Walden.EXIT_OK)
                        .out());
        final Map<?, ?> repair = (Map<?, ?>) result.get("repair");
        assertEquals((long) log.untouched().size(), repair.get("recordsKept"), result::toString);
        final long[] range = log.touchedRange();
        assertEquals(
                List.of(Map.of("what", "skipped", "from", range[0], "to", range[1])),
                repair.get("ranges"),
                result::toString);
        assertEquals(range[1] - range[0], repair.get("skippedBytes"), result::toString);
        assertEquals("FAIL", result.get("opensWith"));
    }

    @ParameterizedTest(name = "skip-damaged={0}")
    @ValueSource(booleans = {false, true})
    void dryRunChangesNoByteAndPredictsTheRepairExactly(final boolean skipDamaged) throws IOException {
        GarbageLog.create(dir);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);

        final ToolRun dry = ToolRun.run(args(skipDamaged, "--dry-run", "--json", "--scratch", scratch.toString()));
        before.assertUnchanged(dry);
        assertEquals(List.of(), children(scratch), "the copy is deleted");
        final ToolRun text = ToolRun.run(args(skipDamaged, "--dry-run", "--scratch", scratch.toString()));
        before.assertUnchanged(text);
        assertTrue(text.out().contains("nothing in " + dir + " was changed"), text::toString);

        final ToolRun real = ToolRun.run(args(skipDamaged, "--json"));
        assertEquals(real.exitCode(), dry.exitCode(), () -> dry + "\n" + real);
        assertEquals(real.exitCode(), text.exitCode(), () -> text + "\n" + real);
        final Map<String, Object> predicted = JsonParser.parseObject(dry.out());
        final Map<String, Object> done = JsonParser.parseObject(real.out());
        assertEquals(Boolean.TRUE, predicted.get("dryRun"));
        assertEquals(Boolean.FALSE, predicted.get("changed"));
        assertEquals(Boolean.TRUE, done.get("changed"));
        for (final String field :
                List.of("verdictBefore", "corruption", "verdict", "records", "opensWith", "exitCode")) {
            assertEquals(done.get(field), predicted.get(field), field);
        }
        final Map<?, ?> would = (Map<?, ?>) predicted.get("repair");
        final Map<?, ?> did = (Map<?, ?>) done.get("repair");
        for (final String field : List.of(
                "recordsKept",
                "recordsBeforeDamage",
                "droppedBytes",
                "skippedBytes",
                "tornTailFile",
                "tornTailBytes",
                "endPosition",
                "ranges",
                "evidenceDirectory",
                "evidenceFiles",
                "evidenceBytes")) {
            assertEquals(did.get(field), would.get(field), field);
        }
        assertEquals(((List<?>) did.get("evidence")).size(), ((Long) would.get("evidenceFiles")).intValue());
        assertEquals(((List<?>) did.get("findings")).size(), ((List<?>) would.get("findings")).size());
        assertTrue(((List<?>) would.get("ranges")).size() > 0, predicted::toString);
    }

    @ParameterizedTest(name = "dry-run={0}")
    @ValueSource(booleans = {false, true})
    void skipDamagedRefusesABadSegmentHeaderAndChangesNothing(final boolean dryRun) throws IOException {
        TestLogs.logWithSegments(dir, 3, 1000);
        final Path middle = SegmentNames.segmentPath(dir, TestLogs.SEGMENT_BYTES);
        final byte[] bytes = Files.readAllBytes(middle);
        bytes[3] ^= 0x20; // the magic
        Files.write(middle, bytes);
        final DirectorySnapshot before = DirectorySnapshot.of(dir);
        final ToolRun run = dryRun
                ? ToolRun.run("repair", "--skip-damaged", "--dry-run", "--scratch", scratch.toString(), dir.toString())
                : ToolRun.run("repair", "--skip-damaged", dir.toString());
        run.assertOneLineError(
                2, middle.toString(), "Nothing was changed", "--skip-damaged", "`walden repair " + dir + "` without");
        before.assertUnchanged(run);
        assertEquals(List.of(), children(scratch), "the copy is deleted");
    }

    @Test
    void theDefaultRepairListsItsEvidenceInOneLine() throws IOException {
        GarbageLog.create(dir);
        final ToolRun run = ToolRun.run("repair", dir.toString()).assertExit(0);
        final List<String> evidenceLines = run.outLines().stream()
                .filter(line -> line.startsWith("evidence:"))
                .toList();
        final List<Path> files = children(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME));
        assertTrue(files.size() > 10, "the later segments are kept whole: " + files.size());
        assertEquals(1, evidenceLines.size(), run::toString);
        assertTrue(evidenceLines.get(0).startsWith("evidence:  " + files.size() + " file(s), "), evidenceLines.get(0));
        assertTrue(
                evidenceLines.get(0).contains(dir.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME) + "/"),
                evidenceLines.get(0));
    }

    private String[] args(final boolean skipDamaged, final String... options) {
        final List<String> args = new ArrayList<>(List.of("repair"));
        if (skipDamaged) {
            args.add("--skip-damaged");
        }
        args.addAll(List.of(options));
        args.add(dir.toString());
        return args.toArray(String[]::new);
    }

    private static List<String> texts(final List<TestLogs.Rec> records) {
        return records.stream().map(rec -> rec.lsn() + ":" + rec.text()).collect(Collectors.toList());
    }

    private static List<Path> children(final Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.sorted().collect(Collectors.toList());
        }
    }
}
