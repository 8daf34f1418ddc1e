package io.walden.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** File system types as the mount table names them. */
class FileSystemTypesTest {
    @Test
    void fileSystemsInMemorySurviveNoPowerLoss() {
        assertFalse(FileSystemTypes.survivesPowerLoss("tmpfs"));
        assertFalse(FileSystemTypes.survivesPowerLoss("ramfs"));
        assertFalse(FileSystemTypes.survivesPowerLoss("TMPFS"));
        assertTrue(FileSystemTypes.survivesPowerLoss("ext4"));
        assertTrue(FileSystemTypes.survivesPowerLoss("xfs"));
        assertTrue(FileSystemTypes.survivesPowerLoss("fuse.sshfs"));
        assertTrue(FileSystemTypes.survivesPowerLoss(FileSystemTypes.UNKNOWN));
    }

    @Test
    void fuseFileSystemsAreToldApart() {
        assertTrue(FileSystemTypes.isFuse("fuse"));
        assertTrue(FileSystemTypes.isFuse("fuse.sshfs"));
        assertTrue(FileSystemTypes.isFuse("fuseblk"));
        assertFalse(FileSystemTypes.isFuse("ext4"));
        assertFalse(FileSystemTypes.isFuse("tmpfs"));
    }
}
