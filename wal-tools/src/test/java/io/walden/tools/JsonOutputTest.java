package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --json} on every command and every error: standard output is JSON, one object per line, as
 * {@link JsonParser} (strict) reads it; standard error stays empty; an error is one {@code
 * {"error":{...}}} object whose exit code is the process's.
 */
class JsonOutputTest {
    private static final String SEPARATOR = "\u2028";

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("json");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void everyCommandPrintsJsonOnAHealthyLog() throws IOException {
        final List<byte[]> payloads = awkwardPayloads();
        final List<Long> lsns = new ArrayList<>();
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            for (final byte[] payload : payloads) {
                lsns.add(wal.append(payload, Durability.WRITTEN));
            }
        }
        final Map<String, Object> verify = single(ToolRun.run("verify", "--json", dir.toString()), 0);
        assertEquals("CLEAN", verify.get("verdict"));
        assertEquals((long) payloads.size(), verify.get("records"));
        final Map<String, Object> live = single(ToolRun.run("--json", "verify", "--live", dir.toString()), 0);
        assertEquals(Boolean.TRUE, live.get("live"));
        final Map<String, Object> stat = single(ToolRun.run("stat", "--json", dir.toString()), 0);
        assertEquals((long) payloads.size(), stat.get("records"));
        assertTrue(stat.get("segments") instanceof List && !((List<?>) stat.get("segments")).isEmpty(), stat::toString);

        // Payloads come back exactly: the JSON strings hold what the UTF-8 decoder made of the bytes.
        final List<Map<String, Object>> dump = lines(
                ToolRun.run("dump", "--json", "--payload", "utf8", "--max-payload-bytes", "1000", dir.toString()), 0);
        final List<Map<String, Object>> frames = dump.stream()
                .filter(line -> "frame".equals(line.get("kind")) && "DATA".equals(line.get("type")))
                .toList();
        assertEquals(payloads.size(), frames.size(), dump::toString);
        for (int i = 0; i < payloads.size(); i++) {
            assertEquals(lsns.get(i), frames.get(i).get("position"));
            assertEquals(
                    new String(payloads.get(i), StandardCharsets.UTF_8),
                    frames.get(i).get("payload"));
            assertEquals(Boolean.FALSE, frames.get(i).get("payloadTruncated"));
        }
        assertEquals("summary", dump.get(dump.size() - 1).get("kind"));
        final List<Map<String, Object>> hex =
                lines(ToolRun.run("dump", "--json", "--payload", "hex", "--max-payload-bytes", "2", dir.toString()), 0);
        assertTrue(hex.stream().anyMatch(line -> Boolean.TRUE.equals(line.get("payloadTruncated"))), hex::toString);

        final List<Map<String, Object>> tail = lines(
                ToolRun.run(
                        "tail", "--json", "--from", "start", "--timeout", "300ms", "--payload", "utf8", dir.toString()),
                0);
        assertEquals(payloads.size(), tail.size(), tail::toString);
        assertEquals(lsns.get(0), tail.get(0).get("position"));

        final List<Map<String, Object>> decoded = lines(
                ToolRun.run("dump", "--json", "--decoder", TestDecoders.Describe.class.getName(), dir.toString()), 0);
        final Map<String, Object> first = decoded.stream()
                .filter(line -> lsns.get(0).equals(line.get("position")))
                .findFirst()
                .orElseThrow();
        assertEquals(TestDecoders.describe(lsns.get(0), payloads.get(0)), first.get("payload"));
    }

    @Test
    void truncateAfterAndRepairPrintOneObject() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 30, 200);
        final Map<String, Object> truncated = single(
                ToolRun.run(
                        "truncate-after",
                        "--json",
                        dir.toString(),
                        Long.toString(written.get(19).lsn())),
                0);
        assertEquals(10L, truncated.get("recordsRemoved"));
        assertEquals("CLEAN", truncated.get("verdict"));

        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(root.resolve("corrupt"));
        final Map<String, Object> repaired =
                single(ToolRun.run("repair", "--json", root.resolve("corrupt").toString()), 0);
        assertEquals("CORRUPTION", repaired.get("verdictBefore"));
        assertEquals("CLEAN", repaired.get("verdict"));
        assertTrue(((Map<?, ?>) repaired.get("corruption"))
                .get("file")
                .equals(damaged.file(root.resolve("corrupt")).toString()));
    }

    @Test
    void corruptionIsJsonToo() throws IOException {
        final TestLogs.Damaged damaged = TestLogs.corruptOlderSegment(dir);
        final String file = damaged.file(dir).toString();
        final Map<String, Object> verify = single(ToolRun.run("verify", "--json", dir.toString()), 2);
        assertEquals("CORRUPTION", verify.get("verdict"));
        single(ToolRun.run("stat", "--json", dir.toString()), 2);
        final List<Map<String, Object>> dump = lines(ToolRun.run("dump", "--json", dir.toString()), 2);
        assertTrue(
                dump.stream()
                        .anyMatch(line -> "invalid".equals(line.get("kind"))
                                && Long.valueOf(damaged.offset()).equals(line.get("offset"))),
                dump::toString);
        assertEquals(1L, dump.get(dump.size() - 1).get("corrupt"));
        // tail prints the records before the damage, then the error as its last line.
        final List<Map<String, Object>> tail =
                lines(ToolRun.run("tail", "--json", "--from", "start", "--timeout", "5s", dir.toString()), 2);
        assertError(tail.get(tail.size() - 1), "CORRUPTION", 2, file);
        assertEquals(file, error(tail.get(tail.size() - 1)).get("file"));
        assertError(
                single(ToolRun.run("truncate-after", "--json", dir.toString(), "-1"), 2), "CORRUPTION", 2, "repair");
    }

    @Test
    void everyErrorIsOneJsonObjectWithItsExitCode() throws IOException {
        final String missing = root.resolve("absent").toString();
        for (final String command : List.of("verify", "stat", "dump", "tail", "repair")) {
            assertError(single(ToolRun.run(command, "--json", missing), 3), "UNREADABLE", 3, missing);
        }
        assertError(single(ToolRun.run("truncate-after", "--json", missing, "5"), 3), "UNREADABLE", 3, missing);

        Files.createDirectories(dir);
        Files.writeString(dir.resolve("notes.txt"), "not a log");
        assertError(single(ToolRun.run("verify", "--json", dir.toString()), 3), "UNREADABLE", 3, "no Walden log");
        final Path garbage = TestLogs.garbageSegment(root.resolve("garbage"));
        assertError(
                single(ToolRun.run("tail", "--json", root.resolve("garbage").toString()), 2),
                "CORRUPTION",
                2,
                garbage.toString());

        final String log = root.resolve("clean").toString();
        TestLogs.cleanLog(root.resolve("clean"), 5, 100);
        for (final String[] args : List.of(
                new String[] {"--json", "frobnicate", log},
                new String[] {"frobnicate", "--json"},
                new String[] {"--json"},
                new String[] {"verify", "--json"},
                new String[] {"verify", "--json", "--frobnicate", log},
                new String[] {"dump", "--json", "--limit", "-1", log},
                new String[] {"dump", "--json", "--payload", "xml", log},
                new String[] {"dump", "--json", "--from", "ten", log},
                new String[] {"dump", "--json", "--payload", "hex", "--decoder", "x.Y", log},
                new String[] {"dump", "--json", "--decoder", "com.example.Missing", log},
                new String[] {"tail", "--json", "--from", "99999999", "--timeout", "1s", log},
                new String[] {"tail", "--json", "--visibility", "buffered", log},
                new String[] {"truncate-after", "--json", log, "12"},
                new String[] {"truncate-after", "--json", log, "soon"},
                new String[] {"truncate-after", "--json", log})) {
            assertError(single(ToolRun.run(args), 64), "USAGE", 64, "");
        }
    }

    @Test
    void aLogInUseIsRefusedInJson() throws IOException {
        TestLogs.cleanLog(dir, 5, 100);
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            wal.append(TestLogs.payload(9, 10), Durability.SYNCED);
            assertError(single(ToolRun.run("repair", "--json", dir.toString()), 4), "IN_USE", 4, "is open");
            assertError(
                    single(ToolRun.run("truncate-after", "--json", dir.toString(), "-1"), 4), "IN_USE", 4, "is open");
        }
    }

    /** Payloads whose text needs every kind of escape, and bytes that are not UTF-8. */
    private static List<byte[]> awkwardPayloads() {
        return List.of(
                "plain".getBytes(StandardCharsets.UTF_8),
                "quote \" backslash \\ slash / newline \n return \r tab \t".getBytes(StandardCharsets.UTF_8),
                ("controls \u0000\u0001\u001f del \u007f c1 \u0085 separators " + SEPARATOR + "\u2029")
                        .getBytes(StandardCharsets.UTF_8),
                "astral \ud83d\ude00 caf\u00e9 \u2603".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xFF, (byte) 0xC0, 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80},
                new byte[0]);
    }

    /** Parses every line of standard output; asserts the exit code and that standard error is empty. */
    private static List<Map<String, Object>> lines(final ToolRun run, final int exitCode) {
        run.assertExit(exitCode).assertNoStackTrace();
        assertEquals("", run.err(), run::toString);
        assertTrue(run.out().endsWith("\n"), run::toString);
        final List<Map<String, Object>> objects = new ArrayList<>();
        for (final String line : run.outLines()) {
            try {
                objects.add(JsonParser.parseObject(line));
            } catch (final IllegalArgumentException ex) {
                throw new AssertionError(ex.getMessage() + "\n" + run, ex);
            }
        }
        return objects;
    }

    /** As {@link #lines}, for a command that prints exactly one object. */
    private static Map<String, Object> single(final ToolRun run, final int exitCode) {
        final List<Map<String, Object>> objects = lines(run, exitCode);
        assertEquals(1, objects.size(), run::toString);
        return objects.get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> error(final Map<String, Object> line) {
        assertEquals(List.of("error"), List.copyOf(line.keySet()), line::toString);
        return (Map<String, Object>) line.get("error");
    }

    private static void assertError(
            final Map<String, Object> line, final String code, final int exitCode, final String fragment) {
        final Map<String, Object> error = error(line);
        assertEquals(code, error.get("code"), line::toString);
        assertEquals((long) exitCode, error.get("exitCode"), line::toString);
        assertTrue(error.get("message") instanceof String, line::toString);
        assertTrue(
                ((String) error.get("message")).contains(fragment) || fragment.equals(error.get("path")),
                line::toString);
        assertTrue(error.containsKey("path") && error.containsKey("command"), line::toString);
    }
}
