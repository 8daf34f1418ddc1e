package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.assertWellFormed;
import static io.walden.ContractChecks.awaitCondition;
import static io.walden.ContractChecks.fillBuffer;
import static io.walden.ContractChecks.frameSpace;
import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.MAX_RECORD_BYTES;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.pollAll;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.testing.ControllableBackend;
import io.walden.testing.LogImages;
import io.walden.testing.TestRecords.Read;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Appending from every kind of source, record limits, back pressure.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AppendContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected AppendContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldAppendByteArraysWithStrictlyIncreasingLsnsAndReadThemBackIntact() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final SplittableRandom random = new SplittableRandom(42);
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            final byte[] payload = bytes(i, random.nextInt(0, 3000));
            final Durability level = LEVELS[i % LEVELS.length];
            final long lsn;
            if (i % 2 == 0) {
                lsn = wal.append(payload, level);
            } else {
                final byte[] padded = new byte[payload.length + 20];
                Arrays.fill(padded, (byte) 0x7F);
                System.arraycopy(payload, 0, padded, 7, payload.length);
                lsn = wal.append(padded, 7, payload.length, level);
            }
            expected.add(new Read(lsn, payload));
        }
        assertWellFormed(expected);
        wal.sync();

        assertEquals(expected, replayAll(wal));
        try (WalReader reader = wal.reader(expected.get(0).lsn())) {
            assertEquals(expected, pollAll(reader, 7));
            assertEquals(0, reader.poll((buffer, offset, length, lsn) -> fail("caught up"), 10));
        }
        assertEquals(
                expected.subList(150, 300), replayAll(wal, expected.get(150).lsn(), Durability.SYNCED));
    }

    @Test
    void shouldNotRollWhileASyncOfTheFullSegmentIsInFlight() throws Exception {
        // The full segment is synced (the roll fence), but the roll waits for the next segment. The
        // log goes idle, writes a durability mark into the full segment's header and syncs it. A
        // roll taken while that sync is in flight would see it complete afterwards and move the
        // durable position back to the old segment's end: the next frames would record a durable
        // offset of 0, and the log, closed cleanly, would refuse to open. (Found by the power-loss
        // property test.)
        final Path directory = fixture.logWithoutItsNextSegment();
        final ControllableBackend backend = fixture.controllable();
        backend.holdPreparationWrites();
        final byte[] payload = bytes(1, 1000);
        final List<Read> expected = new ArrayList<>();
        // The periodic sync is what makes a durability mark durable.
        final long syncIntervalNs = TimeUnit.MILLISECONDS.toNanos(1);
        try (Wal wal = fixture.open(fixture.config(directory)
                .backend(backend)
                .syncIntervalNs(syncIntervalNs)
                .build())) {
            try {
                // With O_DSYNC a write is its own sync and a mark needs none: there the test checks
                // only that the roll and the reopen go through. Elsewhere the sync of the mark that
                // records the full segment's end is held from the moment the mark is written.
                if (!fixture.writesDurable()) {
                    backend.holdDataSyncsFromMark(SEGMENT_BYTES);
                }
                while (wal.writtenPosition() + 2 * frameSpace(payload.length) < SEGMENT_BYTES) {
                    expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
                }
                // Fill the segment: the records that no longer fit go to the next one, unwritten.
                long lsn;
                do {
                    lsn = wal.append(payload, Durability.BUFFERED);
                    expected.add(new Read(lsn, payload));
                } while (lsn < SEGMENT_BYTES);
                awaitCondition(() -> wal.durablePosition() == SEGMENT_BYTES, "the roll fence");
                if (!fixture.writesDurable()) {
                    final long deadlineNs = System.nanoTime() + WAIT_NS;
                    while (backend.dataSyncsSinceMarkHold() < 1) {
                        if (System.nanoTime() - deadlineNs > 0) {
                            fail("timed out waiting for the sync of the mark: data syncs since the mark "
                                    + backend.dataSyncsSinceMarkHold() + ", header durable position "
                                    + LogImages.headerDurablePosition(SegmentNames.segmentPath(directory, 0))
                                    + ", completions held " + backend.heldCompletions() + ", " + wal.stats());
                        }
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                    }
                }
                backend.releasePreparationWrites();
                final Path next = SegmentNames.segmentPath(directory, SEGMENT_BYTES);
                awaitCondition(() -> Files.exists(next), "the next segment");
                // A log that rolls with the sync in flight does so within a round of the preparation's
                // last step; give it that chance (up to 200 ms), then let the sync complete. A correct
                // log rolls only after it, so this window decides nothing but how surely the bug shows.
                final long windowEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                while (wal.stats().segmentsRolled() == 0 && System.nanoTime() - windowEndNs < 0) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                backend.releaseDataSyncs();
                for (int i = 0; i < 10; i++) {
                    final byte[] more = bytes(100 + i, 500);
                    expected.add(new Read(wal.append(more, Durability.SYNCED), more));
                }
                assertEquals(1, wal.stats().segmentsRolled());
            } finally {
                // A failure above must not leave the close waiting for held operations.
                backend.releaseAll();
            }
        }
        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertEquals(expected, replayAll(reopened));
        }
    }

    @Test
    void shouldLogNoErrorOverAnOpenAppendAndClose() {
        // The I/O thread ends through its runner; an end reported as a failure would alarm every
        // operator at every close.
        final Logger logger = Logger.getLogger("io.walden");
        final List<LogRecord> errors = new CopyOnWriteArrayList<>();
        final Handler handler = new Handler() {
            @Override
            public void publish(final LogRecord logRecord) {
                if (logRecord.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    errors.add(logRecord);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(handler);
        try {
            final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
            wal.append(bytes(1, 100), Durability.SYNCED);
            wal.append(bytes(2, 100), Durability.WRITTEN);
            wal.close();
        } finally {
            logger.removeHandler(handler);
        }
        assertEquals(
                List.of(),
                errors.stream()
                        .map(r -> r.getLoggerName() + ": " + r.getMessage() + " " + r.getThrown())
                        .toList());
    }

    @Test
    void shouldAppendFromByteBuffersHonouringAndKeepingTheirPositionAndLimit() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final byte[] backing = bytes(7, 400);
        final List<Read> expected = new ArrayList<>();

        final ByteBuffer heap = ByteBuffer.wrap(backing);
        heap.position(13).limit(250);
        expected.add(new Read(wal.append(heap, Durability.SYNCED), Arrays.copyOfRange(backing, 13, 250)));
        assertEquals(13, heap.position());
        assertEquals(250, heap.limit());

        final ByteBuffer slice = ByteBuffer.wrap(backing, 40, 200).slice();
        slice.position(10).limit(150);
        expected.add(new Read(wal.append(slice, Durability.WRITTEN), Arrays.copyOfRange(backing, 50, 190)));
        assertEquals(10, slice.position());
        assertEquals(150, slice.limit());

        final ByteBuffer readOnly = ByteBuffer.wrap(backing).asReadOnlyBuffer();
        readOnly.position(5).limit(77);
        expected.add(new Read(wal.append(readOnly, Durability.BUFFERED), Arrays.copyOfRange(backing, 5, 77)));
        assertEquals(5, readOnly.position());
        assertEquals(77, readOnly.limit());

        final ByteBuffer direct = ByteBuffer.allocateDirect(backing.length);
        direct.put(backing);
        direct.position(100).limit(399);
        expected.add(new Read(wal.append(direct, Durability.SYNCED), Arrays.copyOfRange(backing, 100, 399)));
        assertEquals(100, direct.position());
        assertEquals(399, direct.limit());

        final ByteBuffer empty = ByteBuffer.wrap(backing);
        empty.position(60).limit(60);
        expected.add(new Read(wal.append(empty, Durability.SYNCED), new byte[0]));
        assertEquals(60, empty.position());

        assertWellFormed(expected);
        wal.sync();
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldAppendFromDirectBufferRegions() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final byte[] backing = bytes(8, 512);
        final List<Read> expected = new ArrayList<>();

        final UnsafeBuffer onArray = new UnsafeBuffer(backing);
        expected.add(new Read(wal.append(onArray, 11, 200, Durability.SYNCED), Arrays.copyOfRange(backing, 11, 211)));

        final UnsafeBuffer onDirect = new UnsafeBuffer(ByteBuffer.allocateDirect(backing.length));
        onDirect.putBytes(0, backing);
        expected.add(
                new Read(wal.append(onDirect, 250, 50, Durability.WRITTEN), Arrays.copyOfRange(backing, 250, 300)));

        final UnsafeBuffer window = new UnsafeBuffer(backing, 100, 100);
        expected.add(new Read(wal.append(window, 3, 90, Durability.BUFFERED), Arrays.copyOfRange(backing, 103, 193)));

        final long tried = wal.tryAppend(onArray, 400, 112);
        assertTrue(tried >= 0, "tryAppend into an empty buffer returned " + tried);
        expected.add(new Read(tried, Arrays.copyOfRange(backing, 400, 512)));
        assertTrue(wal.await(tried, Durability.SYNCED, WAIT_NS));

        assertArrayEquals(bytes(8, 512), backing, "appending must not change the source");
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldAppendAndReadBackZeroLengthRecords() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final long first = wal.append(new byte[0], Durability.BUFFERED);
        final long second = wal.append(new byte[0], Durability.WRITTEN);
        assertEquals(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(0)), second - first);
        final long third = wal.append(bytes(1, 33), Durability.BUFFERED);
        final long fourth = wal.append(ByteBuffer.allocate(0), Durability.BUFFERED);
        final long fifth = wal.append(new UnsafeBuffer(new byte[4]), 2, 0, Durability.BUFFERED);
        final long sixth = wal.tryAppend(new UnsafeBuffer(new byte[0]), 0, 0);
        final long seventh = wal.append(new byte[0], Durability.SYNCED);
        assertTrue(wal.await(sixth, Durability.SYNCED, WAIT_NS));

        final List<Read> expected = List.of(
                new Read(first, new byte[0]),
                new Read(second, new byte[0]),
                new Read(third, bytes(1, 33)),
                new Read(fourth, new byte[0]),
                new Read(fifth, new byte[0]),
                new Read(sixth, new byte[0]),
                new Read(seventh, new byte[0]));
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldAppendRecordsOfExactlyMaxRecordBytesFromEverySource() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            final byte[] payload = bytes(100 + i, MAX_RECORD_BYTES);
            final long lsn =
                    switch (i % 4) {
                        case 0 -> wal.append(payload, Durability.SYNCED);
                        case 1 -> wal.append(ByteBuffer.wrap(payload), Durability.WRITTEN);
                        case 2 -> wal.append(new UnsafeBuffer(payload), 0, payload.length, Durability.BUFFERED);
                        default -> {
                            final long tried = wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length);
                            if (tried < 0) {
                                // The buffer may be full with three 16 KiB frames in it; wait for space.
                                wal.await(expected.get(expected.size() - 1).lsn(), Durability.WRITTEN);
                                yield wal.append(payload, Durability.BUFFERED);
                            }
                            yield tried;
                        }
                    };
            expected.add(new Read(lsn, payload));
        }
        wal.sync();
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldRefuseRecordsOverMaxRecordBytesNamingTheSettingAndLeaveNothingBehind() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final long firstLsn = wal.append(bytes(1, 10), Durability.SYNCED);
        final long tailBefore = wal.tailPosition();
        final byte[] tooLarge = bytes(2, MAX_RECORD_BYTES + 1);
        final List<Runnable> attempts = List.of(
                () -> wal.append(tooLarge, Durability.SYNCED),
                () -> wal.append(new byte[MAX_RECORD_BYTES + 100], 50, MAX_RECORD_BYTES + 1, Durability.BUFFERED),
                () -> wal.append(ByteBuffer.wrap(tooLarge), Durability.WRITTEN),
                () -> wal.append(ByteBuffer.allocateDirect(MAX_RECORD_BYTES * 2), Durability.WRITTEN),
                () -> wal.append(new UnsafeBuffer(tooLarge), 0, tooLarge.length, Durability.BUFFERED),
                () -> wal.tryAppend(new UnsafeBuffer(tooLarge), 0, tooLarge.length),
                () -> wal.appendAsync(tooLarge, Durability.SYNCED));
        for (final Runnable attempt : attempts) {
            final WalException ex = assertThrows(WalException.class, attempt::run);
            assertTrue(ex.getMessage().contains("maxRecordBytes"), ex.getMessage());
            assertTrue(ex.getMessage().contains(String.valueOf(MAX_RECORD_BYTES)), ex.getMessage());
        }
        assertEquals(tailBefore, wal.tailPosition(), "a refused record must not claim space");
        final long lastLsn = wal.append(bytes(3, 10), Durability.SYNCED);
        assertEquals(List.of(new Read(firstLsn, bytes(1, 10)), new Read(lastLsn, bytes(3, 10))), replayAll(wal));
    }

    @Test
    void shouldRefuseAnOutOfBoundsSourceRegionWithoutClaimingSpace() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final byte[] payload = bytes(1, 100);
        final UnsafeBuffer source = new UnsafeBuffer(payload);
        final long tailBefore = wal.tailPosition();
        final List<Runnable> attempts = List.of(
                () -> wal.append(payload, 50, 51, Durability.SYNCED),
                () -> wal.append(payload, -1, 10, Durability.BUFFERED),
                () -> wal.append(payload, 101, 0, Durability.BUFFERED),
                () -> wal.append((byte[]) null, 0, 10, Durability.BUFFERED),
                () -> wal.append(source, 90, 20, Durability.WRITTEN),
                () -> wal.append(source, -8, 8, Durability.BUFFERED),
                () -> wal.append((UnsafeBuffer) null, 0, 8, Durability.BUFFERED),
                () -> wal.tryAppend(source, 99, 2));
        for (int i = 0; i < attempts.size(); i++) {
            assertThrows(RuntimeException.class, attempts.get(i)::run, "attempt " + i);
            assertEquals(tailBefore, wal.tailPosition(), "attempt " + i + " claimed space it never filled");
        }
        final long lsn = wal.append(payload, Durability.BUFFERED);
        assertTrue(wal.await(lsn, Durability.SYNCED, WAIT_NS), "the log stopped writing after a refused append");
        assertEquals(List.of(new Read(lsn, payload)), replayAll(wal));
    }

    @Test
    void shouldReturnBackPressuredFromTryAppendWhenTheBufferIsFull() {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        final List<Read> expected = new ArrayList<>();
        final byte[] payload = bytes(5, 1000);
        expected.add(new Read(wal.append(payload, Durability.SYNCED), payload));
        backend.holdWrites();

        final List<Long> accepted = fillBuffer(wal, payload);
        assertTrue(
                accepted.size() >= BUFFER_BYTES / 2 / frameSpace(payload.length),
                "only " + accepted.size() + " records fit in the buffer");
        assertEquals(Wal.BACK_PRESSURED, wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length));
        accepted.forEach(lsn -> expected.add(new Read(lsn, payload)));

        backend.releaseWrites();
        assertTrue(wal.await(accepted.get(accepted.size() - 1), Durability.WRITTEN, WAIT_NS));
        final long afterRelease = wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length);
        assertTrue(afterRelease >= 0, "tryAppend after the buffer drained returned " + afterRelease);
        expected.add(new Read(afterRelease, payload));
        wal.sync();
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldFailAnAppendWithBackPressureTimeoutWhenTheBufferStaysFull() {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .backend(backend)
                .appendTimeoutNs(TimeUnit.MILLISECONDS.toNanos(50))
                .build());
        final byte[] payload = bytes(6, 1000);
        final List<Read> expected = new ArrayList<>();
        expected.add(new Read(wal.append(payload, Durability.SYNCED), payload));
        backend.holdWrites();
        fillBuffer(wal, payload).forEach(lsn -> expected.add(new Read(lsn, payload)));
        final long tailBefore = wal.tailPosition();

        final List<Runnable> attempts = List.of(
                () -> wal.append(payload, Durability.BUFFERED),
                () -> wal.append(payload, Durability.SYNCED),
                () -> wal.append(ByteBuffer.wrap(payload), Durability.WRITTEN),
                () -> wal.append(new UnsafeBuffer(payload), 0, payload.length, Durability.BUFFERED),
                () -> wal.appendAsync(payload, Durability.SYNCED));
        for (final Runnable attempt : attempts) {
            final WalException ex = assertThrows(WalException.class, attempt::run);
            assertEquals(WalException.ErrorCode.BACK_PRESSURE_TIMEOUT, ex.errorCode(), ex.getMessage());
            assertTrue(ex.getMessage().contains("appendTimeoutNs"), ex.getMessage());
        }
        assertEquals(tailBefore, wal.tailPosition(), "a timed-out append must leave nothing behind");
        assertTrue(
                wal.stats().backPressureWaits() >= attempts.size(), wal.stats().toString());

        backend.releaseWrites();
        final byte[] last = bytes(7, 100);
        expected.add(new Read(wal.append(last, Durability.SYNCED), last));
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldSayNothingWasAppendedWhenARecordIsRefused() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final WalException tooLarge =
                assertThrows(WalException.class, () -> wal.append(new byte[MAX_RECORD_BYTES + 1], Durability.SYNCED));
        assertEquals(WalException.NO_LSN, tooLarge.lsn());
        wal.close();
        final WalException closed = assertThrows(WalException.class, () -> wal.append(new byte[1], Durability.WRITTEN));
        assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
        assertEquals(WalException.NO_LSN, closed.lsn());
    }
}
