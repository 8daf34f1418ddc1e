package io.walden.crash.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.testkit.AckLedger;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.Errno;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crashed log opened where writing the discard frame that gives up the positions past its last
 * record finds no space (btrfs copies on write): the log opens all the same, and its first write is
 * that frame, before the header that records the session's limit, before any record. The power fails
 * after each event of that session in turn ({@link DiskHistory#crashStates}, three survival choices
 * each): every state reopens with every promise its crash point made (the records of the crashed
 * session, and every acknowledgement of the new one).
 */
class DeferredTailRepairTest {
    private static final long SEED = 2026_11_29_2L;

    @TempDir
    Path root;

    @Test
    void everyCrashStateAfterAnOpenThatCouldNotWriteTheDiscardFrameKeepsEveryPromise() throws Exception {
        final SimulatedStorage storage =
                SimulatedStorage.builder(root.resolve("log")).seed(SEED).build();
        final AckLedger ledger = new AckLedger(storage);
        final Wal crashed = Wal.open(SessionCrashStates.smallLog(storage));
        for (int i = 0; i < 10; i++) {
            ledger.append(crashed, new byte[200 + i], Durability.SYNCED);
        }
        storage.crash(SEED);
        try {
            crashed.close();
        } catch (final RuntimeException expected) {
            // The power failed under it, as under a crashed process.
        }
        // The open's first write to a segment is the discard frame after the crashed records: no space.
        storage.failNextWrite(Errno.ENOSPC);
        try (Wal wal = Wal.open(SessionCrashStates.smallLog(storage))) {
            assertEquals(1, storage.faultsInjected(), "the open's discard frame met the fault");
            assertTrue(wal.recoveryReport().summary().contains("found no space"), wal.recoveryReport()::summary);
            ledger.verifyRecovered(wal);
            for (int i = 0; i < 30; i++) {
                ledger.append(wal, new byte[300 + i], i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN);
            }
            assertFalse(wal.stats().failed(), () -> String.valueOf(wal.stats().failure()));
        }
        SessionCrashStates.check(
                storage, ledger, SessionCrashStates::smallLog, root.resolve("states"), SEED, "deferred tail repair");
    }
}
