package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.codec.Compression;
import io.walden.codecs.Codecs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden dump} of a compressed log: a frame stored encoded names its codec and shows its record
 * decoded (also in JSON), {@code --raw} shows it as stored (an LZ4 frame), and a record stored as given
 * shows no codec; {@code tail} reads the records decoded.
 */
class DumpCompressedTest {
    private static final String TEXT = "the quick brown fox jumps over the lazy dog; ".repeat(20);

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("dump-compressed");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void aCompressedFrameNamesItsCodecAndShowsItsRecordDecodedOrAsStored() {
        try (Wal wal = Wal.open(
                TestLogs.config(dir).compression(Compression.with(Codecs.lz4())).build())) {
            wal.append(TEXT.getBytes(StandardCharsets.UTF_8), Durability.SYNCED);
            wal.append("short".getBytes(StandardCharsets.UTF_8), Durability.SYNCED);
        }
        final List<String> decoded =
                dataLines(ToolRun.run("dump", "--payload", "utf8", "--max-payload-bytes", "2000", dir.toString())
                        .assertExit(0));
        assertEquals(2, decoded.size(), decoded::toString);
        assertTrue(
                decoded.get(0).contains(" codec=lz4 ") && decoded.get(0).endsWith("payload=\"" + TEXT + "\""),
                decoded.get(0));
        assertTrue(!decoded.get(1).contains(" codec=") && decoded.get(1).endsWith("payload=\"short\""), decoded.get(1));

        final List<String> raw = dataLines(
                ToolRun.run("dump", "--raw", "--payload", "hex", dir.toString()).assertExit(0));
        assertTrue(raw.get(0).contains(" codec=lz4 ") && raw.get(0).contains("payload=04224d18"), raw.get(0));

        final String json = ToolRun.run(
                        "dump", "--json", "--payload", "utf8", "--max-payload-bytes", "2000", dir.toString())
                .assertExit(0)
                .out();
        assertTrue(json.contains("\"codec\":\"lz4\"") && json.contains(TEXT), json);

        final String tail = ToolRun.run(
                        "tail",
                        "--from",
                        "start",
                        "--count",
                        "2",
                        "--payload",
                        "utf8",
                        "--max-payload-bytes",
                        "2000",
                        dir.toString())
                .assertExit(0)
                .out();
        assertTrue(tail.contains(TEXT), tail);
    }

    private static List<String> dataLines(final ToolRun run) {
        return run.outLines().stream()
                .filter(line -> line.contains(" type=DATA "))
                .toList();
    }
}
