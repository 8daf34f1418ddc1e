package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The errors a user of a group log can cause: each names what is wrong and changes nothing. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupLogErrorsTest {
    @TempDir
    Path dir;

    private WalConfig walConfig() {
        return TestGroupLogs.walConfig(dir);
    }

    @Test
    void aPlainWaldenLogIsRefusedAsNotAGroupLog() {
        try (Wal wal = Wal.open(walConfig())) {
            wal.append(new byte[] {1, 2, 3}, Durability.SYNCED);
        }
        final WalException refused = assertThrows(WalException.class, () -> GroupLog.open(walConfig()));
        assertEquals(WalException.ErrorCode.FORMAT, refused.errorCode());
        assertTrue(refused.getMessage().contains("not a group log"), refused.getMessage());
        // The refusal closed the Walden log: it opens again.
        try (Wal wal = Wal.open(walConfig())) {
            assertEquals(1, wal.recoveryReport().records());
        }
    }

    @Test
    void aRefusedBatchAppendsNothingOfAnyGroup() {
        try (GroupLog log = GroupLog.open(walConfig())) {
            log.append(1, 10, new byte[] {1}, Durability.SYNCED);
            final long tail = log.tailPosition();
            final GroupBatch batch = new GroupBatch()
                    .add(2, 1, new byte[] {2})
                    .truncatePrefix(3, 5)
                    .add(1, 9, new byte[] {3});
            final WalException refused = assertThrows(WalException.class, () -> log.append(batch, Durability.SYNCED));
            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertTrue(refused.getMessage().contains("group 1"), refused.getMessage());
            assertEquals(tail, log.tailPosition());
            assertEquals(0, log.lastIndex(2));
            assertEquals(1, log.firstIndex(3));
        }
    }

    @Test
    void aBatchLargerThanARecordIsRefusedWhole() {
        try (GroupLog log = GroupLog.open(walConfig())) {
            final GroupBatch batch = new GroupBatch();
            for (int i = 1; i <= 20; i++) {
                batch.add(i, 1, new byte[1000]);
            }
            final WalException refused = assertThrows(WalException.class, () -> log.append(batch, Durability.SYNCED));
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertEquals(0, log.lastIndex(1));
            assertEquals(0, log.groupIds().length);
        }
    }

    @Test
    void aValueLargerThanTheLimitIsRefused() {
        final GroupLogConfig config =
                GroupLogConfig.builder(walConfig()).maxValueBytes(16).build();
        try (GroupLog log = GroupLog.open(config)) {
            final WalException refused =
                    assertThrows(WalException.class, () -> log.put(1, "term", new byte[17], Durability.SYNCED));
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(refused.getMessage().contains("maxValueBytes"), refused.getMessage());
            assertNull(log.get(1, "term"));
            log.put(1, "term", new byte[16], Durability.SYNCED);
            assertArrayEquals(new byte[16], log.get(1, "term"));
        }
    }

    @Test
    void aClosedLogSaysSo() {
        final GroupLog log = GroupLog.open(walConfig());
        log.close();
        log.close();
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> log.append(1, 1, new byte[1], Durability.BUFFERED))
                        .errorCode());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> log.entry(1, 1)).errorCode());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, log::purge).errorCode());
    }

    @Test
    void anEmptyBatchAndABadSettingAreRefused() {
        try (GroupLog log = GroupLog.open(walConfig())) {
            assertEquals(
                    WalException.ErrorCode.CONFIG,
                    assertThrows(WalException.class, () -> log.append(new GroupBatch(), Durability.SYNCED))
                            .errorCode());
        }
        final WalException bad = assertThrows(
                WalException.class, () -> GroupLogConfig.builder(walConfig()).readers(0));
        assertTrue(bad.getMessage().contains("GroupLogConfig.readers"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new GroupBatch().put(1, "", new byte[1]));
    }
}
