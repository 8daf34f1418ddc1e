package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --decoder CLASS} on {@code dump} and {@code tail}: the class renders every data payload (whole,
 * whatever {@code --max-payload-bytes} says), its text is escaped to stay one line, a record it fails
 * on is shown as such and the command goes on; a class that cannot be used is named in a usage error.
 */
class PayloadDecoderTest {
    private static final Pattern PAYLOAD = Pattern.compile("^position=(\\d+) .* payload=(.*)$");

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("decoder");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void dumpAndTailRenderEveryPayloadWithTheDecoder() throws IOException {
        final List<TestLogs.Rec> written = TestLogs.cleanLog(dir, 20, 300);
        final String decoder = TestDecoders.Describe.class.getName();
        for (final String[] args : List.of(
                new String[] {"dump", "--decoder", decoder, "--max-payload-bytes", "4", dir.toString()},
                new String[] {"tail", "--decoder", decoder, "--from", "start", "--count", "20", dir.toString()})) {
            final ToolRun run = ToolRun.run(args).assertExit(0);
            assertEquals("", run.err(), run::toString);
            final List<String> shown = new ArrayList<>();
            for (final String line : run.outLines()) {
                final Matcher m = PAYLOAD.matcher(line);
                if (m.matches()) {
                    shown.add(m.group(2));
                }
            }
            assertEquals(written.size(), shown.size(), run::toString);
            for (int i = 0; i < written.size(); i++) {
                final TestLogs.Rec rec = written.get(i);
                // One line, quoted and escaped: the JSON string of what the decoder returned.
                assertEquals(
                        JsonParser.parse(shown.get(i)), TestDecoders.describe(rec.lsn(), rec.payload()), run::toString);
            }
            final List<Map<String, Object>> json = ToolRun.run(withJson(args)).assertExit(0).outLines().stream()
                    .map(JsonParser::parseObject)
                    .filter(line -> line.containsKey("payload"))
                    .collect(Collectors.toList());
            assertEquals(written.size(), json.size());
            assertEquals(
                    TestDecoders.describe(written.get(7).lsn(), written.get(7).payload()),
                    json.get(7).get("payload"));
            assertEquals(Boolean.FALSE, json.get(7).get("payloadTruncated"));
        }
    }

    @Test
    void aRecordTheDecoderFailsOnIsShownAndTheCommandGoesOn() throws IOException {
        Files.createDirectories(dir);
        final List<Long> lsns = new ArrayList<>();
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            for (int i = 0; i < 6; i++) {
                lsns.add(wal.append(new byte[] {(byte) i, 42}, Durability.WRITTEN));
            }
        }
        final String decoder = TestDecoders.FailsOnOdd.class.getName();
        final ToolRun run = ToolRun.run("dump", "--decoder", decoder, dir.toString())
                .assertExit(0)
                .assertNoStackTrace();
        final List<String> lines = run.outLines().stream()
                .filter(line -> line.contains(" type=DATA "))
                .collect(Collectors.toList());
        assertEquals(6, lines.size(), run::toString);
        for (int i = 0; i < 6; i++) {
            final String line = lines.get(i);
            if (i % 2 == 0) {
                assertTrue(line.endsWith(" payload=\"ok\""), line);
            } else {
                assertTrue(
                        line.endsWith(" payload-error=\"decoder " + decoder + " failed on the record at position "
                                + lsns.get(i) + ": odd first byte\""),
                        line);
            }
        }
        final List<Map<String, Object>> json = ToolRun.run(
                        "tail", "--json", "--decoder", decoder, "--from", "start", "--count", "6", dir.toString())
                .assertExit(0)
                .outLines()
                .stream()
                .map(JsonParser::parseObject)
                .collect(Collectors.toList());
        assertEquals(JsonParser.NULL, json.get(1).get("payload"));
        assertTrue(((String) json.get(1).get("payloadError")).endsWith("odd first byte"), json::toString);
        assertEquals("ok", json.get(2).get("payload"));
    }

    @Test
    void aClassThatCannotBeUsedIsNamedInAUsageError() throws IOException {
        TestLogs.cleanLog(dir, 3, 10);
        final String log = dir.toString();
        final String prefix = TestDecoders.class.getName() + "$";
        ToolRun.run("dump", "--decoder", "com.example.Missing", log)
                .assertOneLineError(64, "com.example.Missing", "no such class on the class path", "java -cp");
        ToolRun.run("tail", "--decoder", prefix + "NotADecoder", "--timeout", "1s", log)
                .assertOneLineError(
                        64, prefix + "NotADecoder", "does not implement io.walden.tools.spi.PayloadDecoder");
        ToolRun.run("dump", "--decoder", prefix + "NeedsAnArgument", log)
                .assertOneLineError(64, prefix + "NeedsAnArgument", "no public no-argument constructor");
        ToolRun.run("dump", "--decoder", prefix + "FailsToStart", log)
                .assertOneLineError(64, prefix + "FailsToStart", "constructor failed: no schema registry configured");
        ToolRun.run("dump", "--decoder", "io.walden.tools.spi.PayloadDecoder", log)
                .assertOneLineError(64, "io.walden.tools.spi.PayloadDecoder", "is abstract");
        ToolRun.run("dump", "--payload", "hex", "--decoder", prefix + "Describe", log)
                .assertExit(64)
                .assertNoStackTrace();
    }

    private static String[] withJson(final String[] args) {
        final String[] json = new String[args.length + 1];
        json[0] = args[0];
        json[1] = "--json";
        System.arraycopy(args, 1, json, 2, args.length - 1);
        return json;
    }
}
