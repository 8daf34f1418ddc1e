package io.walden.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the Quickstart's {@code main} and checks what it printed and what it left: the log, in a
 * directory given; nothing, in the temporary directory it creates otherwise.
 */
final class QuickstartTest {
    @TempDir
    Path directory;

    @Test
    void printsBothRecordsAndLeavesTheFirstAfterTruncateAfter() throws IOException {
        final String output = runMain(directory.toString());

        assertTrue(output.contains(": put k1 v1\n"), output);
        assertTrue(output.contains(": put k2 v2\n"), output);
        assertTrue(output.indexOf("put k1 v1") < output.indexOf("put k2 v2"), output);
        assertTrue(output.contains("replayed 2 records\n"), output);
        assertTrue(output.contains(": 0 segments deleted\n"), output);

        // truncateAfter(lsn of the first record) discarded the second one, durably.
        final List<String> left = new ArrayList<>();
        try (Wal wal = Wal.open(WalConfig.builder(directory).build());
                WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> left.add(buffer.getStringWithoutLengthUtf8(offset, length)));
        }
        assertEquals(List.of("put k1 v1"), left);
    }

    @Test
    void withoutADirectoryItDeletesTheTemporaryOneItCreated() throws IOException {
        final String output = runMain();

        final Matcher created =
                Pattern.compile("^log directory: (.+)$", Pattern.MULTILINE).matcher(output);
        assertTrue(created.find(), output);
        final Path temporary = Path.of(created.group(1));
        try {
            assertTrue(output.contains("replayed 2 records\n"), output);
            assertTrue(output.contains("deleted the temporary log directory " + temporary + "\n"), output);
            assertFalse(Files.exists(temporary), () -> temporary + " is still there");
        } finally {
            // Not left behind if the test fails.
            new TemporaryDirectory(temporary).close();
        }
    }

    /** Runs main with System.out captured; tests in this module run one at a time. */
    private static String runMain(final String... args) throws IOException {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        try (PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            Quickstart.main(args);
        } finally {
            System.setOut(original);
        }
        final String output = captured.toString(StandardCharsets.UTF_8);
        original.print(output);
        return output;
    }
}
