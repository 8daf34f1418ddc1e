package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Power loss during the recovery that gives up a batch the crash left open below the position it
 * proved durable. A batch larger than one write is written in several writes; a sync may cover its
 * first frames before the rest is written, and the frames written after that sync say so. When a
 * crash then loses the batch's last frame, recovery cuts the whole batch, below positions those
 * frames prove durable, and zeroes the bytes it gave up. A second power failure in the middle of that
 * zeroing must leave a log that the next recovery cuts the same way, never one that reads as damage
 * to synced data.
 *
 * <p>The workload appends, from one thread, batches of {@value #BATCH_RECORDS} records of {@value
 * #RECORD_BYTES} bytes (written {@value #MAX_WRITE_BYTES} bytes at a time) with a record between them,
 * and a background sync. The power fails after every event of its disk, with {@value
 * #CHOICES_PER_POINT} random survival choices each; every state whose recovery cut below its proven
 * durable position is crashed again after every event of that recovery, {@value
 * #CHOICES_PER_RECOVERY_EVENT} times each, and each such state is checked as {@link CrashStateChecker}
 * checks every state. The test fails if no state needed such a cut.
 */
class OpenBatchCutPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int MAX_WRITE_BYTES = 4096;
    private static final int RECORD_BYTES = 2500;
    private static final int BATCH_RECORDS = 6;
    private static final int BATCHES = 3;
    private static final long SYNC_INTERVAL_NS = 50_000;
    private static final int CHOICES_PER_POINT = 3;
    private static final int CHOICES_PER_RECOVERY_EVENT = 3;
    private static final int ATTEMPTS_MAX = 5;

    @Test
    void aCrashWhileRecoveryZeroesAnOpenBatchIsRecoveredTheSameWay() throws Exception {
        final List<WorkloadSpec.Step> steps = new ArrayList<>();
        for (int i = 0; i < BATCHES; i++) {
            steps.add(new WorkloadSpec.Step(300, Durability.SYNCED, false));
            steps.add(
                    new WorkloadSpec.Step(Collections.nCopies(BATCH_RECORDS, RECORD_BYTES), Durability.WRITTEN, false));
            steps.add(new WorkloadSpec.Step(200, Durability.SYNCED, false));
        }
        final WorkloadSpec spec = new WorkloadSpec(
                StorageOptions.BUFFERED,
                SEGMENT_BYTES,
                MAX_WRITE_BYTES,
                SYNC_INTERVAL_NS,
                0,
                List.of(new WorkloadSpec.Phase(List.of(steps), false)),
                -1,
                11,
                WalConfig.RECYCLED_SEGMENTS_MAX_DEFAULT,
                WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT);
        final CrashStateChecker checker = new CrashStateChecker(spec, CHOICES_PER_RECOVERY_EVENT);
        final SplittableRandom random = new SplittableRandom(5);
        int events = 0;
        // Whether a sync lands between a batch's writes depends on the threads' timing: a workload that
        // made no such state is run again, up to a bound.
        for (int attempt = 0; attempt < ATTEMPTS_MAX && checker.cutsBelowProven() == 0; attempt++) {
            events += crashAtEveryEvent(spec, checker, random);
        }
        System.out.println("power-loss open-batch cuts: " + checker.checkedCount() + " crash states checked, "
                + checker.cutsBelowProven() + " of the workload's cut an open batch below the proven durable"
                + " position and were crashed at every event of that recovery");
        assertTrue(
                checker.cutsBelowProven() > 0,
                "no crash state needed a cut below the proven durable position in " + ATTEMPTS_MAX + " workloads:"
                        + " the workload no longer writes a batch across a sync (" + events + " disk events)");
    }

    /** Runs the workload once and checks a crash after every event of it; returns how many events it had. */
    private static int crashAtEveryEvent(
            final WorkloadSpec spec, final CrashStateChecker checker, final SplittableRandom random) throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        return checkEveryEvent(spec, run, tryDirectory, checker, CHOICES_PER_POINT, random);
    }
}
