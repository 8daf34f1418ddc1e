package io.walden.crash.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.crash.ChildBackends;
import io.walden.crash.CrashTally;
import io.walden.testing.TestRecords;
import io.walden.uring.UringSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real full disk: a 16 MiB ext4 file system on a loop device ({@link LoopFileSystem}) is filled to
 * ENOSPC while appenders run, for each backend, buffered and with O_DIRECT. Segment writes go into
 * prepared (already allocated) segments, so the disk runs out where Walden allocates: the preparation of
 * the next segment. That is back-pressure, not a failure: the log does not fail, appends fill the active
 * segment and wait at its end, a claim that waits longer than the append timeout is refused with {@code
 * STORAGE_SPACE} and a message naming the directory, the cause, the free bytes and what to do; once the
 * filler is deleted, appends go on on the same open log (the first SYNCED one's delay is printed); after
 * close the reopened log is a valid prefix holding every acknowledgement ({@link RecoveredPrefixCheck}),
 * and no temporary file is left. A second case opens a new log on the full disk: the open fails with the
 * cause, and succeeds once space is freed. A third opens an existing log on the full disk, which works
 * and takes appends into its active segment. Each counts into {@code faults}.
 *
 * <p>Needs root to mount; run as another user it is skipped with that reason. As root, any failure to
 * mount fails the test.
 */
final class FullDiskTest {
    private static final String NO_SPACE = "No space left on device";
    private static final long FILE_SYSTEM_BYTES = 16L * 1024 * 1024;
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long APPEND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"nio", "nio-direct", "uring", "uring-direct"})
    void aFullDiskIsBackPressureAndAppendsResumeOnTheSameLog(final String backendName) throws Exception {
        if (backendName.startsWith("uring")) {
            final String unavailable = UringSupport.unavailableReason();
            assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        }
        final String noLoop = LoopFileSystem.unavailableReason();
        assumeTrue(noLoop == null, () -> "skipped: " + noLoop);
        try (LoopFileSystem fileSystem =
                LoopFileSystem.mount(Path.of("target", "fault", "full-disk-" + backendName), FILE_SYSTEM_BYTES)) {
            fillWhileAppending(fileSystem.mountPoint(), backendName);
            openOnFullDisk(fileSystem.mountPoint(), backendName);
            openExistingLogOnFullDisk(fileSystem.mountPoint(), backendName);
        }
    }

    private static void fillWhileAppending(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log");
        final Path filler = mountPoint.resolve("filler");
        final long seed = FaultCases.seed();
        final Acks acks = new Acks();
        final List<String> violations = new ArrayList<>();
        final Wal wal = Wal.open(config(directory, backendName));
        final MixedAppenders appenders = new MixedAppenders(wal, acks, 3, seed);
        awaitAcks(acks, 200);
        LoopFileSystem.fill(filler);
        // The disk is full: the next segment cannot be prepared, appends fill the active one and wait at
        // its end; a claim that waits longer than the append timeout is refused for space.
        final Throwable refused = awaitFirstEnding(appenders);
        checkWaitedForSpace(violations, "an appender at the full disk", refused, directory);
        if (wal.stats().failed()) {
            violations.add("the log failed on a full disk: " + wal.stats().failure());
        }
        final int acksAtFull = acks.size();
        final long freedNs = System.nanoTime();
        Files.delete(filler);
        // Space again: appends go on, on the same open log.
        final long lsn = wal.append(TestRecords.tagged(300, 0, 32), Durability.SYNCED);
        final long resumedNs = System.nanoTime() - freedNs;
        acks.add(new Acks.Ack(300, 0, lsn, Durability.SYNCED));
        appenders.stop();
        final List<Throwable> endings = appenders.join(JOIN_TIMEOUT_NS);
        for (int i = 0; i < endings.size(); i++) {
            if (endings.get(i) != null) {
                checkWaitedForSpace(violations, "appender " + i, endings.get(i), directory);
            }
        }
        System.out.println("full disk on " + backendName + ": " + acksAtFull + " acknowledged before the disk was"
                + " freed, the first SYNCED append " + TimeUnit.NANOSECONDS.toMillis(resumedNs)
                + " ms after it, " + acks.size() + " in all; the log never failed");
        if (wal.stats().failed()) {
            violations.add(
                    "the log failed after space came back: " + wal.stats().failure());
        }
        wal.close();
        final RecoveredPrefixCheck check = new RecoveredPrefixCheck()
                .run(directory, ChildBackends.named(backendName), ChildBackends.named(backendName), acks);
        violations.addAll(check.violations());
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(path -> path.getFileName().toString().endsWith(".tmp"))
                    .forEach(path -> violations.add("a temporary file is left: " + path));
        }
        CrashTally.FAULTS.incrementAndGet();
        if (!violations.isEmpty()) {
            CrashTally.VIOLATIONS.addAndGet(violations.size());
            CrashTally.LOST.addAndGet(check.lost());
            fail("full disk on " + backendName + " (seed " + seed + "): " + violations.size() + " violation(s), "
                    + check.lost() + " acknowledged record(s) lost:\n  " + String.join("\n  ", violations));
        }
    }

    /**
     * An existing log opens on a full file system, so that the service can append into its active
     * segment and call retention: nothing an open does needs new space.
     */
    private static void openExistingLogOnFullDisk(final Path mountPoint, final String backendName) throws IOException {
        final Path directory = mountPoint.resolve("log-existing");
        final Path filler = mountPoint.resolve("filler");
        final List<Long> lsns = new ArrayList<>();
        try (Wal wal = Wal.open(config(directory, backendName))) {
            for (int i = 0; i < 10; i++) {
                lsns.add(wal.append(TestRecords.tagged(0, i, 100), Durability.SYNCED));
            }
        }
        LoopFileSystem.fill(filler);
        try (Wal wal = Wal.open(config(directory, backendName))) {
            for (int i = 10; i < 20; i++) {
                lsns.add(wal.append(TestRecords.tagged(0, i, 100), Durability.SYNCED));
            }
            assertTrue(!wal.stats().failed(), "the log failed: " + wal.stats().failure());
        }
        Files.delete(filler);
        try (Wal wal = Wal.open(config(directory, backendName))) {
            final List<TestRecords.Read> read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
            assertEquals(lsns.size(), read.size(), wal.recoveryReport()::summary);
            for (int i = 0; i < read.size(); i++) {
                assertEquals(lsns.get(i), read.get(i).lsn());
            }
        }
        CrashTally.FAULTS.incrementAndGet();
    }

    /** The fault configuration with an append timeout short enough to see appends refused for space. */
    private static WalConfig config(final Path directory, final String backendName) {
        final WalConfig base = FaultSetup.config(directory, ChildBackends.named(backendName));
        return WalConfig.builder(directory)
                .backend(base.backend())
                .segmentCapacityBytes(base.segmentCapacityBytes())
                .bufferCapacityBytes(base.bufferCapacityBytes())
                .maxRecordBytes(base.maxRecordBytes())
                .syncIntervalNs(base.syncIntervalNs())
                .appendTimeoutNs(APPEND_TIMEOUT_NS)
                .build();
    }

    /** Waits for the first appender to end, and returns how it ended. */
    private static Throwable awaitFirstEnding(final MixedAppenders appenders) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (true) {
            for (final Thread thread : appenders.threads()) {
                if (!thread.isAlive()) {
                    thread.join();
                    for (final Throwable ending : appenders.endings()) {
                        if (ending != null) {
                            return ending;
                        }
                    }
                }
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("no append was refused within 30 s of the disk filling up");
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    /** A refusal for space: STORAGE_SPACE, naming the directory, the cause and what to do. */
    private static void checkWaitedForSpace(
            final List<String> violations, final String who, final Throwable failure, final Path directory) {
        if (!(failure instanceof WalException ex) || ex.errorCode() != WalException.ErrorCode.STORAGE_SPACE) {
            violations.add(who + " ended with " + failure + ", not a STORAGE_SPACE WalException");
            return;
        }
        final String message = String.valueOf(failure.getMessage());
        if (!message.contains(NO_SPACE)
                || !message.contains(directory.toString())
                || !message.contains("bytes free")
                || !message.contains("free space")) {
            violations.add(
                    who + " was refused without the cause, the directory, the free bytes or what to do: " + message);
        }
    }

    private static void openOnFullDisk(final Path mountPoint, final String backendName) throws IOException {
        final Path directory = mountPoint.resolve("log-opened-full");
        final Path filler = mountPoint.resolve("filler");
        Files.createDirectories(directory);
        LoopFileSystem.fill(filler);
        final WalException refused;
        try {
            Wal.open(FaultSetup.config(directory, ChildBackends.named(backendName)))
                    .close();
            CrashTally.VIOLATIONS.incrementAndGet();
            fail("opening a new log on a full file system succeeded");
            return;
        } catch (final WalException ex) {
            refused = ex;
        }
        CrashTally.FAULTS.incrementAndGet();
        assertNotNull(refused.getMessage());
        assertTrue(
                refused.getMessage().contains(NO_SPACE) && refused.getMessage().contains(directory.toString()),
                "the open failure names neither the cause nor the directory: " + refused);
        assertEquals(
                WalException.ErrorCode.STORAGE_SPACE,
                refused.errorCode(),
                "opening on a full file system must say so by its error code: " + refused);
        Files.delete(filler);
        try (Wal wal = Wal.open(FaultSetup.config(directory, ChildBackends.named(backendName)))) {
            wal.append(TestRecords.tagged(0, 0, 100), Durability.SYNCED);
        }
    }

    private static void awaitAcks(final Acks acks, final int count) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (acks.size() < count) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("only " + acks.size() + " acknowledgements within 30 s");
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }
}
