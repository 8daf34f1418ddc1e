package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.crash.CrashTally;
import io.walden.spi.StorageOptions;
import io.walden.testkit.DiskEvent;
import io.walden.testkit.DiskHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Power loss at every event of a {@code truncateBefore} that deletes several segments: between the
 * deletes, before and during the directory sync, each with many random survival choices (directory
 * operations forgotten as a prefix or as any subset). The log must reopen under the default policy
 * with every record at or above the truncation floor, and nothing but whole segments may be missing
 * at its front.
 */
class TruncationPowerLossTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 60;
    private static final int CHOICES_PER_POINT = 12;

    private static final FailStopLogSilencer SILENCER = new FailStopLogSilencer();
    private static ScratchSpace scratch;

    @BeforeAll
    static void start() throws Exception {
        SILENCER.silence();
        scratch = ScratchSpace.create();
    }

    @AfterAll
    static void finish() throws Exception {
        SILENCER.restore();
        if (CrashTally.VIOLATIONS.get() == 0) {
            scratch.close();
        }
    }

    @Test
    void truncationSurvivesPowerLossAtEveryStep() throws Exception {
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
                42);
        final Path tryDirectory = scratch.newTryDirectory();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        final DiskHistory history = run.disk().history();
        final List<DiskEvent> events = history.events();
        int firstDelete = -1;
        int lastDirectorySyncDone = -1;
        int deletes = 0;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof DiskEvent.Delete) {
                deletes++;
                if (firstDelete < 0) {
                    firstDelete = i;
                }
            }
            if (firstDelete >= 0 && lastDirectorySyncDone < 0 && events.get(i) instanceof DiskEvent.DirectorySyncDone) {
                lastDirectorySyncDone = i;
            }
        }
        assertTrue(
                deletes >= 2, "the truncation deleted only " + deletes + " segment(s): " + events.size() + " events");
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
                + deletes + " segment deletes");
    }
}
