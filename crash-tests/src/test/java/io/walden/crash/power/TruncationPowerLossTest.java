package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.format.SegmentNames;
import io.walden.spi.StorageOptions;
import io.walden.testkit.DiskEvent;
import io.walden.testkit.DiskHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Power loss at every event of a {@code truncateBefore} that deletes several segments: between the
 * deletes, before and during the directory sync, each with many random survival choices (directory
 * operations forgotten as a prefix or as any subset). The log must reopen under the default policy
 * with every record at or above the truncation floor, and nothing but whole segments may be missing
 * at its front.
 */
class TruncationPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 60;
    private static final int CHOICES_PER_POINT = 12;

    /** With recycling off every freed segment is deleted; with it on the first two are renamed for reuse. */
    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void truncationSurvivesPowerLossAtEveryStep(final int recycledSegmentsMax) throws Exception {
        final List<WorkloadSpec.Step> steps = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            steps.add(new WorkloadSpec.Step(RECORD_BYTES, Durability.SYNCED, false));
        }
        final WorkloadSpec spec = new WorkloadSpec(
                StorageOptions.BUFFERED,
                SEGMENT_BYTES,
                64 * 1024,
                0,
                0,
                List.of(new WorkloadSpec.Phase(List.of(steps), true)),
                -1,
                42,
                recycledSegmentsMax,
                WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT);
        final Path tryDirectory = scratch.newTryDirectory();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        final DiskHistory history = run.disk().history();
        final List<DiskEvent> events = history.events();
        // Retention frees each segment by a delete, or, for the first recycledSegmentsMax (default 2),
        // by a rename to its free name: both are crashed around.
        int firstFree = -1;
        int lastFree = -1;
        int deletes = 0;
        int renames = 0;
        for (int i = 0; i < events.size(); i++) {
            final DiskEvent event = events.get(i);
            final boolean delete = event instanceof DiskEvent.Delete d && SegmentNames.parseSegmentName(d.name()) >= 0;
            final boolean rename = event instanceof DiskEvent.Rename r && SegmentNames.parseFreeName(r.target()) >= 0;
            if (delete || rename) {
                deletes += delete ? 1 : 0;
                renames += rename ? 1 : 0;
                firstFree = firstFree < 0 ? i : firstFree;
                lastFree = i;
            }
        }
        int lastDirectorySyncDone = lastFree;
        while (lastDirectorySyncDone < events.size() - 1
                && !(events.get(lastDirectorySyncDone) instanceof DiskEvent.DirectorySyncDone)) {
            lastDirectorySyncDone++;
        }
        final int firstDelete = firstFree;
        assertTrue(
                recycledSegmentsMax == 0 ? deletes >= 2 && renames == 0 : renames == recycledSegmentsMax,
                "the truncation deleted " + deletes + " and kept " + renames + " segment(s) for reuse: " + events.size()
                        + " events");
        final CrashStateChecker checker = new CrashStateChecker(spec);
        final SplittableRandom random = new SplittableRandom(7);
        int image = 0;
        for (int eventCount = firstDelete; eventCount <= lastDirectorySyncDone + 1; eventCount++) {
            for (int choice = 0; choice < CHOICES_PER_POINT; choice++) {
                final Path imageDirectory = Files.createDirectory(tryDirectory.resolve("crash-" + image++));
                checker.check(
                        history.crash(eventCount, random, imageDirectory),
                        run.acks().at(eventCount),
                        spec + "\n  the power failed after event " + eventCount + " of " + events.size()
                                + history.lastEvents(eventCount),
                        0,
                        random);
            }
        }
        System.out.println("power-loss truncation: " + checker.checkedCount() + " crash states checked around "
                + deletes + " segment deletes and " + renames + " renames for reuse");
    }
}
