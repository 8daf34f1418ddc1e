package io.walden.crash.follow;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.WalView;
import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Two races of a view with the writer, in one JVM with the smallest segments so that they come often;
 * each test runs a few seconds (before the fixes in {@code DirectoryTracker}, such runs met the first
 * about once a second and the second within seconds):
 *
 * <ul>
 *   <li>opening a view while retention deletes the oldest segment between the directory listing and
 *       the read of its header: the open must start from the oldest segment left, not fail;
 *   <li>following a log whose writer completes a segment, syncs and rolls while a refresh scans it: the
 *       refresh then sees the next segment's frame after a scan that stopped short of the end, which is
 *       no damage.
 * </ul>
 *
 * <p>A thread that only burns CPU makes it likelier that a view's thread is descheduled inside the
 * window. {@link LiveFollowerTest} covers the same ground across processes, more slowly.
 *
 * <p><b>Threading:</b> the test thread drives; the writer, the views and the burner run on their own
 * threads and are joined before the errors are read.
 */
final class ViewRaceTest {
    private static final int SEGMENT_CAPACITY_BYTES = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(3);
    private static final int VIEW_THREADS = 3;

    /** Each view thread opens views again and again; the writer keeps three segments. */
    @Test
    void shouldOpenAViewWhileRetentionDeletesTheOldestSegment() throws Exception {
        final Outcome outcome = race(true, (directory, stop) -> {
            try (WalView view = Wal.openReadOnly(directory)) {
                view.writtenPosition();
            }
        });
        assertTrue(outcome.truncations() > 0, "the writer truncated");
        System.out.println("VIEW RACE open: " + outcome);
    }

    /** Each view thread follows the log from its start for the whole run. */
    @Test
    void shouldFollowAWriterThatRollsWhileARefreshScans() throws Exception {
        final Outcome outcome = race(false, (directory, stop) -> {
            try (WalView view = Wal.openReadOnly(directory);
                    WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
                while (!stop.get()) {
                    reader.poll((buffer, offset, length, lsn) -> {}, 1000, TimeUnit.MILLISECONDS.toNanos(10));
                }
            }
        });
        System.out.println("VIEW RACE follow: " + outcome);
    }

    /** What a race run did. */
    private record Outcome(long appends, long truncations, long rounds) {}

    /** One round of a view thread: opens a view of the directory and uses it. */
    private interface Round {
        void run(Path directory, AtomicBoolean stop) throws Exception;
    }

    private static Outcome race(final boolean truncate, final Round round) throws Exception {
        final Path directory = Path.of("target", "view-race", truncate ? "open" : "follow");
        TestFiles.deleteRecursively(directory);
        Files.createDirectories(directory);
        final AtomicBoolean stop = new AtomicBoolean();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final AtomicLong appends = new AtomicLong();
        final AtomicLong truncations = new AtomicLong();
        final AtomicLong rounds = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .backend(new NioStorageBackend(StorageOptions.BUFFERED))
                .segmentCapacityBytes(SEGMENT_CAPACITY_BYTES)
                .bufferCapacityBytes(WalConfig.BUFFER_CAPACITY_BYTES_MIN)
                .maxRecordBytes(8192)
                .build())) {
            threads.add(new Thread(
                    () -> {
                        final byte[] payload = new byte[4000];
                        try {
                            for (long n = 0; !stop.get(); n++) {
                                // Mostly BUFFERED: the writer then rolls as fast as the disk allows, and a
                                // view meets more rolls (and so more races) per second.
                                final long lsn =
                                        wal.append(payload, n % 16 == 0 ? Durability.WRITTEN : Durability.BUFFERED);
                                appends.incrementAndGet();
                                if (truncate && lsn - wal.startPosition() > 3L * SEGMENT_CAPACITY_BYTES) {
                                    wal.truncateBefore(lsn - SEGMENT_CAPACITY_BYTES);
                                    truncations.incrementAndGet();
                                }
                            }
                        } catch (final Throwable ex) {
                            errors.add(ex);
                        }
                    },
                    "view-race-writer"));
            for (int i = 0; i < VIEW_THREADS; i++) {
                threads.add(new Thread(
                        () -> {
                            while (!stop.get()) {
                                try {
                                    round.run(directory, stop);
                                    rounds.incrementAndGet();
                                } catch (final Throwable ex) {
                                    errors.add(ex);
                                    return;
                                }
                            }
                        },
                        "view-race-view-" + i));
            }
            threads.add(new Thread(
                    () -> {
                        while (!stop.get()) {
                            Thread.onSpinWait();
                        }
                    },
                    "view-race-burner"));
            try {
                for (final Thread thread : threads) {
                    thread.start();
                }
                TimeUnit.NANOSECONDS.sleep(RUN_NS);
            } finally {
                stop.set(true);
                for (final Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
        }
        if (!errors.isEmpty()) {
            final AssertionError failure =
                    new AssertionError(errors.size() + " view thread(s) failed; the first: " + errors.peek());
            errors.forEach(failure::addSuppressed);
            throw failure;
        }
        TestFiles.deleteRecursively(directory);
        return new Outcome(appends.get(), truncations.get(), rounds.get());
    }
}
