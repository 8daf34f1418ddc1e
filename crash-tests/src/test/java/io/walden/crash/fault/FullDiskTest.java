package io.walden.crash.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.Durability;
import io.walden.Wal;
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
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real full disk: a 16 MiB ext4 file system on a loop device ({@link LoopFileSystem}) is filled to
 * ENOSPC while appenders run, for each backend, buffered and with O_DIRECT. Segment writes go into
 * prepared (already allocated) segments, so the disk runs out where Walden allocates: the preparation of
 * the next segment. The checks are those of {@link FaultCase} with real timing: the log fails, every
 * appender (SYNCED waiters among them) is refused with the ENOSPC in its cause chain and a message naming
 * the segment file and the cause; the positions stop; no acknowledgement lies beyond them; appends are
 * refused; and once space is freed the reopened log is a valid prefix holding every acknowledgement and
 * accepts appends ({@link RecoveredPrefixCheck}). A second case opens a log on the full disk: the open
 * fails with the cause, and succeeds once space is freed. Each counts two into {@code faults}.
 *
 * <p>Needs root to mount; run as another user it is skipped with that reason. As root, any failure to
 * mount fails the test.
 */
final class FullDiskTest {
    private static final String NO_SPACE = "No space left on device";
    private static final long FILE_SYSTEM_BYTES = 16L * 1024 * 1024;
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"nio", "nio-direct", "uring", "uring-direct"})
    void fullDiskIsFailStopAndRecoverable(final String backendName) throws Exception {
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
        }
    }

    private static void fillWhileAppending(final Path mountPoint, final String backendName) throws Exception {
        final Path directory = mountPoint.resolve("log");
        final Path filler = mountPoint.resolve("filler");
        final long seed = FaultCases.seed();
        final Acks acks = new Acks();
        final List<String> violations = new ArrayList<>();
        final Wal wal = Wal.open(FaultSetup.config(directory, ChildBackends.named(backendName)));
        final MixedAppenders appenders = new MixedAppenders(wal, acks, 3, seed);
        awaitAcks(acks, 200);
        LoopFileSystem.fill(filler);
        final List<Throwable> endings = appenders.join(JOIN_TIMEOUT_NS);
        final long written = wal.writtenPosition();
        final long durable = wal.durablePosition();
        for (int i = 0; i < endings.size(); i++) {
            checkNoSpace(violations, "appender " + i, endings.get(i));
        }
        for (final Acks.Ack ack : acks.all()) {
            if ((ack.level() == Durability.WRITTEN && ack.lsn() >= written)
                    || (ack.level() == Durability.SYNCED && ack.lsn() >= durable)) {
                violations.add("acknowledged " + ack + " beyond the positions after the failure (written " + written
                        + ", durable " + durable + ")");
            }
        }
        try {
            wal.append(TestRecords.tagged(300, 0, 32), Durability.SYNCED);
            violations.add("an append on the failed log was acknowledged");
        } catch (final WalException ex) {
            checkNoSpace(violations, "append after the failure", ex);
        }
        if (wal.tryAppend(new UnsafeBuffer(new byte[32]), 0, 32) != Wal.FAILED) {
            violations.add("tryAppend on the failed log did not return FAILED");
        }
        // Closing joins the I/O thread: whatever it would ever do after the failure, it has done.
        wal.close();
        if (wal.writtenPosition() != written || wal.durablePosition() != durable) {
            violations.add("positions moved after the failure: written " + written + " -> " + wal.writtenPosition()
                    + ", durable " + durable + " -> " + wal.durablePosition());
        }

        Files.delete(filler);
        final RecoveredPrefixCheck check = new RecoveredPrefixCheck()
                .run(directory, ChildBackends.named(backendName), ChildBackends.named(backendName), acks);
        violations.addAll(check.violations());
        CrashTally.FAULTS.incrementAndGet();
        if (!violations.isEmpty()) {
            CrashTally.VIOLATIONS.addAndGet(violations.size());
            CrashTally.LOST.addAndGet(check.lost());
            fail("full disk on " + backendName + " (seed " + seed + "): " + violations.size() + " violation(s), "
                    + check.lost() + " acknowledged record(s) lost:\n  " + String.join("\n  ", violations));
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

    /** A failure must carry the ENOSPC and name a segment file and the cause. */
    private static void checkNoSpace(final List<String> violations, final String who, final Throwable failure) {
        if (!(failure instanceof WalException)) {
            violations.add(who + " ended with " + failure + ", not a WalException");
            return;
        }
        boolean noSpaceCause = false;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            noSpaceCause |= cause instanceof IOException
                    && String.valueOf(cause.getMessage()).contains(NO_SPACE);
        }
        final String message = String.valueOf(failure.getMessage());
        if (!noSpaceCause || !message.contains(NO_SPACE) || !message.contains(".wal")) {
            violations.add(who + " was refused without ENOSPC as its cause, or its message does not name a segment"
                    + " file and the cause: " + failure + " <- " + failure.getCause());
        }
        if (!message.contains("free space")) {
            violations.add(who + " was refused without saying what to do about the full disk: " + failure);
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
