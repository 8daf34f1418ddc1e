package io.walden.testkit;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import java.nio.charset.StandardCharsets;

/** A crash test's body over a raw log, shared by the runner's and the extension's tests. */
final class LedgerWorkload {
    private LedgerWorkload() {}

    /**
     * Appends SYNCED records (or WRITTEN ones that the application takes for acknowledged, the bug),
     * crashes, and checks every acknowledgement with the ledger.
     */
    static void appendCrashVerify(final CrashTrial trial, final Durability acknowledgedAt) throws Exception {
        final WalConfig config = trial.configBuilder().syncIntervalNs(0).build();
        final AckLedger ledger = new AckLedger(trial.storage());
        trial.runUntilPowerFails(() -> {
            try (Wal wal = Wal.open(config)) {
                final int records = 5 + trial.random().nextInt(40);
                for (int i = 0; i < records; i++) {
                    final byte[] payload =
                            ("record " + i + " ".repeat(trial.random().nextInt(3000))).getBytes(StandardCharsets.UTF_8);
                    final long lsn = ledger.append(wal, payload, acknowledgedAt);
                    if (acknowledgedAt != Durability.SYNCED) {
                        // The bug: the application takes the record for durable.
                        ledger.synced(lsn);
                    }
                }
            }
        });
        trial.crash();
        try (Wal wal = Wal.open(config)) {
            ledger.verify(wal);
        }
    }
}
