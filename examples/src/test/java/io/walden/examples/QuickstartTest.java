package io.walden.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the Quickstart's {@code main} and checks what it printed and what it left in the log. */
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
