package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two directories on one power supply ({@link SimulatedStorage.Builder#sharingPowerWith}). */
final class PowerLineTest {
    @TempDir
    Path root;

    private static byte[] record(final int i) {
        return ("record " + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFailureOfOneDirectoryIsAFailureOfBothAndEachComesBackWithItsOwnCrash() throws Exception {
        final SimulatedStorage main =
                SimulatedStorage.builder(root.resolve("main")).build();
        final SimulatedStorage other = SimulatedStorage.builder(root.resolve("other"))
                .sharingPowerWith(main)
                .build();
        final WalConfig mainConfig = main.configBuilder().syncIntervalNs(0).build();
        final WalConfig otherConfig = other.configBuilder().syncIntervalNs(0).build();
        try (Wal first = Wal.open(mainConfig);
                Wal second = Wal.open(otherConfig)) {
            second.append(record(0), Durability.SYNCED);
            first.append(record(0), Durability.SYNCED);
            other.powerOff();
            assertTrue(main.poweredOff(), "the other directory's failure cut this one's power");
            assertThrows(WalException.class, () -> first.append(record(1), Durability.SYNCED));
        }
        main.crash(1);
        assertFalse(main.poweredOff(), "the crashed directory has power again");
        assertTrue(other.poweredOff(), "the other stays off until its own crash");
        other.crash(2);
        assertFalse(other.poweredOff());
        assertFalse(main.poweredOff(), "the second crash does not cut the first directory again");
        try (Wal first = Wal.open(mainConfig);
                Wal second = Wal.open(otherConfig)) {
            assertEquals(1, AckLedger.readAll(first).size());
            assertEquals(1, AckLedger.readAll(second).size());
            first.append(record(2), Durability.SYNCED);
            second.append(record(2), Durability.SYNCED);
        }
    }

    @Test
    void aCrashPointInOneDirectoryStopsTheOtherAtTheSameInstant() throws Exception {
        final SimulatedStorage main =
                SimulatedStorage.builder(root.resolve("main")).build();
        final SimulatedStorage other = SimulatedStorage.builder(root.resolve("other"))
                .sharingPowerWith(main)
                .build();
        final WalConfig otherConfig = other.configBuilder().syncIntervalNs(0).build();
        try (Wal first = Wal.open(main.configBuilder().syncIntervalNs(0).build());
                Wal second = Wal.open(otherConfig)) {
            first.append(record(0), Durability.SYNCED);
            main.crashAfter(CrashPoint.afterSyncs(1));
            first.append(record(1), Durability.SYNCED);
            final int before = other.eventCount();
            assertThrows(WalException.class, () -> second.append(record(1), Durability.SYNCED));
            assertEquals(before, other.eventCount(), "the other directory recorded nothing after the failure");
        }
        main.crash(3);
        other.crash(4);
        try (Wal second = Wal.open(otherConfig)) {
            assertEquals(0, AckLedger.readAll(second).size());
        }
    }
}
