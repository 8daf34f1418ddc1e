package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every crash state of one small run, checked against the promises made by its crash point; and the
 * same states checked against every promise of the run, which the early ones must break: the stamps
 * are what makes an exhaustive run sound.
 */
final class DiskHistoryTest {
    private static final int CHOICES_PER_POINT = 2;

    @TempDir
    Path root;

    @Test
    void everyCrashStateKeepsWhatWasPromisedByThen() throws Exception {
        final SimulatedStorage storage =
                SimulatedStorage.builder(root.resolve("log")).seed(5).build();
        final AckLedger ledger = new AckLedger(storage);
        try (Wal wal = Wal.open(storage.configBuilder().syncIntervalNs(0).build())) {
            for (int i = 0; i < 12; i++) {
                final byte[] payload = new byte[200 + 700 * i];
                payload[0] = (byte) i;
                ledger.append(wal, payload, i % 3 == 2 ? Durability.WRITTEN : Durability.SYNCED);
            }
        }
        final DiskHistory history = storage.history();
        final Path target = Files.createDirectory(root.resolve("state"));
        int states = 0;
        int brokeEveryPromiseCheck = 0;
        for (final CrashState state : history.crashStates(target, CHOICES_PER_POINT, 9)) {
            final SimulatedStorage reopened = state.newStorage(states);
            try (Wal wal = Wal.open(reopened.configBuilder().build())) {
                ledger.verify(wal, state.eventCount());
                try {
                    ledger.verify(wal);
                } catch (final AssertionError expected) {
                    brokeEveryPromiseCheck++;
                }
            } catch (final RuntimeException | AssertionError ex) {
                throw new AssertionError("crash state " + state + history.lastEvents(state.eventCount()), ex);
            }
            states++;
        }
        System.out.println("disk history: " + states + " crash states of " + history.size() + " events checked");
        assertEquals((history.size() + 1) * CHOICES_PER_POINT, states);
        assertTrue(brokeEveryPromiseCheck > 0, "no early crash state lacked a later acknowledgement");
        assertThrows(IllegalArgumentException.class, () -> history.crash(history.size() + 1, null, target));
    }
}
