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
 * A cleanly closed log opened where rewriting its header in place finds no space (btrfs copies on
 * write): the open's withdrawal of the clean close fails with ENOSPC, the log opens all the same, and
 * its first header write withdraws it before any frame passes the clean close. The power fails after
 * each event of the session in turn ({@link DiskHistory#crashStates}, three survival choices each):
 * every state reopens with every promise its crash point made (the records of the closed session,
 * and every acknowledgement of the new one).
 */
class DeferredCleanCloseTest {
    private static final long SEED = 2026_11_29L;

    @TempDir
    Path root;

    @Test
    void everyCrashStateAfterAnOpenThatCouldNotWithdrawTheCleanCloseKeepsEveryPromise() throws Exception {
        final SimulatedStorage storage =
                SimulatedStorage.builder(root.resolve("log")).seed(SEED).build();
        final AckLedger ledger = new AckLedger(storage);
        try (Wal wal = Wal.open(SessionCrashStates.smallLog(storage))) {
            for (int i = 0; i < 10; i++) {
                ledger.append(wal, new byte[200 + i], Durability.SYNCED);
            }
        }
        // The open's first write to a segment is the clean close's withdrawal: it finds no space.
        storage.failNextWrite(Errno.ENOSPC);
        try (Wal wal = Wal.open(SessionCrashStates.smallLog(storage))) {
            assertEquals(1, storage.faultsInjected(), "the open's header rewrite met the fault");
            assertTrue(wal.recoveryReport().closedCleanly(), wal.recoveryReport()::summary);
            for (int i = 0; i < 30; i++) {
                ledger.append(wal, new byte[300 + i], i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN);
            }
            assertFalse(wal.stats().failed(), () -> String.valueOf(wal.stats().failure()));
        }
        SessionCrashStates.check(
                storage, ledger, SessionCrashStates::smallLog, root.resolve("states"), SEED, "deferred clean close");
    }
}
