package io.walden.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalException;
import java.io.IOException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;

/** ENOSPC and EDQUOT, as the backends word them, anywhere in a cause chain; nothing else. */
class NoSpaceTest {
    @Test
    void shouldRecogniseEnospcAndEdquotAsTheBackendsWordThem() {
        assertTrue(NoSpace.isNoSpace(new IOException("write of 4016 bytes failed: No space left on device")));
        assertTrue(NoSpace.isNoSpace(new IOException("pwrite failed: Disk quota exceeded")));
        assertTrue(NoSpace.isNoSpace(new IOException("io_uring write failed. Error code: 28; No such message")));
        assertTrue(NoSpace.isNoSpace(new IOException("io_uring write failed. Error code: 122; quota")));
        assertTrue(NoSpace.isNoSpace(new FileSystemException("/log/0.wal", null, "No space left on device")));
        assertTrue(NoSpace.isNoSpace(new IOException("write failed", new IOException("No space left on device"))));
        assertEquals(
                WalException.ErrorCode.STORAGE_SPACE,
                NoSpace.errorCode(new IOException("write failed: Disk quota exceeded")));
    }

    @Test
    void shouldTakeNothingElseForALackOfSpace() {
        assertFalse(NoSpace.isNoSpace(new IOException("write failed: Input/output error")));
        assertFalse(NoSpace.isNoSpace(new IOException("io_uring write failed. Error code: 5; EIO")));
        assertFalse(NoSpace.isNoSpace(new IOException((String) null)));
        assertEquals(WalException.ErrorCode.IO, NoSpace.errorCode(new IOException("fdatasync failed: EIO")));
    }
}
