package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.assertWellFormed;
import static io.walden.ContractChecks.awaitCompletion;
import static io.walden.ContractChecks.frameSpace;
import static io.walden.ContractChecks.segmentBases;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.FileReads;
import io.walden.spi.StorageSession;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Segments: rolls, preparation, reopening, allocation.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SegmentContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected SegmentContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldWriteEveryByteOfANewSegmentOnceBelowADurableWriteLimit() throws IOException {
        final ControllableBackend backend = fixture.controllable();
        final Path directory = fixture.logDirectory();
        final List<Read> expected = new ArrayList<>();
        try (Wal wal = fixture.open(fixture.config(directory).backend(backend).build())) {
            for (int i = 0; wal.writtenPosition() < 2L * SEGMENT_BYTES + SEGMENT_BYTES / 2; i++) {
                final byte[] payload = bytes(i, 1000);
                expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
            }
            wal.sync();
            assertEquals(2, wal.stats().segmentsRolled());
            // Each preparation wrote its header and at most its last block (where the backend cannot
            // allocate): nothing zero-filled. Four preparations: the first segment (by the open),
            // the two rolled into, and the one after them, prepared from a quarter of the active.
            assertTrue(
                    backend.preparationBytesSubmitted() <= 4L * 2 * SegmentHeaderDescriptor.HEADER_LENGTH,
                    backend.preparationBytesSubmitted() + " bytes written preparing segments");
            assertEquals(expected, replayAll(wal));
        }
        for (final long base : new long[] {SEGMENT_BYTES, 2L * SEGMENT_BYTES}) {
            final Path segment = SegmentNames.segmentPath(directory, base);
            assertEquals(SEGMENT_BYTES, Files.size(segment));
            final ByteBuffer header = FileReads.readHeader(segment);
            assertTrue(SegmentHeaderDecoder.writeLimitOffset(header) > 0, "no write limit in " + segment);
            assertFalse(SegmentHeaderDecoder.recycled(header), segment + " is new, not recycled");
        }
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertEquals(expected.size(), wal.recoveryReport().records());
            assertEquals(0, wal.recoveryReport().tornTailBytesCut());
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldKeepEveryRecordWhenLongBatchesEndAtBlockBoundaries() throws IOException {
        // With the smallest batch limit nearly every batch is long: with direct I/O each ends at the
        // last block boundary it reaches, and the next rewrites that block's frames in place.
        final Path directory = fixture.logDirectory();
        final List<Read> expected = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(23);
        try (Wal wal = fixture.open(fixture.config(directory)
                .maxBatchBytes(WalConfig.MAX_BATCH_BYTES_MIN)
                .build())) {
            for (int i = 0; i < 4000; i++) {
                final byte[] payload = bytes(i, random.nextInt(0, 700));
                final Durability level = i % 97 == 0 ? Durability.SYNCED : Durability.BUFFERED;
                expected.add(new Read(wal.append(payload, level), payload));
            }
            wal.sync();
            assertWellFormed(expected);
            assertEquals(expected, replayAll(wal));
        }
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertEquals(0, wal.recoveryReport().tornTailBytesCut());
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldRollSegmentsAndReadEverythingBackInOrderAfterReopen() throws IOException {
        final Path directory = fixture.logDirectory();
        final List<Read> expected = new ArrayList<>();
        final long rolled;
        final long logId;
        final long tailAtClose;
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            final RecoveryReport created = wal.recoveryReport();
            assertTrue(created.newLog());
            assertEquals(0, created.records());
            assertEquals(1, created.segments());
            assertEquals(SEGMENT_BYTES, created.segmentCapacityBytes());
            logId = created.logId();
            final SplittableRandom random = new SplittableRandom(11);
            long bytes = 0;
            for (int i = 0; bytes < 5L * SEGMENT_BYTES + SEGMENT_BYTES / 3; i++) {
                final byte[] payload = bytes(i, random.nextInt(1, 4000));
                expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
                bytes += frameSpace(payload.length);
            }
            wal.sync();
            rolled = wal.stats().segmentsRolled();
            assertTrue(rolled >= 5, "rolled " + rolled + " segments");
            final List<Long> bases = segmentBases(directory);
            for (long k = 0; k <= rolled; k++) {
                assertTrue(bases.contains(k * SEGMENT_BYTES), "segment " + k + " missing: " + bases);
            }
            assertWellFormed(expected);
            assertEquals(expected, replayAll(wal));
            tailAtClose = wal.tailPosition();
            assertTrue(tailAtClose % SEGMENT_BYTES != 0, "test data should not end at a segment boundary");
        }
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.newLog());
            assertEquals(logId, report.logId());
            assertEquals(expected.size(), report.records());
            assertEquals(rolled + 1, report.segments());
            assertEquals(0, report.startPosition());
            assertEquals(tailAtClose, report.endPosition());
            assertNull(report.tornTailFile());
            assertEquals(0, report.tornTailBytesCut());
            assertEquals(0, report.droppedBytes());
            assertEquals(0, report.skippedBytes());
            assertNotNull(report.summary());
            assertEquals(expected, replayAll(wal));

            final byte[] more = bytes(999, 100);
            final long lsn = wal.append(more, Durability.SYNCED);
            assertTrue(lsn >= tailAtClose);
            expected.add(new Read(lsn, more));
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldReopenAnEmptyLogAndKeepAppending() {
        final Path directory = fixture.logDirectory();
        fixture.open(fixture.config(directory).build()).close();
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertFalse(wal.recoveryReport().newLog());
            assertEquals(0, wal.recoveryReport().records());
            assertEquals(List.of(), replayAll(wal));
            final long lsn = wal.append(bytes(1, 10), Durability.SYNCED);
            assertEquals(List.of(new Read(lsn, bytes(1, 10))), replayAll(wal));
        }
    }

    @Test
    void shouldReopenAfterCloseRepeatedlyKeepingEveryRecordInOrder() {
        final Path directory = fixture.logDirectory();
        final List<Read> expected = new ArrayList<>();
        for (int cycle = 0; cycle < 5; cycle++) {
            try (Wal wal = fixture.open(fixture.config(directory).build())) {
                assertEquals(expected.size(), wal.recoveryReport().records());
                assertEquals(expected, replayAll(wal));
                for (int i = 0; i < 20; i++) {
                    final byte[] payload = bytes(cycle * 100 + i, 200 + i);
                    expected.add(new Read(wal.append(payload, LEVELS[(cycle + i) % LEVELS.length]), payload));
                }
            }
        }
        assertWellFormed(expected);
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldReadEveryRecordAfterReopeningWithASmallerMaxRecordBytes() {
        // Records larger than any reader buffer the smaller setting would size (256 KiB at least).
        final int largeRecordBytes = 600 * 1024;
        final List<Read> written = new ArrayList<>();
        try (Wal wal = Wal.open(fixture.config(fixture.logDirectory())
                .segmentCapacityBytes(4 * 1024 * 1024)
                .bufferCapacityBytes(2 * 1024 * 1024)
                .maxRecordBytes(largeRecordBytes)
                .build())) {
            for (int i = 0; i < 4; i++) {
                final byte[] payload = bytes(i, i % 2 == 0 ? largeRecordBytes : 100);
                written.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
        }
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).maxRecordBytes(1024).build());
        assertEquals(written, replayAll(wal), "records larger than the new maxRecordBytes are still read");
        final WalException refused =
                assertThrows(WalException.class, () -> wal.append(new byte[2048], Durability.WRITTEN));
        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
    }

    @Test
    void shouldAllocateSpaceOrDeclineWithoutChangingContent() throws IOException {
        final Path probe = Files.createDirectories(fixture.tempDir().resolve("allocate"));
        final Path file = probe.resolve("allocated");
        final int allocateBytes = 1 << 20;
        final long[] completion = {-1, Long.MIN_VALUE};
        final IOException[] failure = new IOException[1];
        try (StorageSession session = fixture.newBackend().open(probe, () -> {})) {
            final int blockBytes = Math.max(4096, session.capabilities().blockSizeBytes());
            final ByteBuffer block = BufferUtil.allocateDirectAligned(blockBytes, blockBytes);
            final int sourceOffset = 0;
            for (int i = 0; i < blockBytes; i++) {
                block.put(sourceOffset + i, (byte) (i * 31 + 7));
            }
            final int handle = session.openFile(file, true);
            session.submitWrite(handle, 0, block, sourceOffset, blockBytes, 1);
            awaitCompletion(session, completion, failure);
            assertNull(failure[0]);
            session.submitAllocate(handle, 0, allocateBytes, 2);
            awaitCompletion(session, completion, failure);
            assertNull(failure[0], "allocation failed");
            assertEquals(2, completion[0]);
            assertTrue(
                    completion[1] == 0 || completion[1] == allocateBytes,
                    "allocation result must be 0 (declined) or the length, was " + completion[1]);
            session.closeFile(handle);

            final byte[] content = Files.readAllBytes(file);
            // Declined, the file may still have been given the range's length, as a hole.
            assertTrue(
                    content.length == allocateBytes || (completion[1] == 0 && content.length == blockBytes),
                    "length " + content.length + " after an allocation result of " + completion[1]);
            for (int i = 0; i < content.length; i++) {
                final byte expected = i < blockBytes ? (byte) (i * 31 + 7) : 0;
                if (content[i] != expected) {
                    fail("byte " + i + " is " + content[i] + " after allocation, expected " + expected);
                }
            }
        }
    }
}
