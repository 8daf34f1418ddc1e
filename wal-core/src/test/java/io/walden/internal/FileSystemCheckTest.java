package io.walden.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** File system types as the mount table names them. */
class FileSystemCheckTest {
    @Test
    void fileSystemsInMemorySurviveNoPowerLoss() {
        assertFalse(FileSystemCheck.survivesPowerLoss("tmpfs"));
        assertFalse(FileSystemCheck.survivesPowerLoss("ramfs"));
        assertFalse(FileSystemCheck.survivesPowerLoss("TMPFS"));
        assertTrue(FileSystemCheck.survivesPowerLoss("ext4"));
        assertTrue(FileSystemCheck.survivesPowerLoss("xfs"));
        assertTrue(FileSystemCheck.survivesPowerLoss("fuse.sshfs"));
        assertTrue(FileSystemCheck.survivesPowerLoss(FileSystemCheck.UNKNOWN_TYPE));
    }

    @Test
    void fuseFileSystemsAreToldApart() {
        assertTrue(FileSystemCheck.isFuse("fuse"));
        assertTrue(FileSystemCheck.isFuse("fuse.sshfs"));
        assertTrue(FileSystemCheck.isFuse("fuseblk"));
        assertFalse(FileSystemCheck.isFuse("ext4"));
        assertFalse(FileSystemCheck.isFuse("tmpfs"));
    }
}
