package io.walden.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A renamed file's open handles name its new path (errors about later operations on it name that). */
class FileTableRenameTest {
    @Test
    void shouldNameTheNewPathOfEveryHandleOfARenamedFile() {
        final FileTable<String> files = new FileTable<>();
        final Path temporary = Path.of("/log/00000000000000000000.wal.tmp");
        final Path segment = Path.of("/log/00000000000000000000.wal");
        final Path other = Path.of("/log/00000000000001048576.wal");
        final int first = files.add("a", temporary);
        final int second = files.add("b", temporary);
        final int third = files.add("c", other);
        files.renamed(temporary, segment);
        assertEquals(segment, files.path(first));
        assertEquals(segment, files.path(second));
        assertEquals(other, files.path(third), "another file keeps its path");
    }
}
