package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.crash.CrashTally;
import io.walden.crash.PreparedSegment;
import io.walden.format.SegmentNames;
import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An open under {@link RecoveryPolicy#TRUNCATE} that discards damage in the middle of a log, stopped
 * before each of its directory changes in turn (a rename or a delete that fails without happening,
 * as a kill right there would leave the files): the next open must hold exactly the records before
 * the damage. This covers what the simulated power loss cannot see: the evidence kept of each
 * discarded segment is made outside the storage backend, and a segment moved out of the log before
 * its replacement was renamed in left a name missing, which the next open refuses as a lost segment.
 */
final class InterruptedRepairTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int RECORD_BYTES = 6000;
    private static final int RECORDS = 50;
    /** The damaged record: in the second segment, with three segments after it. */
    private static final int DAMAGED = 13;

    @TempDir
    Path root;

    private static WalConfig config(final Path directory, final StorageBackend backend) {
        return WalConfig.builder(directory)
                .backend(backend)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .recoveryPolicy(RecoveryPolicy.TRUNCATE)
                .build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aRepairStoppedBeforeAnyDirectoryChangeIsFinishedByTheNextOpen(final boolean nextPrepared) throws Exception {
        final Path template = Files.createDirectory(root.resolve("template"));
        final long[] lsns = new long[RECORDS];
        final long lastBase;
        try (Wal wal = Wal.open(config(template, new NioStorageBackend(StorageOptions.BUFFERED)))) {
            for (int i = 0; i < RECORDS; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, RECORD_BYTES), Durability.SYNCED);
            }
            lastBase = lsns[RECORDS - 1] - lsns[RECORDS - 1] % SEGMENT_BYTES;
            PreparedSegment.await(SegmentNames.segmentPath(template, lastBase + SEGMENT_BYTES));
        }
        if (!nextPrepared) {
            // A close that came before the next segment was ready leaves none.
            Files.delete(SegmentNames.segmentPath(template, lastBase + SEGMENT_BYTES));
        }
        final long damagedBase = lsns[DAMAGED] - lsns[DAMAGED] % SEGMENT_BYTES;
        assertTrue(lastBase - damagedBase >= 3L * SEGMENT_BYTES, "the repair should discard several segments");
        FileDamage.flipBit(
                SegmentNames.segmentPath(template, damagedBase), lsns[DAMAGED] - damagedBase + RECORD_BYTES / 2, 3);
        int stops = 0;
        for (int passed = 0; ; passed++) {
            final Path directory = root.resolve("stop-" + passed);
            copy(template, directory);
            final ControllableBackend backend = new ControllableBackend(new NioStorageBackend(StorageOptions.BUFFERED));
            backend.failDirectoryChangeAfter(passed, new IOException("the process stops here"));
            boolean stopped = false;
            try {
                Wal.open(config(directory, backend)).close();
                // The open went through: the failure was armed past its last change, or hit the log later.
                stopped = !backend.failureArmed();
            } catch (final WalException ex) {
                assertTrue(ex.getMessage().contains("the process stops here"), ex::toString);
                stopped = true;
            }
            final String where = "the repair was stopped before directory change " + (passed + 1) + " (next segment "
                    + (nextPrepared ? "" : "not ") + "prepared)";
            checkOpens(directory, lsns, where);
            CrashTally.KILLS_NIO.incrementAndGet();
            TestFiles.deleteRecursively(directory);
            if (!stopped) {
                break;
            }
            stops++;
        }
        assertTrue(stops >= 4, "the repair made only " + stops + " directory changes");
        System.out.println("interrupted repair (next segment " + (nextPrepared ? "" : "not ") + "prepared): stopped "
                + stops + " times, each reopened with the " + DAMAGED + " records before the damage");
    }

    /** Opens the log under TRUNCATE: exactly the records before the damage, and no position given twice. */
    private static void checkOpens(final Path directory, final long[] lsns, final String where) {
        try (Wal wal = Wal.open(config(directory, new NioStorageBackend(StorageOptions.BUFFERED)))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            assertEquals(
                    DAMAGED,
                    records.size(),
                    () -> where + ": " + wal.recoveryReport().summary());
            for (int i = 0; i < DAMAGED; i++) {
                assertEquals(lsns[i], records.get(i).lsn(), where);
                assertArrayEquals(
                        TestRecords.bytes(i, RECORD_BYTES), records.get(i).payload(), where);
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            assertTrue(next > lsns[RECORDS - 1], () -> where + ": the next record got position " + next);
        } catch (final RuntimeException ex) {
            CrashTally.VIOLATIONS.incrementAndGet();
            throw new AssertionError("INTERRUPTED REPAIR VIOLATION: " + where + ": " + ex, ex);
        }
    }

    private static void copy(final Path from, final Path to) throws IOException {
        Files.createDirectory(to);
        try (Stream<Path> files = Files.list(from)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, to.resolve(file.getFileName()));
                }
            }
        }
    }
}
