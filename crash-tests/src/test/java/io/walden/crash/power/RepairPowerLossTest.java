package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.crash.PreparedSegment;
import io.walden.crash.corruption.FileDamage;
import io.walden.format.SegmentNames;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Power loss at every event of an open under {@link RecoveryPolicy#TRUNCATE} that discards damage in
 * the middle of a log: the damaged segment is cut, and every later segment is kept as evidence and
 * replaced, newest first, by one that holds a discard frame. Each segment before the newest records
 * that the log went on into the next, so a crash between two steps of a replacement that left a
 * segment name missing would make the next open refuse the log as one whose end was lost. Every
 * crash state must open again under {@code TRUNCATE} with exactly the records before the damage, and
 * the next record must go past every position the log used. Run with and without the next segment
 * prepared when the log was closed (without it, the newest segment is the one the log ended in).
 */
class RepairPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 50;
    /** The damaged record: in the second segment, with three segments after it. */
    private static final int DAMAGED = 13;

    private static final int CHOICES_PER_POINT = 6;

    private static WalConfig config(final Path directory, final SimulatedStorage storage) {
        return WalConfig.builder(directory)
                .backend(storage)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .recoveryPolicy(RecoveryPolicy.TRUNCATE)
                .build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void repairLeavesTheRecordsBeforeTheDamageAfterPowerLossAtEveryStep(final boolean nextPrepared) throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final Path directory = Files.createDirectory(tryDirectory.resolve("log"));
        final long[] lsns = new long[RECORDS];
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(5).build()))) {
            for (int i = 0; i < RECORDS; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, RECORD_BYTES), Durability.SYNCED);
            }
            PreparedSegment.await(nextSegment(directory, lsns[lsns.length - 1], SEGMENT_BYTES));
        }
        final long endBase = lsns[RECORDS - 1] - lsns[RECORDS - 1] % SEGMENT_BYTES;
        final long damagedBase = lsns[DAMAGED] - lsns[DAMAGED] % SEGMENT_BYTES;
        assertTrue(endBase - damagedBase >= 3L * SEGMENT_BYTES, "the repair should discard several segments");
        final Path prepared = nextSegment(directory, lsns[lsns.length - 1], SEGMENT_BYTES);
        if (!nextPrepared) {
            // A close that came before the next segment was ready leaves none.
            assertTrue(Files.deleteIfExists(prepared), "the closed log should hold its prepared next segment");
        }
        assertEquals(nextPrepared, Files.exists(prepared));
        FileDamage.flipBit(
                SegmentNames.segmentPath(directory, damagedBase), lsns[DAMAGED] - damagedBase + RECORD_BYTES / 2, 3);
        // The history starts from the damaged log's files as they are now.
        final SimulatedStorage disk =
                SimulatedStorage.builder(directory).seed(5).build();
        try (Wal wal = Wal.open(config(directory, disk))) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(DAMAGED, report.records(), report::summary);
            assertTrue(report.evidence().size() >= 3, report::summary);
        }
        final DiskHistory history = disk.history();
        final SplittableRandom random = new SplittableRandom(17);
        int image = 0;
        for (int eventCount = 0; eventCount <= history.size(); eventCount++) {
            for (int choice = 0; choice < CHOICES_PER_POINT; choice++) {
                final CrashState crash = history.crash(
                        eventCount, random, Files.createDirectory(tryDirectory.resolve("crash-" + image++)));
                final String where = "the power failed after event " + eventCount + " of " + history.size()
                        + " of the repair (next segment " + (nextPrepared ? "" : "not ") + "prepared)"
                        + history.lastEvents(eventCount) + "\n  choices: " + crash.report();
                checkOpens(crash.directory(), lsns, where, random.nextLong());
                CrashTally.SIMULATED.incrementAndGet();
                TestFiles.deleteRecursively(crash.directory());
            }
        }
        System.out.println("power-loss repair (next segment " + (nextPrepared ? "" : "not ") + "prepared): " + image
                + " crash states checked over " + history.size() + " events");
    }

    /** Opens a crash state under TRUNCATE and checks that it holds exactly the records before the damage. */
    private static void checkOpens(final Path directory, final long[] lsns, final String where, final long seed)
            throws Exception {
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(seed).build()))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            if (records.size() != DAMAGED) {
                throw violation(
                        where,
                        "the log holds " + records.size() + " records, not the " + DAMAGED + " before the damage");
            }
            for (int i = 0; i < DAMAGED; i++) {
                final TestRecords.Read read = records.get(i);
                if (read.lsn() != lsns[i] || !Arrays.equals(read.payload(), TestRecords.bytes(i, RECORD_BYTES))) {
                    throw violation(where, "record " + i + " differs: LSN " + read.lsn() + ", expected " + lsns[i]);
                }
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            if (next <= lsns[RECORDS - 1]) {
                throw violation(
                        where,
                        "the next record got position " + next + ", which the log had used (last record at "
                                + lsns[RECORDS - 1] + ")");
            }
        } catch (final RuntimeException ex) {
            throw violation(where, "opening failed under TRUNCATE: " + ex, ex);
        }
    }

    private static AssertionError violation(final String where, final String what) {
        return violation(where, what, null);
    }

    private static AssertionError violation(final String where, final String what, final Throwable cause) {
        return violation("REPAIR POWER LOSS", where, what, cause);
    }
}
