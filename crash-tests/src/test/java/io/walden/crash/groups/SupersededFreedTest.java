package io.walden.crash.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.crash.CrashTally;
import io.walden.groups.GroupLedger;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A purge never frees a durable record whose successor is not durable yet: a key-value written
 * {@code SYNCED}, rewritten with an unsynced put, then a purge that frees the first one's segment, and
 * the power fails. Whichever of the two the crash keeps, the group holds it; the key is never gone.
 */
class SupersededFreedTest {
    private static final int SEEDS = 32;

    @TempDir
    Path root;

    @Test
    void aKeyValueRewrittenUnsyncedSurvivesAPurgeAndAPowerFailure() throws Exception {
        int freedRuns = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            final SimulatedStorage storage = SimulatedStorage.builder(root.resolve("log-" + seed))
                    .seed(seed)
                    .build();
            final GroupLogConfig config = GroupLogConfig.builder(storage.configBuilder()
                            .segmentCapacityBytes(64 * 1024)
                            .bufferCapacityBytes(64 * 1024)
                            .maxRecordBytes(16 * 1024)
                            .syncIntervalNs(0)
                            .recycledSegmentsMax(0)
                            .build())
                    .relocateAfterRounds(0)
                    .readers(1)
                    .build();
            final GroupLedger ledger = new GroupLedger();
            try (GroupLog log = GroupLog.open(config)) {
                ledger.append(log, new GroupLedger.Step().put(1, "vote", new byte[] {1}), Durability.SYNCED);
                // Another group fills two segments and lets them go.
                for (int i = 1; i <= 60; i++) {
                    ledger.append(log, new GroupLedger.Step().add(2, i, new byte[2000]), Durability.SYNCED);
                }
                ledger.append(log, new GroupLedger.Step().truncatePrefix(2, 61), Durability.SYNCED);
                // The rewrite is only in the page cache when the purge frees the first one's segment.
                ledger.append(log, new GroupLedger.Step().put(1, "vote", new byte[] {2}), Durability.BUFFERED);
                if (log.purge().segmentsFreed() > 0) {
                    freedRuns++;
                }
                storage.powerOff();
            } catch (final RuntimeException ex) {
                if (!storage.poweredOff()) {
                    throw ex;
                }
            }
            storage.crash(seed);
            try (GroupLog log = GroupLog.open(config)) {
                ledger.verifyRecovered(log);
            } catch (final AssertionError ex) {
                CrashTally.VIOLATIONS.incrementAndGet();
                throw new AssertionError("seed " + seed + ": " + ex.getMessage(), ex);
            }
            CrashTally.SIMULATED.incrementAndGet();
        }
        assertTrue(freedRuns == SEEDS, "the purge freed the first put's segment in " + freedRuns + " of " + SEEDS);
    }
}
