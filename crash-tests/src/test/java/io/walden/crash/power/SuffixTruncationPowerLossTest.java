package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.crash.PreparedSegment;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskEvent;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Power loss at every event of a {@code Wal.truncateAfter} that cuts a segment in the middle and
 * discards the segments after it: while the suffix-truncation record is written and renamed, while
 * later segments are replaced, while the cut segment is zeroed, and while the record is deleted; each
 * with many random survival choices (unsynced writes kept or lost, sectors torn, directory
 * operations forgotten). Every crash state must open under the default policy and hold either every
 * record of the log before the truncation or exactly the records it keeps, never anything between,
 * and a record appended after the open must go past every position the old log used.
 */
class SuffixTruncationPowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 40;
    /** Records kept: the cut falls in the second segment, and three segments after it are discarded. */
    private static final int KEPT = 13;

    private static final int CHOICES_PER_POINT = 6;

    private static WalConfig config(final Path directory, final SimulatedStorage storage) {
        return WalConfig.builder(directory)
                .backend(storage)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .build();
    }

    /** Appends the {@value #RECORDS} records every case starts from, each SYNCED; returns their LSNs. */
    private static long[] appendRecords(final Wal wal) {
        final long[] lsns = new long[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            lsns[i] = wal.append(TestRecords.bytes(i, RECORD_BYTES), Durability.SYNCED);
        }
        return lsns;
    }

    /**
     * With and without the next segment prepared when the log was closed. Without it, the newest
     * segment is the one the log ended in, and the one before it records that the log went on into
     * it: the truncation replaces that newest segment first, and a crash part way must never leave
     * it missing (the next open would refuse the log as one whose end was lost). A kill found that
     * window: the segment was deleted before its replacement was renamed into place.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void truncationLeavesTheOldLogOrTheNewOneAfterPowerLossAtEveryStep(final boolean nextPrepared) throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final Path directory = Files.createDirectory(tryDirectory.resolve("log"));
        final long[] lsns;
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(1).build()))) {
            lsns = appendRecords(wal);
            PreparedSegment.await(nextSegment(directory, lsns[lsns.length - 1], SEGMENT_BYTES));
        }
        final Path prepared = nextSegment(directory, lsns[lsns.length - 1], SEGMENT_BYTES);
        if (!nextPrepared) {
            // A close that came before the next segment was ready leaves none.
            assertTrue(Files.deleteIfExists(prepared), "the closed log should hold its prepared next segment");
        }
        assertEquals(nextPrepared, Files.exists(prepared));
        // The history starts from the closed log's files as they are now.
        final SimulatedStorage disk =
                SimulatedStorage.builder(directory).seed(1).build();
        final int firstEvent = disk.eventCount();
        Wal.truncateAfter(config(directory, disk), lsns[KEPT - 1]);
        final int[] outcomes = crashAtEveryEvent(
                disk,
                tryDirectory,
                firstEvent,
                11,
                (eventCount, crashDirectory, where, seed) -> checkOpens(
                                crashDirectory,
                                lsns,
                                where + " (the truncation began after event " + firstEvent + ")",
                                seed)
                        == RECORDS);
        System.out.println("power-loss suffix truncation (next segment "
                + (nextPrepared ? "prepared" : "not prepared") + "): " + (outcomes[0] + outcomes[1])
                + " crash states checked over "
                + (disk.eventCount() - firstEvent) + " events: " + outcomes[0] + " held the old log, " + outcomes[1]
                + " the truncated one");
    }

    /** Checks one crash state: returns whether it holds the old log. */
    @FunctionalInterface
    private interface CrashCheck {
        boolean isOldLog(int eventCount, Path directory, String where, long seed) throws Exception;
    }

    /**
     * Crashes after every event from {@code firstEvent} on, {@value #CHOICES_PER_POINT} times each, and
     * checks each state; both outcomes must occur.
     *
     * @return how many states held the old log, and how many the truncated one.
     */
    private static int[] crashAtEveryEvent(
            final SimulatedStorage disk,
            final Path tryDirectory,
            final int firstEvent,
            final long seed,
            final CrashCheck check)
            throws Exception {
        final DiskHistory history = disk.history();
        final List<DiskEvent> events = history.events();
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] outcomes = new int[2];
        int image = 0;
        for (int eventCount = firstEvent; eventCount <= events.size(); eventCount++) {
            for (int choice = 0; choice < CHOICES_PER_POINT; choice++) {
                final CrashState crash = history.crash(
                        eventCount, random, Files.createDirectory(tryDirectory.resolve("crash-" + image++)));
                final String where = "the power failed after event " + eventCount + " of " + events.size()
                        + history.lastEvents(eventCount) + "\n  choices: " + crash.report();
                outcomes[check.isOldLog(eventCount, crash.directory(), where, random.nextLong()) ? 0 : 1]++;
                CrashTally.SIMULATED.incrementAndGet();
                TestFiles.deleteRecursively(crash.directory());
            }
        }
        assertTrue(outcomes[0] > 0 && outcomes[1] > 0, "old logs " + outcomes[0] + ", new logs " + outcomes[1]);
        return outcomes;
    }

    /** Records appended to the open log after its truncation, each SYNCED. */
    private static final int APPENDED_AFTER = 6;

    /**
     * The same for {@code truncateAfter} on the open log, followed by {@value #APPENDED_AFTER} SYNCED
     * appends: at every event from the call on (the drain, the stop of the I/O thread, the truncation,
     * the recovery and the appends after it), a crash leaves the old log or exactly the kept records
     * followed by the appends acknowledged by then (and perhaps later ones), never anything else.
     */
    @Test
    void onlineTruncationLeavesTheOldLogOrTheNewOneWithEveryAcknowledgedAppend() throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final Path directory = Files.createDirectory(tryDirectory.resolve("log"));
        final SimulatedStorage disk =
                SimulatedStorage.builder(directory).seed(3).build();
        final long[] lsns;
        final long[] appended = new long[APPENDED_AFTER];
        // The event count at which each append after the truncation was acknowledged.
        final int[] acknowledgedAt = new int[APPENDED_AFTER];
        final int firstEvent;
        try (Wal wal = Wal.open(config(directory, disk))) {
            lsns = appendRecords(wal);
            firstEvent = disk.eventCount();
            wal.truncateAfter(lsns[KEPT - 1]);
            for (int i = 0; i < APPENDED_AFTER; i++) {
                appended[i] = wal.append(TestRecords.bytes(1000 + i, RECORD_BYTES), Durability.SYNCED);
                acknowledgedAt[i] = disk.eventCount();
            }
        }
        final int[] outcomes =
                crashAtEveryEvent(disk, tryDirectory, firstEvent, 13, (eventCount, crashDirectory, where, seed) -> {
                    int acknowledged = 0;
                    while (acknowledged < APPENDED_AFTER && acknowledgedAt[acknowledged] <= eventCount) {
                        acknowledged++;
                    }
                    return checkOpensOnline(
                            crashDirectory,
                            lsns,
                            appended,
                            acknowledged,
                            where + " (the truncation of the open log began after event " + firstEvent + ", "
                                    + acknowledged + " appends after it were acknowledged)",
                            seed);
                });
        System.out.println("power-loss suffix truncation of the open log: " + (outcomes[0] + outcomes[1])
                + " crash states checked over " + (disk.eventCount() - firstEvent) + " events: " + outcomes[0]
                + " held the old log, " + outcomes[1] + " the truncated one");
    }

    /** Opens a crash state of the online truncation and checks it: returns whether it is the old log. */
    private static boolean checkOpensOnline(
            final Path directory,
            final long[] lsns,
            final long[] appended,
            final int acknowledged,
            final String where,
            final long seed)
            throws Exception {
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(seed).build()))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            final int count = records.size();
            final boolean old = count == RECORDS && records.get(count - 1).lsn() == lsns[RECORDS - 1];
            if (old && acknowledged > 0) {
                throw violation(
                        where,
                        "the log is the old one, but " + acknowledged + " appends after the"
                                + " truncation were acknowledged");
            }
            final int later = old ? 0 : count - KEPT;
            if (!old && (later < acknowledged || later > APPENDED_AFTER)) {
                throw violation(
                        where,
                        "the log holds " + count + " records: neither the old log (" + RECORDS + ") nor the "
                                + KEPT + " kept ones followed by at least the " + acknowledged
                                + " acknowledged appends");
            }
            for (int i = 0; i < count; i++) {
                final TestRecords.Read read = records.get(i);
                final boolean after = i >= (old ? RECORDS : KEPT);
                final int index = after ? i - KEPT : i;
                final long lsn = after ? appended[index] : lsns[index];
                final byte[] payload =
                        after ? TestRecords.bytes(1000 + index, RECORD_BYTES) : TestRecords.bytes(index, RECORD_BYTES);
                if (read.lsn() != lsn || !Arrays.equals(read.payload(), payload)) {
                    throw violation(where, "record " + i + " differs: LSN " + read.lsn() + ", expected " + lsn);
                }
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            final long used = Math.max(lsns[RECORDS - 1], later > 0 ? appended[later - 1] : 0);
            if (next <= used) {
                throw violation(where, "the next record got position " + next + ", which the log had used");
            }
            return old;
        } catch (final RuntimeException ex) {
            throw violation(where, "opening failed under the default policy: " + ex, ex);
        }
    }

    /** Opens a crash state and checks it: returns how many records it holds. */
    private static int checkOpens(final Path directory, final long[] lsns, final String where, final long seed)
            throws Exception {
        try (Wal wal = Wal.open(
                config(directory, SimulatedStorage.builder(directory).seed(seed).build()))) {
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
        return violation("SUFFIX TRUNCATION", where, what, cause);
    }
}
