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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated storage under a real log: power failures, in-place crashes, faults and delays. */
final class SimulatedStorageTest {
    private static final int SEEDS = 40;

    @TempDir
    Path root;

    private static byte[] record(final int i) {
        return ("record " + i + " " + "x".repeat(300 + i * 37 % 500)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * SYNCED records survive every crash; WRITTEN records after them are lost in some crashes and kept
     * in others: the simulation does lose what was not synced, and only that.
     */
    @Test
    void aCrashKeepsEverySyncedRecordAndSomeUnsyncedOnes() throws Exception {
        int lostUnsynced = 0;
        int keptUnsynced = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            final SimulatedStorage storage = SimulatedStorage.builder(root.resolve("log-" + seed))
                    .seed(seed)
                    .build();
            final WalConfig config = storage.configBuilder().syncIntervalNs(0).build();
            try (Wal wal = Wal.open(config)) {
                for (int i = 0; i < 10; i++) {
                    wal.append(record(i), Durability.SYNCED);
                }
                for (int i = 10; i < 20; i++) {
                    wal.append(record(i), Durability.WRITTEN);
                }
                storage.powerOff();
            }
            final CrashReport report = storage.crash(seed);
            assertEquals(1, storage.crashCount());
            assertFalse(storage.poweredOff(), "the power came back");
            try (Wal wal = Wal.open(config)) {
                final List<AckLedger.LogRecord> records = AckLedger.readAll(wal);
                assertTrue(records.size() >= 10, "lost SYNCED records: " + records.size() + " left; " + report);
                for (int i = 0; i < records.size(); i++) {
                    assertEquals(
                            new String(record(i), StandardCharsets.UTF_8),
                            new String(records.get(i).payload(), StandardCharsets.UTF_8));
                }
                if (records.size() < 20) {
                    lostUnsynced++;
                } else {
                    keptUnsynced++;
                }
                // The recovered log goes on, on the new history.
                wal.append(record(99), Durability.SYNCED);
            }
            assertTrue(storage.eventCount() > 0, "the reopen is recorded on the new history");
        }
        assertTrue(lostUnsynced > 0, "no crash lost a WRITTEN record: the simulation keeps what was not synced");
        assertTrue(keptUnsynced > 0, "every crash lost the WRITTEN records: the simulation never keeps unsynced pages");
    }

    /**
     * The simulation leaves the zeros of a segment's preparation unwritten (holes): the segment must
     * still have its full size by the time the log renames it into place.
     */
    @Test
    void preparedSegmentsHaveTheirFullSize() throws Exception {
        final SimulatedStorage storage = SimulatedStorage.create(root.resolve("log"));
        try (Wal wal = Wal.open(storage.configBuilder()
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(8 * 1024)
                .build())) {
            for (int i = 0; i < 400; i++) {
                wal.append(record(i), i % 10 == 9 ? Durability.SYNCED : Durability.WRITTEN);
            }
        }
        int segments = 0;
        try (var files = java.nio.file.Files.list(storage.directory())) {
            for (final Path file : files.toList()) {
                if (file.getFileName().toString().endsWith(".wal")) {
                    segments++;
                    assertEquals(64 * 1024, java.nio.file.Files.size(file), file.toString());
                }
            }
        }
        assertTrue(segments >= 3, "the records should have rolled segments: " + segments);
    }

    @Test
    void aCrashPointCutsThePowerRightAfterItsOperation() throws Exception {
        final SimulatedStorage storage = SimulatedStorage.create(root.resolve("log"));
        final WalConfig config = storage.configBuilder().build();
        try (Wal wal = Wal.open(config)) {
            wal.append(record(0), Durability.SYNCED);
            final int syncsBefore = storage.operationCount(CrashPoint.Operation.SYNC);
            storage.crashAfter(CrashPoint.afterSyncs(1));
            // The sync that covers this record is the one the crash point counts: it completed, so
            // the record is acknowledged, and the power fails right after.
            wal.append(record(1), Durability.SYNCED);
            assertTrue(storage.poweredOff(), "the power did not fail after the sync");
            assertEquals(syncsBefore + 1, storage.operationCount(CrashPoint.Operation.SYNC));
            final WalException refused =
                    assertThrows(WalException.class, () -> wal.append(record(2), Durability.SYNCED));
            assertTrue(
                    refused.getMessage().contains("simulated power loss")
                            || String.valueOf(refused.getCause()).contains("simulated power loss"),
                    refused.toString());
        }
        storage.crash(7);
        try (Wal wal = Wal.open(config)) {
            final List<AckLedger.LogRecord> records = AckLedger.readAll(wal);
            assertTrue(records.size() >= 2, "the acknowledged records: " + records.size());
        }
    }

    /** The log's own header writes and syncs may meet an armed fault first: appends go on until one fails. */
    private static WalException appendUntilRefused(final AckLedger ledger, final Wal wal) {
        for (int i = 1; i < 100; i++) {
            try {
                ledger.append(wal, record(i), Durability.SYNCED);
            } catch (final WalException ex) {
                return ex;
            }
        }
        throw new AssertionError("100 SYNCED appends after the fault was armed all succeeded");
    }

    /**
     * Arms a fault after one acknowledged record, appends until the log refuses, checks the failure,
     * that the fault was taken once and that the log stays failed, then crashes (or not) and checks
     * that recovery kept every acknowledgement.
     */
    private void faultFailsTheLog(
            final Consumer<SimulatedStorage> arm, final BiConsumer<Wal, WalException> checkFailure, final boolean crash)
            throws Exception {
        final SimulatedStorage storage = SimulatedStorage.create(root.resolve("log"));
        final AckLedger ledger = new AckLedger(storage);
        final WalConfig config = storage.configBuilder().build();
        try (Wal wal = Wal.open(config)) {
            ledger.append(wal, record(0), Durability.SYNCED);
            arm.accept(storage);
            checkFailure.accept(wal, appendUntilRefused(ledger, wal));
            assertEquals(1, storage.faultsInjected());
            assertTrue(wal.stats().failed(), "a failed operation fails the log");
            assertThrows(WalException.class, () -> wal.append(record(200), Durability.WRITTEN));
        }
        if (crash) {
            // The unsynced tail may or may not survive the power failure; every acknowledgement must.
            storage.crash(3);
        }
        try (Wal wal = Wal.open(config)) {
            ledger.verifyRecovered(wal);
        }
    }

    @Test
    void anInjectedEnospcOnAWriteIsBackPressureAndTheWriteIsDoneAgain() throws Exception {
        final SimulatedStorage storage = SimulatedStorage.create(root.resolve("log"));
        final AckLedger ledger = new AckLedger(storage);
        final WalConfig config = storage.configBuilder().build();
        try (Wal wal = Wal.open(config)) {
            ledger.append(wal, record(0), Durability.SYNCED);
            storage.failNextWrite(Errno.ENOSPC);
            // The next write (a record's, or a header's the log rewrites first) finds no space, waits
            // and is done again: every append goes through, and the log does not fail.
            for (int i = 1; i < 20; i++) {
                ledger.append(wal, record(i), Durability.SYNCED);
            }
            assertEquals(1, storage.faultsInjected());
            assertEquals(1, wal.stats().writesWaitedForSpace(), wal.stats()::toString);
            assertFalse(wal.stats().failed(), () -> String.valueOf(wal.stats().failure()));
        }
        storage.crash(3);
        try (Wal wal = Wal.open(config)) {
            ledger.verifyRecovered(wal);
        }
    }

    @Test
    void anInjectedEioFailsASyncAndNothingIsAcknowledgedAfterIt() throws Exception {
        faultFailsTheLog(
                storage -> storage.failNextSync(Errno.EIO),
                (wal, refused) -> assertTrue(
                        String.valueOf(wal.stats().failure()).contains("Input/output error"),
                        String.valueOf(wal.stats().failure())),
                true);
    }

    @Test
    void aDelayedSyncCompletesNoSoonerThanItsDelay() throws Exception {
        final SimulatedStorage storage = SimulatedStorage.create(root.resolve("log"));
        final long delayNs = TimeUnit.MILLISECONDS.toNanos(30);
        try (Wal wal = Wal.open(storage.configBuilder().build())) {
            wal.append(record(0), Durability.SYNCED);
            storage.delaySyncsNs(delayNs);
            final long startNs = System.nanoTime();
            wal.append(record(1), Durability.SYNCED);
            final long tookNs = System.nanoTime() - startNs;
            assertTrue(
                    tookNs >= delayNs, "a SYNCED append took " + tookNs + " ns with syncs delayed " + delayNs + " ns");
        }
    }

    @Test
    void crashPointsRoundTripThroughText() {
        for (final CrashPoint point : List.of(
                CrashPoint.afterEvents(0),
                CrashPoint.afterWrites(12),
                CrashPoint.afterSyncs(3),
                CrashPoint.afterRenames(1),
                CrashPoint.after(CrashPoint.Operation.DELETE, 2),
                CrashPoint.afterDirectorySyncs(4))) {
            assertEquals(point, CrashPoint.parse(point.toString()));
        }
        assertEquals("directory-sync#4", CrashPoint.afterDirectorySyncs(4).toString());
        assertThrows(IllegalArgumentException.class, () -> CrashPoint.parse("sink#3"));
        assertThrows(IllegalArgumentException.class, () -> CrashPoint.afterSyncs(0));
    }
}
