package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power loss at every event of three sessions that keep a log small with retention while it grows:
 * each frees every segment but the active one half way through, so that the log rolls into segments
 * made from the freed files (recycled: header rewritten, no zero-fill, their stale frames past the
 * write limit) while it writes, raises the limit in them, closes cleanly in them and is reopened in
 * them. Every crash state, with random survival choices (unsynced writes kept or lost, sectors torn,
 * directory operations forgotten), must open under the default policy and hold every acknowledged
 * record and nothing else (the checker of the power-loss property test), on buffered and direct I/O.
 */
class RecyclingPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORDS_PER_PHASE = 70;
    private static final int CHOICES_PER_POINT = 2;

    /** The storage modes the property test draws from. */
    enum Storage {
        BUFFERED(StorageOptions.BUFFERED),
        DIRECT(StorageOptions.DIRECT);

        final StorageOptions options;

        Storage(final StorageOptions options) {
            this.options = options;
        }
    }

    @ParameterizedTest
    @EnumSource(Storage.class)
    void recycledSegmentsSurvivePowerLossAtEveryEvent(final Storage storage) throws Exception {
        final SplittableRandom sizes = new SplittableRandom(23);
        final List<WorkloadSpec.Phase> phases = new ArrayList<>();
        for (int phase = 0; phase < 3; phase++) {
            final List<WorkloadSpec.Step> steps = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_PHASE; i++) {
                final Durability durability = i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN;
                steps.add(new WorkloadSpec.Step(sizes.nextInt(1500, 6000), durability, false));
            }
            phases.add(new WorkloadSpec.Phase(List.of(steps), phase < 2));
        }
        final WorkloadSpec spec = new WorkloadSpec(
                storage.options,
                SEGMENT_BYTES,
                16 * 1024,
                0,
                0,
                phases,
                -1,
                31,
                2,
                WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT);
        final Path tryDirectory = scratch.newTryDirectory();
        final long recycledBefore = CrashTally.RECYCLED_SEGMENTS.get();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        final long recycled = CrashTally.RECYCLED_SEGMENTS.get() - recycledBefore;
        assertTrue(recycled >= 3, "the workload rolled into only " + recycled + " recycled segment(s)");
        final CrashStateChecker checker = new CrashStateChecker(spec);
        final int eventTotal =
                checkEveryEvent(spec, run, tryDirectory, checker, CHOICES_PER_POINT, new SplittableRandom(37));
        System.out.println("power-loss recycling (" + storage + "): " + checker.checkedCount()
                + " crash states checked over " + eventTotal + " events; " + recycled
                + " segments rolled into were recycled");
    }
}
