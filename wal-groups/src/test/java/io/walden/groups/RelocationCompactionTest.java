package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relocation log under the load that fills it with dead copies: groups that lag long enough to be
 * relocated and then catch up (their copies die), beside one group that never truncates (its copies
 * live on in every segment). The relocation log must move the few live copies out of its oldest segment
 * and free it, so that it stays near its live data, and every group must be what the model says, also
 * after a reopen that replays the moved copies.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RelocationCompactionTest {
    private static final int CATCHERS = 12;
    private static final long LAGGARD = 0;
    private static final long SEGMENT_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void theRelocationLogFreesSegmentsOfDeadCopiesAndKeepsTheLiveOnes() {
        final Random random = new Random(7);
        final GroupModel model = new GroupModel();
        // The most the relocation log spanned over the live entries of every group (at most 400 bytes
        // each, headers included), in segments.
        double overLiveSegmentsMax = 0;
        long relocated = 0;
        GroupLog log = TestGroupLogs.open(dir, 1, 2);
        try {
            for (int round = 0; round < 400; round++) {
                append(log, model, LAGGARD, random, 1);
                for (long g = 1; g <= CATCHERS; g++) {
                    append(log, model, g, random, 2);
                }
                relocated += log.purge().relocatedRecords();
                if (round % 10 == 9) {
                    // The groups that lagged catch up: every copy of theirs dies.
                    for (long g = 1; g <= CATCHERS; g++) {
                        log.truncatePrefix(g, model.last(g) + 1, Durability.BUFFERED);
                        model.truncatePrefix(g, model.last(g) + 1);
                    }
                }
                long liveBytes = 0;
                for (long g = 0; g <= CATCHERS; g++) {
                    liveBytes += model.size(g) * 400;
                }
                overLiveSegmentsMax = Math.max(
                        overLiveSegmentsMax, (log.stats().relocationLogBytes() - liveBytes) / (double) SEGMENT_BYTES);
                model.assertMatches(log, "round " + round);
                if (round % 50 == 49) {
                    log.close();
                    log = TestGroupLogs.open(dir, 1, 2);
                    model.assertMatches(log, "after the reopen of round " + round);
                }
            }
            assertTrue(relocated > 0, "nothing was relocated: the test tests too little");
            assertTrue(
                    overLiveSegmentsMax <= 4,
                    "the relocation log spanned up to " + overLiveSegmentsMax + " segments more than the live"
                            + " entries: its dead copies were not freed");
        } finally {
            log.close();
        }
    }

    private static void append(
            final GroupLog log, final GroupModel model, final long g, final Random random, final int entries) {
        final GroupBatch batch = new GroupBatch();
        long index = model.isEmpty(g) ? 1 : model.last(g) + 1;
        for (int i = 0; i < entries; i++, index++) {
            final byte[] entry = new byte[300 + random.nextInt(100)];
            random.nextBytes(entry);
            batch.add(g, index, entry);
            model.append(g, index, entry);
        }
        log.append(batch, Durability.BUFFERED);
    }
}
