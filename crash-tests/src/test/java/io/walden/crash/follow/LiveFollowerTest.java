package io.walden.crash.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.WalView;
import io.walden.crash.ChildJvm;
import io.walden.crash.CrashBudget;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.uring.UringSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Wal#openReadOnly} follows a log that a writer in another process ({@link FollowedWriter}, a
 * child JVM) appends to, rolls and truncates, on real files, for each backend.
 *
 * <p>While the writer runs, the test JVM follows it with
 *
 * <ul>
 *   <li>a WRITTEN and a SYNCED follower on one view, opened as soon as the log exists and read from its
 *       start with {@code poll(handler, limit, timeout)}: every record handed out is checked at once
 *       (strictly increasing LSN, payload intact), and the SYNCED one never hands out a record beyond
 *       the writer's durable position (the quiet windows of {@link FollowedWriter});
 *   <li>a late follower on a second view opened at the start but left untouched until retention has
 *       deleted the segment that view last looked at: it then reads from the confirmed position on;
 *   <li>{@link ViewOpener}, which opens fresh views as a newly started process would, inspects the live
 *       log, and checks that the directory holds only the writer's files.
 * </ul>
 *
 * <p>The writer deletes segments right behind the followers, up to the position they all confirmed
 * ({@link Holds}), never ahead: a follower that missed a record, or met one "truncated away", fails the
 * test. The view takes no lock: it is opened while the writer holds the directory lock, which a second
 * writer is refused.
 *
 * <p>When the writer has closed cleanly, every follower must have seen exactly the records the writer
 * acknowledged from where it started, in LSN order, each once and intact; the SYNCED one all of them
 * too (the clean close proves them durable). Then, with the writer gone, a fresh view and an inspection
 * read the whole log while the directory's files are fingerprinted (name, size, content, modification
 * time) before and after: nothing changed. Last, the log reopens cleanly with every record not
 * truncated.
 *
 * <p><b>Threading:</b> the test thread drives; followers, the view opener and the child's output reader
 * run on their own threads and are joined before their results are read.
 */
final class LiveFollowerTest {
    private static final int WRITER_THREADS = 3;
    private static final long RUN_MS = 8_000;
    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long EXIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long CATCH_UP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long LATE_START_NS = TimeUnit.MILLISECONDS.toNanos(RUN_MS / 3);
    private static final String SEED_PROPERTY = "crash.follow.seed";

    @Test
    void shouldFollowALiveWriterInAnotherProcessOnNio() throws Exception {
        runCampaign("nio");
    }

    @Test
    void shouldFollowALiveWriterInAnotherProcessOnUring() throws Exception {
        final String unavailable = UringSupport.unavailableReason();
        assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        runCampaign("uring");
    }

    /** One run, or under soak, runs until a share of the soak time has passed. */
    private static void runCampaign(final String backendName) throws Exception {
        final long deadlineNs = CrashBudget.soakDeadlineNanos(0.05);
        final String fixedSeed = System.getProperty(SEED_PROPERTY);
        final SplittableRandom seeds =
                new SplittableRandom(fixedSeed != null ? Long.parseLong(fixedSeed) : System.nanoTime());
        do {
            final long seed = seeds.nextLong();
            System.out.println(new LiveFollowerTest().run(backendName, seed));
        } while (CrashBudget.soak() && System.nanoTime() - deadlineNs < 0);
    }

    private String run(final String backendName, final long seed) throws Exception {
        final long startNs = System.nanoTime();
        final Path root = Path.of("target", "follow", backendName);
        TestFiles.deleteRecursively(root);
        Files.createDirectories(root);
        final Path directory = root.resolve("log");
        final Path stderrFile = root.resolve("child-stderr.log");
        final Path childClasses = root.resolve("child-classes");
        ChildJvm.copyChildClasses(FollowedWriter.class, childClasses);
        final String context = backendName + ", seed " + seed + " (-D" + SEED_PROPERTY + " fixes the seeds), "
                + directory + ", child stderr in " + stderrFile;

        final FollowControl control = FollowControl.create(root.resolve("control"));
        final WriterLedger ledger = new WriterLedger();
        final Process child = ChildJvm.start(
                FollowedWriter.class,
                childClasses,
                stderrFile,
                List.of(
                        directory.toString(),
                        backendName,
                        root.resolve("control").toString(),
                        Integer.toString(WRITER_THREADS),
                        Long.toString(RUN_MS),
                        Long.toString(seed)));
        final Thread pipe = new Thread(() -> ChildJvm.readLines(child, ledger::accept), "followed-writer-output");
        pipe.setDaemon(true);
        pipe.start();
        final List<Thread> threads = new ArrayList<>();
        final List<Follower> followers = new ArrayList<>();
        ViewOpener opener = null;
        boolean passed = false;
        try {
            final long openDeadlineNs = System.nanoTime() + OPEN_TIMEOUT_NS;
            while (!ledger.ready() && child.isAlive() && System.nanoTime() - openDeadlineNs < 0) {
                TimeUnit.MILLISECONDS.sleep(5);
            }
            if (!ledger.ready()) {
                child.destroyForcibly();
                pipe.join(TimeUnit.SECONDS.toMillis(10));
                throw new AssertionError("the writer did not open its log: " + ledger.error() + "; " + context);
            }

            // The writer holds the directory lock: a second writer is refused, a view is not.
            final WalException locked =
                    assertThrows(WalException.class, () -> Wal.open(FollowedWriter.config(directory, backendName))
                            .close());
            assertEquals(WalException.ErrorCode.LOCKED, locked.errorCode(), locked.getMessage());
            final Holds holds = new Holds(control, 3);
            try (WalView view = Wal.openReadOnly(directory);
                    WalView lateView = Wal.openReadOnly(directory)) {
                final long writtenStart = holds.take(0);
                final long durableStart = holds.take(1);
                final Follower written = new Follower(
                        "WRITTEN follower", view, Durability.WRITTEN, control, holds, 0, () -> writtenStart);
                final Follower durable =
                        new Follower("SYNCED follower", view, Durability.SYNCED, control, holds, 1, () -> durableStart);
                final Follower late = new Follower(
                        "late WRITTEN follower", lateView, Durability.WRITTEN, control, holds, 2, () -> holds.take(2));
                followers.add(written);
                followers.add(durable);
                opener = new ViewOpener(directory);
                threads.add(start(written, "follower-written"));
                threads.add(start(durable, "follower-synced"));
                threads.add(start(opener, "view-opener"));

                // The late follower starts once the segment its view last looked at is deleted.
                final long firstSegmentGoneByNs = startNs + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
                while ((System.nanoTime() - startNs < LATE_START_NS || ledger.deletedSegments() == 0)
                        && System.nanoTime() - firstSegmentGoneByNs < 0
                        && child.isAlive()
                        && firstFailure(followers, opener) == null) {
                    TimeUnit.MILLISECONDS.sleep(5);
                }
                final boolean lateStarted = ledger.deletedSegments() > 0 && child.isAlive();
                if (lateStarted) {
                    followers.add(late);
                    threads.add(start(late, "follower-late"));
                }

                final long exitDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS) + EXIT_TIMEOUT_NS;
                while (child.isAlive()
                        && System.nanoTime() - exitDeadlineNs < 0
                        && firstFailure(followers, opener) == null) {
                    child.waitFor(10, TimeUnit.MILLISECONDS);
                }
                failOn(firstFailure(followers, opener), context);
                if (child.isAlive()) {
                    throw new AssertionError("the writer did not finish in time; " + context);
                }
                pipe.join(TimeUnit.SECONDS.toMillis(30));
                if (child.exitValue() != 0 || ledger.error() != null || ledger.closedTail() < 0) {
                    throw new AssertionError("the writer failed (exit status " + child.exitValue() + "): "
                            + ledger.error() + "; " + context);
                }
                assertTrue(ledger.malformedLines().isEmpty(), () -> "malformed lines " + ledger.malformedLines());
                assertTrue(lateStarted, () -> "no segment was deleted in the first " + RUN_MS + " ms; " + context);

                final WriterLedger.Records acknowledged = ledger.records(WRITER_THREADS + 1);
                final long lastLsn = acknowledged.lsn(acknowledged.size() - 1);
                for (final Follower follower : followers) {
                    follower.stopAfter(lastLsn);
                }
                final long catchUpDeadlineNs = System.nanoTime() + CATCH_UP_TIMEOUT_NS;
                for (final Thread thread : threads) {
                    if (thread.getName().startsWith("follower")) {
                        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(catchUpDeadlineNs - System.nanoTime())));
                    }
                }
                opener.stop();
                for (final Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                }
                for (final Thread thread : threads) {
                    if (thread.isAlive()) {
                        throw new AssertionError("thread " + thread.getName() + " did not finish: "
                                + positions(followers) + ", view written " + view.writtenPosition() + " durable "
                                + view.durablePosition() + ", the writer's last record at " + lastLsn + "; "
                                + context);
                    }
                }
                failOn(firstFailure(followers, opener), context);

                // Every record, once, in order, intact (checked as read), and exactly those acknowledged.
                for (final Follower follower : followers) {
                    final int from = acknowledged.indexFrom(follower.firstPosition());
                    final String difference = follower.seen().differenceFrom(acknowledged, from, follower.name());
                    if (difference != null) {
                        throw new AssertionError(difference + "; " + context);
                    }
                }
                assertEquals(0, written.firstPosition());
                assertEquals(0, durable.firstPosition());
                assertTrue(
                        late.firstPosition() >= FollowedWriter.SEGMENT_CAPACITY_BYTES,
                        "the late follower started in a later segment");
                assertTrue(
                        written.beyondQuietBound() > 0,
                        () -> "the WRITTEN follower never saw a quiet window's unsynced record while it was open ("
                                + ledger.quietWindows() + " windows): the durable check was never put to the test; "
                                + context);
                assertTrue(view.startPosition() > 0, "the view follows retention");

                final String postMortem = checkAfterExit(directory, backendName, acknowledged);
                final String summary = String.format(
                        "FOLLOW %s: %d records (B/W/S %s) over %d segments; writer truncated %d times (%d segments"
                                + " deleted, up to %d); %d quiet windows (%d skipped) of %d records, %d of them seen"
                                + " unsynced by the WRITTEN follower, %d records checked against an open window by"
                                + " the SYNCED follower; late follower read %d records from %d; %d fresh views,"
                                + " %d live inspections (%d torn tails), %d listings; %s; %.1f s; seed %d",
                        backendName,
                        acknowledged.size(),
                        Arrays.toString(ledger.levelCounts()),
                        lastLsn / FollowedWriter.SEGMENT_CAPACITY_BYTES + 1,
                        ledger.truncations(),
                        ledger.deletedSegments(),
                        ledger.maxTruncateLsn(),
                        ledger.quietWindows(),
                        ledger.quietWindowsSkipped(),
                        ledger.quietRecords(),
                        written.beyondQuietBound(),
                        durable.quietChecks(),
                        late.seen().size(),
                        late.firstPosition(),
                        opener.opens(),
                        opener.inspections(),
                        opener.tornTails(),
                        opener.listings(),
                        postMortem,
                        (System.nanoTime() - startNs) / 1e9,
                        seed);
                passed = true;
                return summary;
            }
        } finally {
            child.destroyForcibly();
            for (final Follower follower : followers) {
                follower.abort();
            }
            if (opener != null) {
                opener.stop();
            }
            for (final Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            control.close();
            if (passed) {
                TestFiles.deleteRecursively(root);
            }
        }
    }

    /**
     * With the writer gone: a fresh view reads the whole log (WRITTEN and SYNCED) and inspects it while
     * the directory's fingerprint must not change; then the log reopens with every record kept.
     */
    private static String checkAfterExit(
            final Path directory, final String backendName, final WriterLedger.Records acknowledged)
            throws IOException {
        final Map<String, String> before = fingerprint(directory);
        final long start;
        try (WalView view = Wal.openReadOnly(directory)) {
            start = view.startPosition();
            final int from = acknowledged.indexFrom(start);
            for (final Durability visibility : List.of(Durability.WRITTEN, Durability.SYNCED)) {
                final WriterLedger.Records read = new WriterLedger.Records();
                try (WalReader reader = view.reader(start, visibility)) {
                    reader.replay((buffer, offset, length, lsn) -> {
                        final byte[] payload = new byte[length];
                        buffer.getBytes(offset, payload);
                        final TestRecords.Tag tag = TestRecords.verify(payload);
                        read.add(lsn, WriterLedger.tag(tag.writer(), tag.sequence()));
                    });
                }
                final String difference =
                        read.differenceFrom(acknowledged, from, "a view after the writer closed (" + visibility + ")");
                if (difference != null) {
                    throw new AssertionError(difference);
                }
            }
            final LogInspection inspection = view.inspect();
            assertEquals(
                    LogInspection.Verdict.CLEAN,
                    inspection.verdict(),
                    () -> "inspection of the closed log: " + inspection);
        }
        final Map<String, String> after = fingerprint(directory);
        assertEquals(before, after, "reading and inspecting the log changed its directory");
        ViewOpener.checkNames(directory);

        try (Wal wal = Wal.open(FollowedWriter.config(directory, backendName))) {
            assertEquals(start, wal.startPosition());
            final WriterLedger.Records reopened = new WriterLedger.Records();
            for (final TestRecords.Read read : TestRecords.replayAll(wal)) {
                final TestRecords.Tag tag = TestRecords.verify(read.payload());
                reopened.add(read.lsn(), WriterLedger.tag(tag.writer(), tag.sequence()));
            }
            final String difference =
                    reopened.differenceFrom(acknowledged, acknowledged.indexFrom(start), "the reopened log");
            if (difference != null) {
                throw new AssertionError(difference);
            }
        }
        return before.size() + " files unchanged by a full read and inspection, reopened cleanly from " + start;
    }

    /** Name to size, modification time and SHA-256 of the content, for every file in the directory. */
    private static Map<String, String> fingerprint(final Path directory) throws IOException {
        final Map<String, String> prints = new TreeMap<>();
        final MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (final NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
        try (var entries = Files.list(directory)) {
            for (final Path file : (Iterable<Path>) entries::iterator) {
                final BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                final String content = attributes.isRegularFile()
                        ? HexFormat.of().formatHex(digest.digest(Files.readAllBytes(file)))
                        : "directory";
                prints.put(
                        file.getFileName().toString(),
                        attributes.size() + " " + attributes.lastModifiedTime().toMillis() + " " + content);
            }
        }
        return prints;
    }

    private static Thread start(final Runnable runnable, final String name) {
        final Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static Throwable firstFailure(final List<Follower> followers, final ViewOpener opener) {
        for (final Follower follower : followers) {
            if (follower.failure() != null) {
                return follower.failure();
            }
        }
        return opener == null ? null : opener.failure();
    }

    private static void failOn(final Throwable failure, final String context) {
        if (failure != null) {
            throw new AssertionError("following the live log failed: " + failure + "; " + context, failure);
        }
    }

    private static String positions(final List<Follower> followers) {
        final StringBuilder text = new StringBuilder();
        for (final Follower follower : followers) {
            text.append(follower.name())
                    .append(" at ")
                    .append(follower.position())
                    .append(' ');
        }
        return text.toString().trim();
    }
}
