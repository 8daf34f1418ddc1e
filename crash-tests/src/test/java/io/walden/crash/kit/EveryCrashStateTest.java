package io.walden.crash.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Wal;
import io.walden.crash.CrashTally;
import io.walden.testkit.AckLedger;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exhaustive small runs on the published kit: a workload of concurrent appenders (every level,
 * batches, 64 KiB segments that roll) runs once; then the power fails after each event of its
 * history in turn, {@value #CHOICES_PER_POINT} times each with other survival choices ({@link
 * DiskHistory#crashStates}), and each state is reopened and checked with {@link AckLedger} against
 * the promises made by its crash point. In the last run one write finds no space (ENOSPC) and is
 * written again: every state before, during and after the retry keeps every promise.
 */
class EveryCrashStateTest {
    private static final int RUNS = 4;
    private static final int CHOICES_PER_POINT = 3;

    @TempDir
    Path root;

    @Test
    void everyCrashStateOfSmallRunsKeepsWhatWasPromisedByThen() throws Exception {
        final SplittableRandom seeds = new SplittableRandom(Long.getLong("walden.crash.seed", 2026));
        int states = 0;
        for (int run = 0; run < RUNS; run++) {
            final long seed = seeds.nextLong();
            final SimulatedStorage storage = SimulatedStorage.builder(root.resolve("log-" + run))
                    .seed(seed)
                    .build();
            final AckLedger ledger = new AckLedger(storage);
            try (Wal wal = Wal.open(storage.configBuilder()
                    .segmentCapacityBytes(64 * 1024)
                    .bufferCapacityBytes(64 * 1024)
                    .maxRecordBytes(8 * 1024)
                    .build())) {
                // The last run has a write that finds no space and is written again.
                final KitWorkload.Faults faults =
                        run == RUNS - 1 ? KitWorkload.Faults.NO_SPACE_WRITE : KitWorkload.Faults.NONE;
                new KitWorkload(new SplittableRandom(seed), faults).run(wal, storage, ledger);
            }
            final DiskHistory history = storage.history();
            final Path target = Files.createDirectory(root.resolve("state-" + run));
            for (final CrashState state : history.crashStates(target, CHOICES_PER_POINT, seed)) {
                final SimulatedStorage reopened = state.newStorage(seed + states);
                try (Wal wal = Wal.open(reopened.configBuilder()
                        .segmentCapacityBytes(64 * 1024)
                        .bufferCapacityBytes(64 * 1024)
                        .maxRecordBytes(8 * 1024)
                        .build())) {
                    ledger.verify(wal, state.eventCount());
                } catch (final AssertionError | RuntimeException ex) {
                    CrashTally.VIOLATIONS.incrementAndGet();
                    throw new AssertionError(
                            "run " + run + " (seed " + seed + "): " + state + history.lastEvents(state.eventCount()),
                            ex);
                }
                states++;
                CrashTally.SIMULATED.incrementAndGet();
            }
        }
        System.out.println("kit: every crash state of " + RUNS + " small runs: " + states + " states checked");
        assertTrue(states > RUNS * 100, "the runs were too small to crash-test: " + states + " states");
    }
}
