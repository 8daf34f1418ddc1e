package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Power loss at every event of a {@code Wal.truncateAfter} that cuts a segment in the middle and
 * discards the segments after it: while the suffix-truncation record is written and renamed, while
 * later segments are replaced, while the cut segment is zeroed, and while the record is deleted; each
 * with many random survival choices (unsynced writes kept or lost, sectors torn, directory
 * operations forgotten). Every crash state must open under the default policy and hold either every
 * record of the log before the truncation or exactly the records it keeps, never anything between,
 * and a record appended after the open must go past every position the old log used.
 */
class SuffixTruncationPowerLossTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 40;
    /** Records kept: the cut falls in the second segment, and three segments after it are discarded. */
    private static final int KEPT = 13;

    private static final int CHOICES_PER_POINT = 6;

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

    private static WalConfig config(final Path directory, final SimulatedDisk disk, final long seed) {
        return WalConfig.builder(directory)
                .backend(new SimulatedBackend(disk, StorageOptions.BUFFERED, seed))
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .build();
    }

    @Test
    void truncationLeavesTheOldLogOrTheNewOneAfterPowerLossAtEveryStep() throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final Path directory = Files.createDirectory(tryDirectory.resolve("log"));
        final SimulatedDisk disk = new SimulatedDisk(directory);
        final long[] lsns = new long[RECORDS];
        try (Wal wal = Wal.open(config(directory, disk, 1))) {
            for (int i = 0; i < RECORDS; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, RECORD_BYTES), Durability.SYNCED);
            }
        }
        final int firstEvent = disk.eventCount();
        Wal.truncateAfter(config(directory, disk, 2), lsns[KEPT - 1]);
        final List<DiskEvent> events = disk.events();
        final DiskModel model = disk.newModel();
        final SplittableRandom random = new SplittableRandom(11);
        int oldLogs = 0;
        int newLogs = 0;
        int image = 0;
        for (int eventCount = firstEvent; eventCount <= events.size(); eventCount++) {
            while (model.appliedCount() < eventCount) {
                model.apply(events.get(model.appliedCount()));
            }
            for (int choice = 0; choice < CHOICES_PER_POINT; choice++) {
                final DiskModel.CrashImage crash =
                        model.crash(random, Files.createDirectory(tryDirectory.resolve("crash-" + image++)));
                final String where = "the power failed after event " + eventCount + " of " + events.size()
                        + " (the truncation began after event " + firstEvent + ")"
                        + CrashStateChecker.lastEvents(events, eventCount) + "\n  choices: " + crash.choices();
                final int kept = checkOpens(crash.directory(), lsns, where, random.nextLong());
                if (kept == RECORDS) {
                    oldLogs++;
                } else {
                    newLogs++;
                }
                CrashTally.SIMULATED.incrementAndGet();
                TestFiles.deleteRecursively(crash.directory());
            }
        }
        assertTrue(oldLogs > 0 && newLogs > 0, "old logs " + oldLogs + ", new logs " + newLogs);
        System.out.println("power-loss suffix truncation: " + (oldLogs + newLogs) + " crash states checked over "
                + (events.size() - firstEvent) + " events: " + oldLogs + " held the old log, " + newLogs
                + " the truncated one");
    }

    /** Opens a crash state and checks it: returns how many records it holds. */
    private static int checkOpens(final Path directory, final long[] lsns, final String where, final long seed)
            throws Exception {
        final SimulatedDisk disk = new SimulatedDisk(directory);
        try (Wal wal = Wal.open(config(directory, disk, seed))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            final int count = records.size();
            if (count != RECORDS && count != KEPT) {
                throw violation(
                        where,
                        "the log holds " + count + " records: neither the old log (" + RECORDS
                                + ") nor the truncated one (" + KEPT + ")");
            }
            for (int i = 0; i < count; i++) {
                final TestRecords.Read read = records.get(i);
                if (read.lsn() != lsns[i] || !Arrays.equals(read.payload(), TestRecords.bytes(i, RECORD_BYTES))) {
                    throw violation(where, "record " + i + " differs: LSN " + read.lsn() + ", expected " + lsns[i]);
                }
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            if (next <= lsns[RECORDS - 1]) {
                throw violation(
                        where,
                        "the next record got position " + next + ", which the old log had used (last record at "
                                + lsns[RECORDS - 1] + ")");
            }
            return count;
        } catch (final RuntimeException ex) {
            throw violation(where, "opening failed under the default policy: " + ex, ex);
        }
    }

    private static AssertionError violation(final String where, final String what) {
        return violation(where, what, null);
    }

    private static AssertionError violation(final String where, final String what, final Throwable cause) {
        CrashTally.VIOLATIONS.incrementAndGet();
        return new AssertionError("SUFFIX TRUNCATION VIOLATION: " + what + "\n  " + where, cause);
    }
}
