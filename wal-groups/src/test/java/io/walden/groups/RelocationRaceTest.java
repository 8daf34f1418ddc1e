package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relocation against the operations that change a group while its copies are being made: the hook in
 * {@code Purger} runs each operation after the copies were read and before they are appended. The
 * operation must win, now and after a reopen: an entry replaced, a suffix truncated or the group reset
 * in between is never brought back by a stale copy.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelocationRaceTest {
    private static final long LAGGARD = 7;
    private static final long BUSY = 8;

    @TempDir
    Path dir;

    @Test
    void anEntryReplacedWhileCopiedKeepsItsNewBytes() {
        final byte[] replacement = filled(40, (byte) 0x5A);
        runRace(log -> log.append(LAGGARD, 2, replacement, Durability.BUFFERED), log -> {
            assertArrayEquals(replacement, log.entry(LAGGARD, 2));
            assertEquals(1, log.firstIndex(LAGGARD));
            assertEquals(3, log.lastIndex(LAGGARD));
            assertArrayEquals(filled(30, (byte) 3), log.entry(LAGGARD, 3));
        });
    }

    @Test
    void aSuffixTruncatedWhileCopiedStaysTruncated() {
        runRace(log -> log.truncateSuffix(LAGGARD, 1, Durability.BUFFERED), log -> {
            assertEquals(1, log.lastIndex(LAGGARD));
            assertEquals(null, log.entry(LAGGARD, 2));
            assertArrayEquals(filled(30, (byte) 1), log.entry(LAGGARD, 1));
        });
    }

    @Test
    void aGroupResetWhileCopiedStaysEmpty() {
        runRace(log -> log.reset(LAGGARD, 50, Durability.BUFFERED), log -> {
            assertEquals(50, log.firstIndex(LAGGARD));
            assertEquals(49, log.lastIndex(LAGGARD));
            assertEquals(null, log.entry(LAGGARD, 1));
        });
    }

    private interface LogAction {
        void run(GroupLog log);
    }

    /**
     * A laggard group with entries 1..3 in the oldest segment, a busy group that fills segments after
     * it; a purge relocates the laggard while {@code race} changes it; {@code check} runs after the
     * purge, after a second purge that frees the old segments, and after a reopen.
     */
    private void runRace(final LogAction race, final LogAction check) {
        try (GroupLog log = open()) {
            for (int i = 1; i <= 3; i++) {
                log.append(LAGGARD, i, filled(30, (byte) i), Durability.BUFFERED);
            }
            long index = 1;
            while (log.tailPosition() < 3 * 64 * 1024) {
                log.append(BUSY, index, filled(1000, (byte) index), Durability.BUFFERED);
                log.truncatePrefix(BUSY, index, Durability.BUFFERED);
                index++;
            }
            final boolean[] ran = new boolean[1];
            log.purger().beforeAppendHook(() -> {
                if (!ran[0]) {
                    ran[0] = true;
                    race.run(log);
                }
            });
            final PurgeReport first = log.purge();
            assertTrue(ran[0], "the purge relocated nothing, so the race never ran: " + first);
            assertTrue(Arrays.stream(first.pinningGroups()).anyMatch(g -> g == LAGGARD), first.toString());
            check.run(log);
            log.purger().beforeAppendHook(() -> {});
            log.purge();
            log.purge();
            check.run(log);
        }
        try (GroupLog log = open()) {
            check.run(log);
        }
    }

    private GroupLog open() {
        return TestGroupLogs.open(dir, 1, 4);
    }

    private static byte[] filled(final int length, final byte value) {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}
