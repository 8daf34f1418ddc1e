package io.walden.crash.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.crash.ChildBackends;
import io.walden.crash.CrashTally;
import io.walden.crash.PreparedSegment;
import io.walden.format.SegmentNames;
import io.walden.testing.LogImages;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.uring.UringSupport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A real full disk: a 16 MiB ext4, 64 MiB XFS or 128 MiB btrfs file system on a loop device ({@link
 * LoopFileSystem}), for each backend, buffered and with O_DIRECT (io_uring also with O_DSYNC, several
 * writes in flight). Segment writes go into prepared segments, so the disk runs out where Walden
 * allocates: the preparation of the next segment, or a write into a segment's hole (on btrfs, which
 * copies on write, any write). That is back-pressure, not a failure.
 *
 * <ol>
 *   <li><b>No room for the next segment.</b> A log with 1 MiB segments, its next segment prepared, on
 *       a file system then filled up: appends fill the active segments and wait at the end of the
 *       last one; one that waits longer than the append timeout is refused with {@code
 *       STORAGE_SPACE}, naming the directory, the cause, the free bytes and what to do; the log does
 *       not fail; once space is freed the next append goes through on the same open log (its delay is
 *       printed); every acknowledgement survives a reopen; no temporary file is left.
 *   <li><b>The disk fills while three appenders run</b> (64 KiB segments): the same on every backend.
 *       Where a segment was not allocated (FileChannel cannot allocate), its unwritten blocks need
 *       space when the frames reach them: a data write that
 *       returns ENOSPC waits and is written again, as the preparation does, and the log does not fail.
 *   <li><b>A data write finds no space</b>: a hole punched into the active segment ahead of the
 *       writes (zeros either way; {@code fallocate --punch-hole}), then the disk filled, so that the
 *       next write into the hole returns ENOSPC, on every backend. The write waits and is written
 *       again ({@code writesWaitedForSpace}); appends that wait longer than the timeout are refused with
 *       {@code STORAGE_SPACE}; the log does not fail; once space is freed the next {@code SYNCED}
 *       append goes through on the same open log; every acknowledgement survives a reopen.
 *   <li><b>Closing on a full disk</b>, records left to write: closing gives up after the append timeout
 *       with {@code STORAGE_SPACE}, saying which positions were not written; the log opens afterwards
 *       with every acknowledgement.
 *   <li>A new log cannot open on a full file system (it needs its first segment): refused with the
 *       cause, and opens once space is freed.
 *   <li>An existing log opens on a full file system and takes appends into its active segment.
 *   <li>A crashed log opens on a full file system too (it continues at the write limit, in the same
 *       segment); one whose torn tail must first be kept as evidence is refused with {@code
 *       STORAGE_SPACE}, saying how much to free, with every file (a leftover preparation too) left byte
 *       for byte as it was, and opens once space is freed.
 *   <li>A crashed log that must continue in a new segment opens on a full file system at the end of
 *       its last segment; appends wait for the next one, and retention makes room for it ({@link
 *       CrashedLogWaitsForSegment}).
 * </ol>
 *
 * <p>Needs root to mount; run as another user it is skipped with that reason. As root, any failure to
 * mount fails the test.
 */
final class FullDiskTest {
    private static final String NO_SPACE = "No space left on device";
    private static final int ROOMY_SEGMENT_BYTES = 1024 * 1024;
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long APPEND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

    /**
     * On ext4 four backends (buffered and O_DIRECT FileChannel, io_uring O_DSYNC and O_DIRECT + O_DSYNC);
     * on XFS and btrfs three (buffered, O_DIRECT or io_uring, and io_uring O_DIRECT + O_DSYNC), on btrfs
     * with {@code chattr +C} one, to keep CI's run short; {@code
     * -Dwalden.fullDisk.allBackends=true} runs every backend on every file system, {@code
     * -Dwalden.fullDisk.fileSystems=xfs,btrfs} picks file systems.
     */
    static Stream<Arguments> fileSystemsAndBackends() {
        final String chosen = System.getProperty("walden.fullDisk.fileSystems", "ext4,xfs,btrfs,btrfs_nocow");
        final boolean all = Boolean.getBoolean("walden.fullDisk.allBackends");
        final List<String> every =
                List.of("nio", "nio-direct", "uring", "uring-direct", "uring-dsync", "uring-direct-dsync");
        return Stream.of(LoopFileSystem.Type.values())
                .filter(type -> List.of(chosen.split(",")).contains(type.mountName()))
                .flatMap(type -> (all
                                ? every
                                : switch (type) {
                                    // Each I/O mode of each family once (CI's time); allBackends: all six.
                                    case EXT4 -> List.of("nio", "nio-direct", "uring-dsync", "uring-direct-dsync");
                                    case XFS -> List.of("nio", "nio-direct", "uring-direct-dsync");
                                    case BTRFS -> List.of("nio", "uring", "uring-direct-dsync");
                                    default -> List.of("nio");
                                })
                        .stream().map(backend -> Arguments.of(type, backend)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fileSystemsAndBackends")
    void aFullDiskIsBackPressureAndAppendsResumeOnTheSameLog(final LoopFileSystem.Type type, final String backendName)
            throws Exception {
        if (backendName.startsWith("uring")) {
            final String unavailable = UringSupport.unavailableReason();
            assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        }
        final String noLoop = LoopFileSystem.unavailableReason();
        assumeTrue(noLoop == null, () -> "skipped: " + noLoop);
        try (LoopFileSystem fileSystem = LoopFileSystem.mount(
                Path.of("target", "fault", "full-disk-" + type.mountName() + "-" + backendName),
                fileSystemBytes(type),
                type)) {
            noRoomForTheNextSegment(fileSystem.mountPoint(), type, backendName);
            fillWhileAppending(fileSystem.mountPoint(), backendName);
            writeIntoAHoleOnAFullDisk(fileSystem.mountPoint(), backendName);
            closeOnAFullDisk(fileSystem.mountPoint(), backendName);
            openOnFullDisk(fileSystem.mountPoint(), backendName);
            openExistingLogOnFullDisk(fileSystem.mountPoint(), type, backendName);
            retentionOnFullDiskFreesSpace(fileSystem.mountPoint(), backendName);
            openCrashedLogOnFullDisk(fileSystem.mountPoint(), type, backendName);
            CrashedLogWaitsForSegment.check(
                    fileSystem.mountPoint(),
                    type,
                    directory -> config(directory, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN));
        }
        if (type == LoopFileSystem.Type.EXT4) {
            openWithNoInodeLeft(Path.of("target", "fault", "no-inode-" + backendName), backendName);
        }
    }

    /** The smallest size each file system is made at here (XFS is made for a test below 300 MB). */
    private static long fileSystemBytes(final LoopFileSystem.Type type) {
        return switch (type) {
            case EXT4 -> 16L * 1024 * 1024;
            case XFS -> 64L * 1024 * 1024;
            case BTRFS, BTRFS_NOCOW -> 128L * 1024 * 1024;
        };
    }

    private static void noRoomForTheNextSegment(
            final Path mountPoint, final LoopFileSystem.Type type, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log-roomy");
        final Path filler = mountPoint.resolve("filler");
        final List<String> violations = new ArrayList<>();
        final Acks acks = new Acks();
        final WalConfig config = config(directory, backendName, ROOMY_SEGMENT_BYTES);
        try (Wal wal = Wal.open(config)) {
            // The next segment prepared in full, before the disk fills: only the one after finds none. It
            // is prepared once a quarter of the active segment is used.
            int sequence = 0;
            while (wal.writtenPosition() < ROOMY_SEGMENT_BYTES / 4) {
                final long lsn = wal.append(TestRecords.tagged(0, sequence, 1000), Durability.WRITTEN);
                acks.add(new Acks.Ack(0, sequence, lsn, Durability.WRITTEN));
                sequence++;
            }
            PreparedSegment.await(SegmentNames.segmentPath(directory, ROOMY_SEGMENT_BYTES));
            LoopFileSystem.fill(filler);
            final Refusal refusal = appendUntilRefused(
                    wal, acks, sequence, next -> next % 10 == 0 ? Durability.SYNCED : Durability.WRITTEN);
            final WalException refused = refusal.refused();
            sequence = refusal.nextSequence();
            checkWaitedForSpace(violations, "the append at the full disk", refused, directory);
            // btrfs copies on write, and FileChannel cannot allocate (its segments are holes until
            // written): a write may find no space before the roll. io_uring allocated both segments
            // whole: its writes go to the end of the prepared one.
            assertTrue(
                    type.copiesOnWrite()
                            || backendName.startsWith("nio")
                            || wal.writtenPosition() >= 2L * ROOMY_SEGMENT_BYTES - 2048,
                    "stopped before the roll");
            if (wal.stats().failed()) {
                violations.add("the log failed on a full disk: " + wal.stats().failure());
            }
            final long freedNs = System.nanoTime();
            Files.delete(filler);
            final long lsn = wal.append(TestRecords.tagged(0, sequence, 1000), Durability.SYNCED);
            final long resumedNs = System.nanoTime() - freedNs;
            acks.add(new Acks.Ack(0, sequence, lsn, Durability.SYNCED));
            System.out.println("full disk, no room for the next segment, " + backendName + ": " + acks.size()
                    + " records acknowledged, the first SYNCED append " + TimeUnit.NANOSECONDS.toMillis(resumedNs)
                    + " ms after space was freed, on the same log");
        }
        finishChecks(violations, directory, backendName, acks, "no room for the next segment");
    }

    private static void fillWhileAppending(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log");
        final Path filler = mountPoint.resolve("filler");
        final long seed = FaultCases.seed();
        final Acks acks = new Acks();
        final List<String> violations = new ArrayList<>();
        final Wal wal = Wal.open(config(directory, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN));
        final MixedAppenders appenders = new MixedAppenders(wal, acks, 3, seed);
        awaitAcks(acks, 200);
        LoopFileSystem.fill(filler);
        final Throwable first = awaitFirstEnding(appenders);
        if (wal.stats().failed()) {
            violations.add("the log failed on a full disk: " + wal.stats().failure());
        }
        checkWaitedForSpace(violations, "an appender at the full disk", first, directory);
        final long writesWaited = wal.stats().writesWaitedForSpace();
        final long freedNs = System.nanoTime();
        Files.delete(filler);
        final long lsn = wal.append(TestRecords.tagged(300, 0, 32), Durability.SYNCED);
        acks.add(new Acks.Ack(300, 0, lsn, Durability.SYNCED));
        System.out.println("full disk while appending, " + backendName + ": " + writesWaited
                + " write(s) found no space and waited; the first SYNCED append "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freedNs) + " ms after space was freed, on the"
                + " same log");
        appenders.stop();
        appenders.join(JOIN_TIMEOUT_NS);
        wal.close();
        finishChecks(violations, directory, backendName, acks, "filled while appending (seed " + seed + ")");
    }

    private static void writeIntoAHoleOnAFullDisk(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log-hole");
        final Path filler = mountPoint.resolve("filler");
        final List<String> violations = new ArrayList<>();
        final Acks acks = new Acks();
        try (Wal wal = Wal.open(config(directory, backendName, ROOMY_SEGMENT_BYTES))) {
            int sequence = appendAndPunchHoleAhead(wal, directory, acks, Durability.WRITTEN);
            LoopFileSystem.fill(filler);
            final Refusal refusal = appendUntilRefused(wal, acks, sequence, next -> Durability.WRITTEN);
            final WalException refused = refusal.refused();
            sequence = refusal.nextSequence();
            checkWaitedForSpace(violations, "the append at the full disk", refused, directory);
            if (wal.stats().failed()) {
                violations.add("the log failed on a write that found no space: "
                        + wal.stats().failure());
            }
            if (wal.stats().writesWaitedForSpace() < 1) {
                violations.add("no write found no space (writesWaitedForSpace 0): the case tested nothing");
            }
            final long freedNs = System.nanoTime();
            Files.delete(filler);
            final long lsn = wal.append(TestRecords.tagged(0, sequence, 1000), Durability.SYNCED);
            acks.add(new Acks.Ack(0, sequence, lsn, Durability.SYNCED));
            System.out.println("full disk, a write into a hole, " + backendName + ": "
                    + wal.stats().writesWaitedForSpace() + " write(s) found no space and waited; the first SYNCED"
                    + " append " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freedNs)
                    + " ms after space was freed, on the same log");
        }
        finishChecks(violations, directory, backendName, acks, "a write into a hole");
    }

    /**
     * Closing while a write waits for space gives up after the append timeout with {@code STORAGE_SPACE}
     * (the log is closed and its lock released all the same), and the log then opens with every
     * acknowledgement.
     */
    private static void closeOnAFullDisk(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log-close");
        final Path filler = mountPoint.resolve("filler");
        final List<String> violations = new ArrayList<>();
        final Acks acks = new Acks();
        final Wal wal = Wal.open(config(directory, backendName, ROOMY_SEGMENT_BYTES));
        int sequence = appendAndPunchHoleAhead(wal, directory, acks, Durability.SYNCED);
        LoopFileSystem.fill(filler);
        // BUFFERED appends reach the hole: their writes find no space. tryAppend does not wait once the
        // buffer is full.
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (wal.stats().writesWaitedForSpace() == 0) {
            assertTrue(System.nanoTime() < deadlineNs, "no write found no space within 30 s of the disk filling");
            final long lsn = wal.tryAppend(new UnsafeBuffer(TestRecords.tagged(0, sequence, 1000)), 0, 1000);
            if (lsn >= 0) {
                acks.add(new Acks.Ack(0, sequence, lsn, Durability.BUFFERED));
                sequence++;
            } else {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        final long startNs = System.nanoTime();
        try {
            wal.close();
            violations.add("closing with records left to write on a full disk returned normally");
        } catch (final WalException ex) {
            checkWaitedForSpace(violations, "closing on a full disk", ex, directory);
            if (!ex.getMessage().contains("were not written")) {
                violations.add("closing on a full disk did not say what was not written: " + ex.getMessage());
            }
        }
        System.out.println("full disk, close, " + backendName + ": gave up after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms");
        LoopFileSystem.freeSpace(filler);
        finishChecks(violations, directory, backendName, acks, "closed on a full disk");
    }

    /** How appending on a full disk ended: the refusal, and the next sequence number. */
    private record Refusal(WalException refused, int nextSequence) {}

    /**
     * Appends records at the level a function gives each sequence number until one is refused (within
     * 30 s of the disk filling); a record refused while it waited for its level is in the log and noted
     * as {@code BUFFERED}.
     */
    private static Refusal appendUntilRefused(
            final Wal wal, final Acks acks, final int firstSequence, final IntFunction<Durability> levels) {
        int sequence = firstSequence;
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (true) {
            assertTrue(System.nanoTime() < deadlineNs, "no append was refused within 30 s of the disk filling");
            final Durability level = levels.apply(sequence);
            try {
                final long lsn = wal.append(TestRecords.tagged(0, sequence, 1000), level);
                acks.add(new Acks.Ack(0, sequence, lsn, level));
                sequence++;
            } catch (final WalException ex) {
                if (ex.lsn() >= 0) {
                    // Refused while it waited for its level: the record is in the log, and will be written.
                    acks.add(new Acks.Ack(0, sequence, ex.lsn(), Durability.BUFFERED));
                    sequence++;
                }
                return new Refusal(ex, sequence);
            }
        }
    }

    /**
     * Appends 64 KiB of records at a level into the first segment, then punches a hole into it ahead of
     * the writes, from a page past the written position to before the segment's last page (below a
     * quarter of the segment, so the next one is not being prepared); the next sequence number.
     */
    private static int appendAndPunchHoleAhead(
            final Wal wal, final Path directory, final Acks acks, final Durability level) throws Exception {
        int sequence = 0;
        while (wal.writtenPosition() < 64 * 1024) {
            final long lsn = wal.append(TestRecords.tagged(0, sequence, 1000), level);
            acks.add(new Acks.Ack(0, sequence, lsn, level));
            sequence++;
        }
        final long holeStart = (wal.writtenPosition() + 2 * 4096) & -4096L;
        punchHole(SegmentNames.segmentPath(directory, 0), holeStart, ROOMY_SEGMENT_BYTES - 4096 - holeStart);
        return sequence;
    }

    /** Deallocates a range of a file (it reads as zeros, and needs space again when written). */
    private static void punchHole(final Path file, final long offset, final long lengthBytes) throws Exception {
        final Process process = new ProcessBuilder(
                        "fallocate",
                        "--punch-hole",
                        "--keep-size",
                        "--offset",
                        Long.toString(offset),
                        "--length",
                        Long.toString(lengthBytes),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("fallocate --punch-hole on " + file + " failed: " + output);
        }
    }

    /** Reopens the log: every acknowledgement is there, and no temporary file is left; fails on violations. */
    private static void finishChecks(
            final List<String> violations,
            final Path directory,
            final String backendName,
            final Acks acks,
            final String what)
            throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(path -> path.getFileName().toString().endsWith(".tmp"))
                    .forEach(path -> violations.add("a temporary file is left: " + path));
        }
        final RecoveredPrefixCheck check = new RecoveredPrefixCheck()
                .run(directory, ChildBackends.named(backendName), ChildBackends.named(backendName), acks);
        violations.addAll(check.violations());
        CrashTally.FAULTS.incrementAndGet();
        if (!violations.isEmpty()) {
            CrashTally.VIOLATIONS.addAndGet(violations.size());
            CrashTally.LOST.addAndGet(check.lost());
            fail("full disk on " + backendName + ", " + what + ": " + violations.size() + " violation(s), "
                    + check.lost() + " acknowledged record(s) lost:\n  " + String.join("\n  ", violations));
        }
    }

    private static void openOnFullDisk(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log-opened-full");
        final Path filler = mountPoint.resolve("filler");
        Files.createDirectories(directory);
        // A killed session's leftover: a refused open keeps it (nothing is changed).
        final Path leftover = directory.resolve(SegmentNames.temporaryName(0));
        Files.write(leftover, new byte[0]);
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
        assertTrue(Files.exists(leftover), "the refused open removed " + leftover);
        LoopFileSystem.freeSpace(filler);
        try (Wal wal = Wal.open(FaultSetup.config(directory, ChildBackends.named(backendName)))) {
            wal.append(TestRecords.tagged(0, 0, 100), Durability.SYNCED);
        }
    }

    /**
     * An existing, cleanly closed log opens on a full file system, so that the service can append into
     * its active segment and call retention: nothing an open does needs new space. On btrfs, which
     * copies on write, the open's rewrite of the header finds no space: the log opens all the same, and
     * its appends wait (the header's withdrawal of the clean close comes first, and any write needs new
     * space there) and go through, on the same open log, once space is freed.
     */
    private static void openExistingLogOnFullDisk(
            final Path mountPoint, final LoopFileSystem.Type type, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log-existing");
        final Path filler = mountPoint.resolve("filler");
        final List<Long> lsns = new ArrayList<>();
        final WalConfig config = config(directory, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN);
        try (Wal wal = Wal.open(config)) {
            for (int i = 0; i < 10; i++) {
                lsns.add(wal.append(TestRecords.tagged(0, i, 100), Durability.SYNCED));
            }
        }
        LoopFileSystem.fill(filler);
        if (type.copiesOnWrite()) {
            try (Wal wal = Wal.open(config)) {
                final WalException refused = assertThrows(
                        WalException.class, () -> wal.append(TestRecords.tagged(0, 10, 100), Durability.SYNCED));
                assertEquals(WalException.ErrorCode.STORAGE_SPACE, refused.errorCode(), refused.toString());
                assertTrue(refused.lsn() >= 0, "the record is in the log, waiting: " + refused);
                assertTrue(
                        !wal.stats().failed(), "the log failed: " + wal.stats().failure());
                LoopFileSystem.freeSpace(filler);
                // The waiting record goes first, then this one: both SYNCED once this returns.
                lsns.add(refused.lsn());
                lsns.add(wal.append(TestRecords.tagged(0, 11, 100), Durability.SYNCED));
            }
        } else {
            try (Wal wal = Wal.open(config)) {
                for (int i = 10; i < 20; i++) {
                    lsns.add(wal.append(TestRecords.tagged(0, i, 100), Durability.SYNCED));
                }
                assertTrue(
                        !wal.stats().failed(), "the log failed: " + wal.stats().failure());
            }
        }
        LoopFileSystem.freeSpace(filler);
        try (Wal wal = Wal.open(config)) {
            final List<TestRecords.Read> read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
            assertEquals(lsns.size(), read.size(), wal.recoveryReport()::summary);
            for (int i = 0; i < read.size(); i++) {
                assertEquals(lsns.get(i), read.get(i).lsn());
            }
        }
        CrashTally.FAULTS.incrementAndGet();
    }

    /**
     * A new log where no file can be created (ext4 out of inodes here; XFS needs room for a chunk of
     * them): the lock file cannot be made, and the open is refused with STORAGE_SPACE, not IO.
     */
    private static void openWithNoInodeLeft(final Path workDirectory, final String backendName) throws Exception {
        try (LoopFileSystem fileSystem =
                LoopFileSystem.mount(workDirectory, 4L * 1024 * 1024, LoopFileSystem.Type.EXT4, List.of("-N", "32"))) {
            final Path directory = Files.createDirectory(fileSystem.mountPoint().resolve("log-no-inode"));
            int files = 0;
            try {
                while (files < 100_000) {
                    Files.createFile(fileSystem.mountPoint().resolve("inode-" + files));
                    files++;
                }
                fail("no ENOSPC after " + files + " files on a file system of 32 inodes");
            } catch (final IOException full) {
                assertTrue(full.getMessage() == null || !full.getMessage().isEmpty(), full.toString());
            }
            final WalException refused = assertThrows(WalException.class, () -> Wal.open(
                            config(directory, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN))
                    .close());
            assertEquals(WalException.ErrorCode.STORAGE_SPACE, refused.errorCode(), refused.getMessage());
            assertTrue(refused.getMessage().contains(SegmentNames.LOCK_FILE_NAME), refused.getMessage());
            assertTrue(refused.getMessage().contains("free space"), refused.getMessage());
        }
        CrashTally.FAULTS.incrementAndGet();
    }

    /**
     * Retention on a full file system frees space: the segments it frees are deleted, not kept for
     * reuse (space comes first), and the log goes on.
     */
    private static void retentionOnFullDiskFreesSpace(final Path mountPoint, final String backendName)
            throws Exception {
        final Path directory = mountPoint.resolve("log-retention");
        final Path filler = mountPoint.resolve("filler");
        final int segmentBytes = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        final WalConfig config = config(directory, backendName, segmentBytes);
        try (Wal wal = Wal.open(config)) {
            int sequence = 0;
            while (wal.tailPosition() < 4L * segmentBytes) {
                wal.append(TestRecords.tagged(0, sequence++, 1000), Durability.SYNCED);
            }
            LoopFileSystem.fill(filler);
            final java.nio.file.FileStore store = Files.getFileStore(directory);
            final long unallocatedBefore = store.getUnallocatedSpace();
            assertEquals(3, wal.truncateBefore(3L * segmentBytes), "segments freed");
            // XFS inactivates deleted inodes in the background (and btrfs frees at its commit): a sync
            // of the file system settles what the deletes freed before it is counted.
            LoopFileSystem.syncFileSystem(directory);
            final long freedBytes = store.getUnallocatedSpace() - unallocatedBefore;
            assertTrue(
                    freedBytes >= 3L * segmentBytes,
                    "truncateBefore of 3 segments on a full disk freed " + freedBytes + " bytes; files: "
                            + TestFiles.contents(directory).keySet());
            assertTrue(!wal.stats().failed(), "the log failed: " + wal.stats().failure());
            assertEquals(3, wal.stats().segmentsDeletedForSpace(), () -> "the stats say so: " + wal.stats());
            Files.delete(filler);
            wal.append(TestRecords.tagged(0, sequence, 1000), Durability.SYNCED);
        }
        CrashTally.FAULTS.incrementAndGet();
    }

    /**
     * A crashed log on a full file system: without a torn tail it opens and takes appends (nothing
     * recovery does needs new blocks); with one, recovery must keep the tail as evidence first, so the
     * open is refused before anything is changed, and goes through once space is freed.
     */
    private static void openCrashedLogOnFullDisk(
            final Path mountPoint, final LoopFileSystem.Type type, final String backendName) throws Exception {
        final Path live = mountPoint.resolve("log-live");
        final Path crashed = mountPoint.resolve("log-crashed");
        final Path torn = mountPoint.resolve("log-torn");
        final Path filler = mountPoint.resolve("filler");
        final Path refill = mountPoint.resolve("refill");
        final List<Long> lsns = new ArrayList<>();
        final long tornOffset;
        try (Wal wal = Wal.open(config(live, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN))) {
            for (int i = 0; i < 10; i++) {
                lsns.add(wal.append(TestRecords.tagged(0, i, 100), Durability.SYNCED));
            }
            LogImages.crashImage(live, crashed);
            LogImages.crashImage(live, torn);
            // A crashed process leaves its lock file (closing keeps it too); making one needs space on XFS.
            Files.createFile(crashed.resolve(SegmentNames.LOCK_FILE_NAME));
            Files.createFile(torn.resolve(SegmentNames.LOCK_FILE_NAME));
            tornOffset = wal.tailPosition() % WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        }
        // Bytes a crash left past the records (an unacknowledged write, torn), and a killed preparation.
        final Path tornSegment = SegmentNames.segmentPath(torn, 0);
        try (FileChannel channel = FileChannel.open(tornSegment, StandardOpenOption.WRITE)) {
            final byte[] garbage = new byte[3000];
            Arrays.fill(garbage, (byte) 0x5a);
            channel.write(ByteBuffer.wrap(garbage), tornOffset);
        }
        Files.write(torn.resolve(SegmentNames.temporaryName(1L << 40)), new byte[0]);
        LoopFileSystem.fill(filler);
        try {
            final WalConfig crashedConfig = config(crashed, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN);
            try (Wal wal = Wal.open(crashedConfig)) {
                assertEquals(lsns.size(), wal.recoveryReport().records(), wal.recoveryReport()::summary);
                if (type.copiesOnWrite()) {
                    // The discard frame after the crashed records and the header found no space (copy
                    // on write): the log writes them before any record, once there is space.
                    assertTrue(
                            wal.recoveryReport().summary().contains("found no space"), wal.recoveryReport()::summary);
                    LoopFileSystem.freeSpace(filler);
                }
                lsns.add(wal.append(TestRecords.tagged(0, 10, 100), Durability.SYNCED));
                assertTrue(
                        !wal.stats().failed(), "the log failed: " + wal.stats().failure());
            }
            if (type.copiesOnWrite()) {
                // A torn tail needs room for its evidence first: as on every file system (below).
                return;
            }
            // Full again: the open above may have freed what a preparation in its image held.
            LoopFileSystem.fill(refill);
            final Map<String, String> before = TestFiles.contents(torn);
            final WalConfig tornConfig = config(torn, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN);
            final WalException refused =
                    assertThrows(WalException.class, () -> Wal.open(tornConfig).close());
            assertEquals(WalException.ErrorCode.STORAGE_SPACE, refused.errorCode(), refused.toString());
            final String message = String.valueOf(refused.getMessage());
            assertTrue(
                    message.contains(torn.toString())
                            && message.contains("bytes of evidence")
                            && message.contains("nothing was changed")
                            && message.contains("free at least"),
                    "the refusal names neither the directory, the need nor what to do: " + message);
            assertEquals(before, TestFiles.contents(torn), "the open refused for space changed the log's files");
            LoopFileSystem.freeSpace(filler, refill);
            try (Wal wal = Wal.open(tornConfig)) {
                final RecoveryReport report = wal.recoveryReport();
                assertEquals(10, report.records(), report::summary);
                assertTrue(
                        report.tornTailBytesCut() >= 3000 && report.evidence().size() == 1, report::summary);
                final List<TestRecords.Read> read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
                assertEquals(10, read.size(), report::summary);
                assertEquals(lsns.get(9), read.get(9).lsn(), report::summary);
            }
        } finally {
            Files.deleteIfExists(filler);
            Files.deleteIfExists(refill);
        }
        try (Wal wal = Wal.open(config(crashed, backendName, WalConfig.SEGMENT_CAPACITY_BYTES_MIN))) {
            final List<TestRecords.Read> read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
            assertEquals(lsns.size(), read.size(), wal.recoveryReport()::summary);
            for (int i = 0; i < read.size(); i++) {
                assertEquals(lsns.get(i), read.get(i).lsn());
            }
        }
        CrashTally.FAULTS.incrementAndGet();
    }

    /** The fault configuration with another segment size and an append timeout short enough to see refusals. */
    private static WalConfig config(final Path directory, final String backendName, final int segmentBytes) {
        final WalConfig base = FaultSetup.config(directory, ChildBackends.named(backendName));
        return WalConfig.builder(directory)
                .backend(base.backend())
                .segmentCapacityBytes(segmentBytes)
                .bufferCapacityBytes(base.bufferCapacityBytes())
                .maxRecordBytes(base.maxRecordBytes())
                .syncIntervalNs(base.syncIntervalNs())
                .appendTimeoutNs(APPEND_TIMEOUT_NS)
                .build();
    }

    /** Waits for the first appender to end, and returns how it ended. */
    private static Throwable awaitFirstEnding(final MixedAppenders appenders) {
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (true) {
            for (final Throwable ending : appenders.endings()) {
                if (ending != null) {
                    return ending;
                }
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("no append was refused within 30 s of the disk filling up");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
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

    private static void awaitAcks(final Acks acks, final int count) {
        final long deadlineNs = System.nanoTime() + JOIN_TIMEOUT_NS;
        while (acks.size() < count) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("only " + acks.size() + " acknowledgements within 30 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
