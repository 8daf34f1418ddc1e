package io.walden.crash.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.testkit.AckLedger;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * The check the deferred-write tests share: the power fails after each event of a storage's history
 * in turn ({@link DiskHistory#crashStates}, three survival choices each), and every state reopens with
 * every promise the ledger holds for its crash point.
 */
final class SessionCrashStates {
    private SessionCrashStates() {}

    /** A log of 64 KiB segments and buffer on a simulated storage: a session spans a few segments. */
    static WalConfig smallLog(final SimulatedStorage storage) {
        return storage.configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(8 * 1024)
                .build();
    }

    /** Checks every crash state, prints how many under a label, and needs more than 100. */
    static void check(
            final SimulatedStorage storage,
            final AckLedger ledger,
            final Function<SimulatedStorage, WalConfig> configs,
            final Path target,
            final long seed,
            final String label)
            throws Exception {
        final DiskHistory history = storage.history();
        Files.createDirectory(target);
        int states = 0;
        for (final CrashState state : history.crashStates(target, 3, seed)) {
            final SimulatedStorage reopened = state.newStorage(seed + states);
            try (Wal wal = Wal.open(configs.apply(reopened))) {
                ledger.verify(wal, state.eventCount());
            } catch (final AssertionError | RuntimeException ex) {
                CrashTally.VIOLATIONS.incrementAndGet();
                throw new AssertionError(state + history.lastEvents(state.eventCount()), ex);
            }
            states++;
            CrashTally.SIMULATED.incrementAndGet();
        }
        System.out.println(label + ": " + states + " crash states checked");
        assertTrue(states > 100, "too few crash states: " + states);
    }
}
