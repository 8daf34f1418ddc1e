package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
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
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power loss at every event of an open under {@link RecoveryPolicy#SKIP} that makes a skip durable: a
 * record in the middle of a segment is damaged, and the open keeps its bytes as evidence, zeroes them
 * and covers them with a discard frame and a padding frame. Every crash state must open again under
 * {@code SKIP} with every record but the damaged one (the damage still there, or the repair half done,
 * is skipped again), and once that open is over, under the default {@code FAIL} with the same records:
 * a crash during the repair loses nothing more than the skip did.
 */
class SkipRepairPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 30;
    /** The damaged record: in the middle of the second segment, valid frames after it there. */
    private static final int DAMAGED = 13;

    private static final int CHOICES_PER_POINT = 8;

    private static WalConfig config(final Path directory, final SimulatedStorage storage, final RecoveryPolicy policy) {
        return WalConfig.builder(directory)
                .backend(storage)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .recoveryPolicy(policy)
                .build();
    }

    /**
     * {@code SYNCED} appends: the frames after the damage prove it synced. {@code WRITTEN} appends: only
     * the clean close does, which the open withdraws, so the skip must be permanent before that.
     */
    @ParameterizedTest
    @EnumSource(
            value = Durability.class,
            names = {"SYNCED", "WRITTEN"})
    void aSkipMadeDurableLosesNothingMoreAfterPowerLossAtEveryStep(final Durability durability) throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final Path directory = Files.createDirectory(tryDirectory.resolve("log"));
        final long[] lsns = new long[RECORDS];
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(5).build(), RecoveryPolicy.FAIL))) {
            for (int i = 0; i < RECORDS; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, RECORD_BYTES), durability);
            }
        }
        final long damagedBase = lsns[DAMAGED] - lsns[DAMAGED] % SEGMENT_BYTES;
        assertEquals(damagedBase, lsns[DAMAGED + 1] - lsns[DAMAGED + 1] % SEGMENT_BYTES, "a record follows the damage");
        FileDamage.flipBit(
                SegmentNames.segmentPath(directory, damagedBase), lsns[DAMAGED] - damagedBase + RECORD_BYTES / 2, 3);
        // The history starts from the damaged log's files as they are now.
        final SimulatedStorage disk =
                SimulatedStorage.builder(directory).seed(5).build();
        try (Wal wal = Wal.open(config(directory, disk, RecoveryPolicy.SKIP))) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(RECORDS - 1, report.records(), report::summary);
            assertEquals(1, report.evidence().size(), report::summary);
            assertTrue(report.findings().stream().anyMatch(f -> f.contains("covered by")), report::summary);
        }
        final DiskHistory history = disk.history();
        final SplittableRandom random = new SplittableRandom(23);
        int image = 0;
        for (int eventCount = 0; eventCount <= history.size(); eventCount++) {
            for (int choice = 0; choice < CHOICES_PER_POINT; choice++) {
                final CrashState crash = history.crash(
                        eventCount, random, Files.createDirectory(tryDirectory.resolve("crash-" + image++)));
                final String where = "the power failed after event " + eventCount + " of " + history.size()
                        + " of the open under SKIP (" + durability + " appends)" + history.lastEvents(eventCount)
                        + "\n  choices: "
                        + crash.report();
                checkOpens(crash.directory(), lsns, RecoveryPolicy.SKIP, where, random.nextLong());
                checkOpens(crash.directory(), lsns, RecoveryPolicy.FAIL, where + "\n  (then reopened under FAIL)", 0);
                CrashTally.SIMULATED.incrementAndGet();
                TestFiles.deleteRecursively(crash.directory());
            }
        }
        System.out.println("power-loss skip repair (" + durability + " appends): " + image
                + " crash states checked over " + history.size() + " events");
    }

    /** Opens a crash state and checks that it holds exactly every record but the damaged one. */
    private static void checkOpens(
            final Path directory, final long[] lsns, final RecoveryPolicy policy, final String where, final long seed)
            throws Exception {
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(seed).build(), policy))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            if (records.size() != RECORDS - 1) {
                throw violation(
                        where,
                        "under " + policy + " the log holds " + records.size() + " records, not the " + (RECORDS - 1)
                                + " but the damaged one");
            }
            for (int i = 0; i < RECORDS - 1; i++) {
                final int index = i < DAMAGED ? i : i + 1;
                final TestRecords.Read read = records.get(i);
                if (read.lsn() != lsns[index]
                        || !Arrays.equals(read.payload(), TestRecords.bytes(index, RECORD_BYTES))) {
                    throw violation(
                            where,
                            "under " + policy + " record " + index + " differs: LSN " + read.lsn() + ", expected "
                                    + lsns[index]);
                }
            }
            if (policy == RecoveryPolicy.FAIL) {
                final long next = wal.append(new byte[16], Durability.SYNCED);
                if (next <= lsns[RECORDS - 1]) {
                    throw violation(
                            where,
                            "the next record got position " + next + ", which the log had used (last record at "
                                    + lsns[RECORDS - 1] + ")");
                }
            }
        } catch (final RuntimeException ex) {
            throw violation(where, "opening failed under " + policy + ": " + ex, ex);
        }
    }

    private static AssertionError violation(final String where, final String what) {
        return violation(where, what, null);
    }

    private static AssertionError violation(final String where, final String what, final Throwable cause) {
        return violation("SKIP REPAIR POWER LOSS", where, what, cause);
    }
}
