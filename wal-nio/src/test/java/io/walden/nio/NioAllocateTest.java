package io.walden.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FileChannel's allocation: nothing allocated (the core zero-fills), but a new file gets its full
 * length first, so that the zero-fill writes land below its end (XFS reserves space past the end of a
 * file that writes extend); a longer file keeps its length and bytes.
 */
class NioAllocateTest {
    private static final long TOKEN = 42;
    private static final int LENGTH = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldGiveANewFileItsFullLengthAndReportNothingAllocated() throws IOException {
        final Path file = directory.resolve("new.tmp");
        final List<String> completions = allocate(file, LENGTH);
        assertEquals(List.of(TOKEN + ":0:null"), completions);
        assertEquals(LENGTH, Files.size(file));
        assertArrayEquals(new byte[LENGTH], Files.readAllBytes(file), "the file reads as zeros");
    }

    @Test
    void shouldLeaveALongerFileAsItIs() throws IOException {
        final Path file = directory.resolve("long.tmp");
        final byte[] content = new byte[2 * LENGTH];
        content[LENGTH - 1] = 7;
        content[2 * LENGTH - 1] = 9;
        Files.write(file, content);
        assertEquals(List.of(TOKEN + ":0:null"), allocate(file, LENGTH));
        assertArrayEquals(content, Files.readAllBytes(file));
    }

    private List<String> allocate(final Path file, final int lengthBytes) throws IOException {
        final List<String> completions = new ArrayList<>();
        final StorageSession session = new NioStorageBackend(StorageOptions.BUFFERED).open(directory, () -> {});
        try {
            final int handle = session.openFile(file, !Files.exists(file));
            session.submitAllocate(handle, 0, lengthBytes, TOKEN);
            session.poll(
                    (token, result, failure) -> {
                        assertNull(failure);
                        completions.add(token + ":" + result + ":" + failure);
                    },
                    8);
            session.closeFile(handle);
        } finally {
            session.close();
        }
        return completions;
    }
}
