package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A crash state's file written with holes for its zero pages reads back byte for byte. */
final class SparseFilesTest {
    @TempDir
    Path directory;

    @Test
    void holesReadAsZerosAndTheSizeIsKept() throws Exception {
        final byte[][] contents = {
            new byte[0],
            new byte[10],
            new byte[3 * 4096 + 100],
            pattern(5 * 4096 + 17, 1, 3),
            pattern(4 * 4096, 0, 2),
            pattern(4096 + 1, 0, 1),
        };
        for (int i = 0; i < contents.length; i++) {
            final Path file = directory.resolve("file-" + i);
            SparseFiles.write(file, contents[i]);
            assertArrayEquals(contents[i], Files.readAllBytes(file), "file " + i);
        }
    }

    /** Non-zero bytes in pages {@code from} to {@code to} (exclusive) only. */
    private static byte[] pattern(final int length, final int from, final int to) {
        final byte[] content = new byte[length];
        for (int i = from * 4096; i < Math.min(length, to * 4096); i++) {
            content[i] = (byte) (i * 7 + 1);
        }
        return content;
    }
}
