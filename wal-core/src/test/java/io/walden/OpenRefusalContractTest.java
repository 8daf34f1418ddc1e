package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of an open that is refused because of its configuration: the log's files are left
 * exactly as they were, byte for byte, so that the next open with a fitting configuration finds the
 * log as the last session left it (a cleanly closed log is still cleanly closed).
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class OpenRefusalContractTest {
    private static final int SMALL_SEGMENT_BYTES = 1024 * 1024;

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected OpenRefusalContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void anExistingLogWithSmallSegmentsOpensWithTheDefaultsItsSegmentsAllow() throws IOException {
        final Path directory = fixture.tempDir().resolve("small");
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .backend(fixture.newBackend())
                .segmentCapacityBytes(SMALL_SEGMENT_BYTES)
                .build())) {
            wal.append("kept".getBytes(), Durability.SYNCED);
        }
        // Nothing set but the backend: the log's segments decide the buffer and the largest record.
        try (Wal wal = Wal.open(
                WalConfig.builder(directory).backend(fixture.newBackend()).build())) {
            assertEquals(SMALL_SEGMENT_BYTES, wal.config().segmentCapacityBytes());
            assertEquals(
                    (Math.min(SMALL_SEGMENT_BYTES, WalConfig.BUFFER_CAPACITY_BYTES_DEFAULT) - 4096) / 2 - 16,
                    wal.config().maxRecordBytes());
            assertEquals(1, wal.recoveryReport().records(), wal.recoveryReport()::summary);
        }
    }

    @Test
    void anOpenRefusedBecauseAnotherHoldsTheLogChangesNothing() throws IOException {
        final Path directory = fixture.tempDir().resolve("held");
        try (Wal holder = Wal.open(fixture.config(directory).syncIntervalNs(0).build())) {
            holder.append("kept".getBytes(), Durability.SYNCED);
            // Quiet: the idle log's durability mark written, nothing appended, and with one small record no
            // next segment to prepare: the holder changes no file now.
            final long deadlineNs = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            while (holder.stats().durabilityMarks() == 0) {
                assertTrue(System.nanoTime() < deadlineNs, "no durability mark was written");
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
            }
            final Map<String, String> before = TestFiles.contents(directory);

            final WalException refused = assertThrows(
                    WalException.class,
                    () -> Wal.open(fixture.config(directory).build()).close());

            assertEquals(WalException.ErrorCode.LOCKED, refused.errorCode(), refused.getMessage());
            assertEquals(before, TestFiles.contents(directory), "the refused open changed the log's files");
        }
    }

    @Test
    void anOpenRefusedForItsConfigurationChangesNothing() throws IOException {
        final Path directory = fixture.tempDir().resolve("log");
        final long lastLsn;
        try (Wal wal = Wal.open(fixture.config(directory)
                .segmentCapacityBytes(SMALL_SEGMENT_BYTES)
                .syncIntervalNs(0)
                .build())) {
            long lsn = -1;
            for (int i = 0; i < 20; i++) {
                lsn = wal.append(("record " + i).getBytes(), Durability.SYNCED);
            }
            lastLsn = lsn;
        }
        final Map<String, String> before = TestFiles.contents(directory);

        // A record larger than half of the log's 1 MiB buffer cannot fit; the default segment size
        // in the configuration applies to new logs only.
        final WalException refused = assertThrows(WalException.class, () -> Wal.open(fixture.config(directory)
                        .segmentCapacityBytes(64 * SMALL_SEGMENT_BYTES)
                        .bufferCapacityBytes(8 * SMALL_SEGMENT_BYTES)
                        .maxRecordBytes(SMALL_SEGMENT_BYTES)
                        .build())
                .close());
        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode(), refused.getMessage());
        assertTrue(refused.getMessage().contains("maxRecordBytes=" + SMALL_SEGMENT_BYTES), refused.getMessage());
        assertTrue(refused.getMessage().contains("nothing was changed"), refused.getMessage());
        assertEquals(before, TestFiles.contents(directory), "the refused open changed the log's files");

        try (Wal wal = Wal.open(fixture.config(directory)
                .segmentCapacityBytes(SMALL_SEGMENT_BYTES)
                .syncIntervalNs(0)
                .build())) {
            assertTrue(
                    wal.recoveryReport().closedCleanly(),
                    "the log closed cleanly before the refused open: " + wal.recoveryReport());
            assertTrue(wal.tailPosition() > lastLsn, "records were lost: " + wal.recoveryReport());
        }
    }

    @Test
    void anOpenRefusedForCorruptionChangesNothingNotEvenALeftoverPreparation() throws IOException {
        final Path directory = fixture.tempDir().resolve("corrupt");
        try (Wal wal = Wal.open(fixture.config(directory)
                .segmentCapacityBytes(SMALL_SEGMENT_BYTES)
                .syncIntervalNs(0)
                .build())) {
            for (int i = 0; i < 20; i++) {
                wal.append(("record " + i).getBytes(), Durability.SYNCED);
            }
        }
        // A synced record's payload damaged, and an unfinished preparation left by a killed session.
        final Path segment = io.walden.format.SegmentNames.segmentPath(directory, 0);
        final byte[] bytes = java.nio.file.Files.readAllBytes(segment);
        final int payload =
                io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH + io.walden.format.FrameDescriptor.HEADER_LENGTH;
        bytes[payload] ^= 0x40;
        java.nio.file.Files.write(segment, bytes);
        java.nio.file.Files.write(
                directory.resolve(io.walden.format.SegmentNames.temporaryName(2L * SMALL_SEGMENT_BYTES)),
                new byte[] {1, 2, 3});
        final Map<String, String> before = TestFiles.contents(directory);

        final WalException refused = assertThrows(WalException.class, () -> Wal.open(fixture.config(directory)
                        .segmentCapacityBytes(SMALL_SEGMENT_BYTES)
                        .recoveryPolicy(RecoveryPolicy.FAIL)
                        .build())
                .close());

        assertEquals(WalException.ErrorCode.CORRUPTION, refused.errorCode(), refused.getMessage());
        assertEquals(before, TestFiles.contents(directory), "the refused open changed the log's files");
    }
}
