package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers that each own a few groups run batches, truncations and reads concurrently while another
 * thread purges (and relocates) in a loop: whatever the interleaving, each writer's groups are what its
 * own model says, while running, at the end and after a reopen.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupLogConcurrencyTest {
    private static final int WRITERS = 4;
    private static final int GROUPS_PER_WRITER = 5;
    private static final int STEPS = 400;

    @TempDir
    Path dir;

    @Test
    void writersAndAPurgerNeverSeeAnotherGroupsChangeOrAStaleEntry() throws Exception {
        final List<GroupModel> models = new ArrayList<>();
        final AtomicLong relocated = new AtomicLong();
        try (GroupLog log = open()) {
            final ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
            try {
                final AtomicBoolean writing = new AtomicBoolean(true);
                final CompletableFuture<Void> purging = CompletableFuture.runAsync(
                        () -> {
                            while (writing.get()) {
                                relocated.addAndGet(log.purge().relocatedRecords());
                            }
                        },
                        pool);
                final List<CompletableFuture<GroupModel>> writers = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    final int writer = w;
                    writers.add(CompletableFuture.supplyAsync(() -> write(log, writer), pool));
                }
                for (final CompletableFuture<GroupModel> writer : writers) {
                    models.add(writer.get(150, TimeUnit.SECONDS));
                }
                writing.set(false);
                purging.get(30, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            for (int w = 0; w < WRITERS; w++) {
                models.get(w).assertMatches(log, "writer " + w + " at the end");
            }
            log.purge();
            log.purge();
        }
        try (GroupLog log = open()) {
            for (int w = 0; w < WRITERS; w++) {
                models.get(w).assertMatches(log, "writer " + w + " after a reopen");
            }
        }
        assertTrue(relocated.get() > 0, "the purger relocated nothing while the writers ran");
    }

    private static GroupModel write(final GroupLog log, final int writer) {
        final Random random = new Random(writer);
        final GroupModel model = new GroupModel();
        final GroupBatch batch = new GroupBatch();
        for (int step = 0; step < STEPS; step++) {
            final long g = writer * GROUPS_PER_WRITER + random.nextInt(GROUPS_PER_WRITER);
            final int op = random.nextInt(10);
            if (op < 6) {
                batch.clear();
                for (int i = 0; i < 3; i++) {
                    final long group = writer * GROUPS_PER_WRITER + random.nextInt(GROUPS_PER_WRITER);
                    final long index = model.last(group) + 1;
                    final byte[] entry = new byte[100 + random.nextInt(900)];
                    random.nextBytes(entry);
                    batch.add(group, index, entry);
                    model.append(group, index, entry);
                }
                log.append(batch, random.nextBoolean() ? Durability.SYNCED : Durability.BUFFERED);
            } else if (op < 8 && g % GROUPS_PER_WRITER != 0) {
                // Group 0 of each writer never truncates: purge relocates it.
                final long k = Math.max(model.first(g), model.last(g) - 2);
                log.truncatePrefix(g, k, Durability.BUFFERED);
                model.truncatePrefix(g, k);
            } else if (op < 9) {
                final long k = model.last(g) - 1;
                log.truncateSuffix(g, k, Durability.WRITTEN);
                model.truncateSuffix(g, k);
            } else {
                model.assertMatches(log, "writer " + writer + " step " + step);
            }
        }
        return model;
    }

    private GroupLog open() {
        return TestGroupLogs.open(dir, 2, 2);
    }
}
