package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walden.Durability;
import io.walden.WalException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A group log against a simple model ({@link GroupModel}): random operations over a few groups (entries
 * at the next index, over held ones and past gaps; entries below the first index, refused; truncations;
 * resets; removals; key-values), with purges that relocate and reopens in between; after each step every
 * group's bounds, entries and key-values must be the model's.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GroupLogModelTest {
    private static final int GROUPS = 6;
    private static final int STEPS = 1500;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void matchesTheModel(final long seed) {
        final Random random = new Random(seed);
        final GroupModel model = new GroupModel();
        GroupLog log = open();
        long relocated = 0;
        long freed = 0;
        try {
            for (int step = 0; step < STEPS; step++) {
                final int op = random.nextInt(100);
                if (op < 45) {
                    appendBatch(log, model, random);
                } else if (op < 52) {
                    final long g = random.nextInt(GROUPS);
                    final long k = model.first(g) - 2 + random.nextInt((int) model.size(g) + 5);
                    log.truncatePrefix(g, k, Durability.BUFFERED);
                    model.truncatePrefix(g, k);
                } else if (op < 59) {
                    final long g = random.nextInt(GROUPS);
                    final long k = model.first(g) - 2 + random.nextInt((int) model.size(g) + 4);
                    log.truncateSuffix(g, k, Durability.BUFFERED);
                    model.truncateSuffix(g, k);
                } else if (op < 62) {
                    final long g = random.nextInt(GROUPS);
                    final long n = 1 + random.nextInt(50);
                    log.reset(g, n, Durability.BUFFERED);
                    model.reset(g, n);
                } else if (op < 64) {
                    final long g = random.nextInt(GROUPS);
                    log.removeGroup(g, Durability.BUFFERED);
                    model.remove(g);
                } else if (op < 72) {
                    final long g = random.nextInt(GROUPS);
                    final String key = "k" + random.nextInt(3);
                    if (random.nextInt(4) == 0) {
                        log.delete(g, key, Durability.BUFFERED);
                        model.delete(g, key);
                    } else {
                        final byte[] value = bytes(random, 1 + random.nextInt(40));
                        log.put(g, key, value, Durability.BUFFERED);
                        model.put(g, key, value);
                    }
                } else if (op < 77) {
                    refusedBelowFirst(log, model, random);
                } else if (op < 92) {
                    final PurgeReport report = log.purge();
                    relocated += report.relocatedRecords();
                    freed += report.segmentsFreed();
                } else {
                    log.close();
                    log = open();
                }
                model.assertMatches(log, "seed " + seed + " step " + step);
            }
            assertEquals(
                    true,
                    relocated > 0 && freed > 0,
                    "relocated " + relocated + ", freed " + freed + ": the run tests too little");
        } finally {
            log.close();
        }
    }

    private void appendBatch(final GroupLog log, final GroupModel model, final Random random) {
        final GroupBatch batch = new GroupBatch();
        final GroupModel after = model.copy();
        final int ops = 1 + random.nextInt(8);
        for (int i = 0; i < ops; i++) {
            final long g = random.nextInt(GROUPS);
            final int kind = random.nextInt(10);
            if (kind == 0 && !after.isEmpty(g)) {
                batch.truncateSuffix(g, after.last(g) - 1);
                after.truncateSuffix(g, after.last(g) - 1);
                continue;
            }
            final long index;
            if (after.isEmpty(g)) {
                index = 1 + random.nextInt(30);
            } else if (kind < 3) {
                index = after.first(g) + random.nextInt((int) after.size(g));
            } else if (kind < 4) {
                index = after.last(g) + 2 + random.nextInt(3);
            } else {
                index = after.last(g) + 1;
            }
            final byte[] entry = bytes(random, random.nextInt(300));
            batch.add(g, index, entry);
            after.append(g, index, entry);
        }
        log.append(batch, random.nextBoolean() ? Durability.BUFFERED : Durability.WRITTEN);
        model.replaceWith(after);
    }

    private void refusedBelowFirst(final GroupLog log, final GroupModel model, final Random random) {
        final long g = random.nextInt(GROUPS);
        if (model.isEmpty(g) || model.first(g) <= 1) {
            return;
        }
        final GroupBatch batch = new GroupBatch().add((g + 1) % GROUPS, 7, new byte[3]);
        batch.add(g, model.first(g) - 1, new byte[5]);
        final WalException refused = assertThrows(WalException.class, () -> log.append(batch, Durability.BUFFERED));
        assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
    }

    private GroupLog open() {
        return TestGroupLogs.open(dir, 1, 2);
    }

    private static byte[] bytes(final Random random, final int length) {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
