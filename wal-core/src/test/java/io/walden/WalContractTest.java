package io.walden;

import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.pollAll;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.FileSystemCheck;
import io.walden.internal.events.BackPressureEvent;
import io.walden.internal.events.FailStopEvent;
import io.walden.internal.events.RecoveryEvent;
import io.walden.internal.events.SegmentPreparationEvent;
import io.walden.internal.events.SegmentRollEvent;
import io.walden.internal.events.SyncEvent;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import io.walden.testing.ControllableBackend;
import io.walden.testing.LogImages;
import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every storage backend must satisfy, run against a real {@link Wal}. A backend module
 * extends this class and implements {@link #newBackend()}; every test, including the concurrency
 * tests inherited from {@link ConcurrentAppendContractTest}, then runs against that backend.
 *
 * <p>Tests that need a stalling or failing device wrap the backend in a {@link ControllableBackend},
 * which holds completions back or fails operations on command, so no test depends on timing except
 * through bounded waits.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class WalContractTest extends BatchContractTest {
    /** Segment capacity used by most tests: small, so that tests roll segments cheaply. */
    protected static final int SEGMENT_BYTES = 256 * 1024;
    /** Log buffer capacity used by most tests. */
    protected static final int BUFFER_BYTES = 64 * 1024;
    /** Largest record used by most tests. */
    protected static final int MAX_RECORD_BYTES = 16 * 1024;
    /** Bound of every wait for something that must happen. */
    protected static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    private static final Durability[] LEVELS = Durability.values();

    private final List<Wal> openLogs = new ArrayList<>();
    private final List<ControllableBackend> controllables = new ArrayList<>();

    /**
     * Creates the backend under test. Called once per opened log.
     *
     * @return a new backend.
     */
    @Override
    protected abstract StorageBackend newBackend();

    /**
     * A configuration with the backend under test and small sizes.
     *
     * @param directory the log directory.
     * @return the builder, for tests to adjust.
     */
    @Override
    protected WalConfig.Builder config(final Path directory) {
        return WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(BUFFER_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES);
    }

    @AfterEach
    void releaseAndCloseEverything() throws InterruptedException {
        controllables.forEach(ControllableBackend::releaseAll);
        // Close on another thread, so that a log that cannot close fails the test instead of hanging
        // the build.
        final Thread closer = new Thread(
                () -> {
                    for (final Wal wal : openLogs) {
                        try {
                            wal.close();
                        } catch (final WalException ignored) {
                            // A failed log may refuse to close cleanly; its test checked what it needed.
                        }
                    }
                },
                "contract-cleanup");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        if (closer.isAlive()) {
            final AssertionError error =
                    new AssertionError("a log did not close within " + WAIT_NS / 1_000_000 + " ms");
            error.setStackTrace(closer.getStackTrace());
            throw error;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Appending and reading back
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldAppendByteArraysWithStrictlyIncreasingLsnsAndReadThemBackIntact() {
        final Wal wal = open(config(logDirectory()).build());
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
        final Path directory = logWithoutItsNextSegment();
        final ControllableBackend backend = controllable();
        backend.holdPreparationWrites();
        final byte[] payload = bytes(1, 1000);
        final List<Read> expected = new ArrayList<>();
        // The periodic sync is what makes a durability mark durable.
        final long syncIntervalNs = TimeUnit.MILLISECONDS.toNanos(1);
        try (Wal wal = open(config(directory)
                .backend(backend)
                .syncIntervalNs(syncIntervalNs)
                .build())) {
            try {
                // With O_DSYNC a write is its own sync and a mark needs none: there the test checks
                // only that the roll and the reopen go through. Elsewhere the sync of the mark that
                // records the full segment's end is held from the moment the mark is written.
                if (!writesDurable()) {
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
                if (!writesDurable()) {
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
        try (Wal reopened = open(config(directory).build())) {
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
            final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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
        final Wal wal = open(config(logDirectory()).build());
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

    // ---------------------------------------------------------------------------------------------
    // Durability levels
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldMakeASyncedAppendDurableBeforeItReturns() {
        final Wal wal = open(config(logDirectory()).build());
        for (int i = 0; i < 50; i++) {
            final long lsn = wal.append(bytes(i, 100 + i * 10), Durability.SYNCED);
            assertTrue(wal.durablePosition() > lsn, "durable " + wal.durablePosition() + " after SYNCED lsn " + lsn);
            assertTrue(wal.writtenPosition() > lsn);
            assertTrue(wal.writtenPosition() >= wal.durablePosition());
        }
    }

    @Test
    void shouldMakeAWrittenAppendWrittenBeforeItReturns() {
        final Wal wal = open(config(logDirectory()).build());
        for (int i = 0; i < 50; i++) {
            final long lsn = wal.append(bytes(i, 100 + i * 10), Durability.WRITTEN);
            assertTrue(wal.writtenPosition() > lsn, "written " + wal.writtenPosition() + " after WRITTEN lsn " + lsn);
        }
        try (WalReader reader = wal.reader(wal.startPosition(), Durability.WRITTEN)) {
            assertEquals(50, pollAll(reader, 100).size());
        }
    }

    @Test
    void shouldLetAwaitTakeABufferedAppendToEachLevel() {
        final Wal wal = open(config(logDirectory()).build());
        final long lsn = wal.append(bytes(1, 500), Durability.BUFFERED);
        wal.await(lsn, Durability.BUFFERED);
        wal.await(lsn, Durability.WRITTEN);
        assertTrue(wal.writtenPosition() > lsn);
        wal.await(lsn, Durability.SYNCED);
        assertTrue(wal.durablePosition() > lsn);

        final long next = wal.append(bytes(2, 500), Durability.BUFFERED);
        assertTrue(wal.await(next, Durability.WRITTEN, WAIT_NS));
        assertTrue(wal.writtenPosition() > next);
        assertTrue(wal.await(next, Durability.SYNCED, WAIT_NS));
        assertTrue(wal.durablePosition() > next);
        assertTrue(wal.await(lsn, Durability.SYNCED, 0), "a reached level needs no waiting");
    }

    @Test
    void shouldTimeOutAnAwaitWhileTheDeviceStallsAndSucceedOnceItResumes() {
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(logDirectory()).backend(backend).build());
        wal.append(bytes(0, 10), Durability.SYNCED);
        backend.holdWrites();
        final long lsn = wal.append(bytes(1, 500), Durability.BUFFERED);
        assertFalse(wal.await(lsn, Durability.WRITTEN, TimeUnit.MILLISECONDS.toNanos(20)));
        assertFalse(wal.await(lsn, Durability.SYNCED, TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(wal.writtenPosition() <= lsn);
        assertTrue(wal.durablePosition() <= lsn);
        backend.releaseWrites();
        assertTrue(wal.await(lsn, Durability.SYNCED, WAIT_NS));
        assertTrue(wal.durablePosition() > lsn);
    }

    @Test
    void shouldCompleteAsyncAppendFuturesWithTheirLsnAtTheirLevel() throws Exception {
        final Wal wal = open(config(logDirectory()).build());
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            final byte[] payload = bytes(i, 50 + i);
            payloads.add(payload);
            futures.add(wal.appendAsync(payload, LEVELS[i % LEVELS.length]));
        }
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++) {
            final long lsn = futures.get(i).get(30, TimeUnit.SECONDS);
            final Durability level = LEVELS[i % LEVELS.length];
            if (level == Durability.SYNCED) {
                assertTrue(wal.durablePosition() > lsn, "SYNCED future completed before its record was durable");
            } else if (level == Durability.WRITTEN) {
                assertTrue(wal.writtenPosition() > lsn, "WRITTEN future completed before its record was written");
            }
            expected.add(new Read(lsn, payloads.get(i)));
        }
        assertWellFormed(expected);
        wal.sync();
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldNotCompleteAnAsyncAppendWhileTheDeviceStalls() throws Exception {
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(logDirectory()).backend(backend).build());
        wal.append(bytes(0, 10), Durability.SYNCED);
        backend.holdWrites();
        final CompletableFuture<Long> buffered = wal.appendAsync(bytes(1, 100), Durability.BUFFERED);
        final CompletableFuture<Long> written = wal.appendAsync(bytes(2, 100), Durability.WRITTEN);
        final CompletableFuture<Long> synced = wal.appendAsync(bytes(3, 100), Durability.SYNCED);
        assertTrue(buffered.isDone(), "a BUFFERED future completes on return");
        assertThrows(TimeoutException.class, () -> written.get(20, TimeUnit.MILLISECONDS));
        assertFalse(synced.isDone());
        backend.releaseWrites();
        final long writtenLsn = written.get(30, TimeUnit.SECONDS);
        final long syncedLsn = synced.get(30, TimeUnit.SECONDS);
        assertTrue(buffered.get() < writtenLsn && writtenLsn < syncedLsn);
        assertTrue(wal.durablePosition() > syncedLsn);
    }

    @Test
    void shouldMakeEveryEarlierAppendDurableOnSync() {
        final Wal wal = open(config(logDirectory()).build());
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            final byte[] payload = bytes(i, 300);
            expected.add(new Read(wal.append(payload, Durability.BUFFERED), payload));
        }
        wal.sync();
        assertTrue(wal.durablePosition() > expected.get(expected.size() - 1).lsn());
        assertTrue(wal.durablePosition() >= wal.tailPosition());
        assertEquals(expected, replayAll(wal));
        wal.sync();
    }

    @Test
    void shouldSyncWrittenRecordsInTheBackground() {
        final Wal wal = open(config(logDirectory())
                .syncIntervalNs(TimeUnit.MILLISECONDS.toNanos(5))
                .build());
        final long lsn = wal.append(bytes(1, 100), Durability.WRITTEN);
        awaitCondition(() -> wal.durablePosition() > lsn, "the background sync to cover a WRITTEN record");
    }

    @Test
    void shouldCompleteSyncedAppendsWithAGroupWindowAndSmallBatches() {
        final Wal wal = open(config(logDirectory())
                .groupWindowNs(TimeUnit.MILLISECONDS.toNanos(2))
                .maxBatchBytes(WalConfig.MAX_BATCH_BYTES_MIN)
                .build());
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            final byte[] payload = bytes(i, i % 4 == 0 ? MAX_RECORD_BYTES : 700);
            final long lsn = wal.append(payload, i % 2 == 0 ? Durability.SYNCED : Durability.BUFFERED);
            expected.add(new Read(lsn, payload));
        }
        wal.sync();
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldCountAppendsWritesAndSyncsInStats() throws IOException {
        final Wal wal = open(config(logDirectory()).build());
        long payloadBytes = 0;
        for (int i = 0; i < 60; i++) {
            wal.append(bytes(i, 100 + i), Durability.SYNCED);
            payloadBytes += 100 + i;
        }
        final WalStats stats = wal.stats();
        assertEquals(newBackend().name(), stats.backend());
        assertEquals(60, stats.appends());
        assertEquals(payloadBytes, stats.appendBytes());
        assertTrue(stats.writes() > 0, stats.toString());
        assertTrue(stats.writeBytes() >= payloadBytes + 60L * FrameDescriptor.HEADER_LENGTH, stats.toString());
        if (!writesDurable()) {
            assertTrue(stats.syncs() > 0, stats.toString());
            assertTrue(stats.recordsPerSyncMax() >= 1, stats.toString());
            assertTrue(stats.recordsPerSyncMean() >= 1, stats.toString());
            assertTrue(stats.bytesPerSyncMax() > 0, stats.toString());
            assertTrue(stats.syncLatencyNsMax() > 0, stats.toString());
        }
        assertEquals(0, stats.segmentsRolled());
        assertEquals(0, stats.backPressureWaits());
        assertEquals(BUFFER_BYTES, stats.bufferCapacityBytes());
    }

    // ---------------------------------------------------------------------------------------------
    // Back pressure
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldReturnBackPressuredFromTryAppendWhenTheBufferIsFull() {
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(logDirectory()).backend(backend).build());
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
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(logDirectory())
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

    // ---------------------------------------------------------------------------------------------
    // Observability: positions, failure and latency in stats; Flight Recorder events
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldReportPositionsLagFailureAndSyncLatencyInStats() throws IOException {
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(logDirectory()).backend(backend).syncIntervalNs(0).build());
        for (int i = 0; i < 50; i++) {
            wal.append(bytes(i, 200), Durability.SYNCED);
        }
        final WalStats settled = wal.stats();
        assertEquals(wal.startPosition(), settled.startPosition());
        assertEquals(wal.tailPosition(), settled.tailPosition());
        assertEquals(wal.writtenPosition(), settled.writtenPosition());
        assertEquals(wal.durablePosition(), settled.durablePosition());
        assertEquals(0, settled.unwrittenBytes(), settled.toString());
        assertEquals(0, settled.unsyncedBytes(), settled.toString());
        assertFalse(settled.failed());
        assertNull(settled.failure());
        final LatencyHistogram latency = settled.syncLatency();
        if (writesDurable()) {
            assertTrue(latency.count() >= 1 && latency.count() <= settled.writes(), latency + " / " + settled);
        } else {
            assertEquals(settled.syncs(), latency.count(), settled.toString());
            assertEquals(settled.syncLatencyNsMax(), latency.maxNs(), settled.toString());
        }
        assertTrue(latency.percentileNs(50) > 0, latency.toString());
        assertTrue(latency.percentileNs(50) <= latency.percentileNs(99), latency.toString());
        assertTrue(latency.percentileNs(99) <= latency.maxNs(), latency.toString());

        // Lag: appended but not written while the device holds writes, written but not synced after.
        backend.holdWrites();
        final long held = wal.append(bytes(100, 300), Durability.BUFFERED);
        assertTrue(wal.stats().unwrittenBytes() >= frameSpace(300), wal.stats().toString());
        backend.releaseWrites();
        assertTrue(wal.await(held, Durability.WRITTEN, WAIT_NS));
        if (!writesDurable()) {
            assertTrue(
                    wal.stats().unsyncedBytes() >= frameSpace(300), wal.stats().toString());
        }

        final IOException injected = new IOException("injected failure (stats contract test)");
        if (writesDurable()) {
            backend.failNextDataWrite(injected);
        } else {
            backend.failNextDataSync(injected);
        }
        assertThrows(WalException.class, () -> wal.append(bytes(101, 100), Durability.SYNCED));
        final WalStats failed = wal.stats();
        assertTrue(failed.failed(), failed.toString());
        assertTrue(failed.failure().contains("injected failure"), failed.failure());
    }

    @Test
    void shouldEmitFlightRecorderEventsForSyncsRollsPreparationBackPressureRecoveryAndFailStop() throws IOException {
        final Path directory = logDirectory();
        final Path refused = tempDir.resolve("refused");
        final Path recordingFile = tempDir.resolve("walden.jfr");
        final List<Read> appended;
        final String expectedMethod = writesDurable() ? "O_DSYNC write" : "fdatasync";
        try (Recording recording = new Recording()) {
            for (final String name : List.of(
                    SyncEvent.NAME,
                    SegmentRollEvent.NAME,
                    SegmentPreparationEvent.NAME,
                    BackPressureEvent.NAME,
                    RecoveryEvent.NAME,
                    FailStopEvent.NAME)) {
                recording.enable(name).withThreshold(Duration.ZERO);
            }
            recording.start();
            final ControllableBackend backend = controllable();
            final Wal wal = open(config(directory)
                    .backend(backend)
                    .syncIntervalNs(0)
                    .appendTimeoutNs(TimeUnit.MILLISECONDS.toNanos(50))
                    .build());
            appended = appendSegments(wal, 2.5);

            backend.holdWrites();
            final byte[] payload = bytes(7, 1000);
            fillBuffer(wal, payload);
            final WalException timedOut =
                    assertThrows(WalException.class, () -> wal.append(payload, Durability.BUFFERED));
            assertEquals(WalException.ErrorCode.BACK_PRESSURE_TIMEOUT, timedOut.errorCode());
            backend.releaseWrites();

            final IOException injected = new IOException("injected failure (flight recorder contract test)");
            if (writesDurable()) {
                backend.failNextDataWrite(injected);
            } else {
                backend.failNextDataSync(injected);
            }
            assertThrows(WalException.class, () -> wal.append(bytes(8, 100), Durability.SYNCED));

            Files.createDirectories(refused);
            Files.write(SegmentNames.segmentPath(refused, 0), new byte[2 * SegmentHeaderDescriptor.HEADER_LENGTH]);
            assertThrows(WalException.class, () -> open(config(refused).build()));
            recording.stop();
            recording.dump(recordingFile);
        }
        final java.util.Map<String, List<RecordedEvent>> events = RecordingFile.readAllEvents(recordingFile).stream()
                .filter(e -> e.getEventType().getName().startsWith("io.walden."))
                .filter(e -> e.getString("directory").equals(directory.toString())
                        || e.getString("directory").equals(refused.toString()))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));

        final List<RecordedEvent> recoveries = events.getOrDefault(RecoveryEvent.NAME, List.of());
        assertEquals(2, recoveries.size(), recoveries.toString());
        final RecordedEvent created = recoveries.get(0);
        assertEquals(directory.toString(), created.getString("directory"));
        assertTrue(created.getBoolean("newLog"));
        assertNull(created.getString("refusal"));
        final RecordedEvent refusal = recoveries.get(1);
        assertEquals(refused.toString(), refusal.getString("directory"));
        assertNotNull(refusal.getString("refusal"), refusal.toString());

        final List<RecordedEvent> syncs = events.getOrDefault(SyncEvent.NAME, List.of());
        assertFalse(syncs.isEmpty(), "no sync events");
        long syncedRecords = 0;
        for (final RecordedEvent sync : syncs) {
            assertEquals(expectedMethod, sync.getString("method"));
            assertTrue(sync.getLong("bytes") >= 0 && sync.getLong("durablePosition") > 0, sync.toString());
            assertFalse(sync.getDuration().isNegative(), sync.toString());
            syncedRecords += sync.getLong("records");
        }
        // appendSegments syncs at its end: every record it appended was made durable by some event.
        assertTrue(syncedRecords >= appended.size(), syncedRecords + " records in sync events, " + appended.size());

        final List<RecordedEvent> rolls = events.getOrDefault(SegmentRollEvent.NAME, List.of());
        assertTrue(rolls.size() >= 2, rolls.toString());
        for (final RecordedEvent roll : rolls) {
            assertEquals(roll.getLong("fromBasePosition") + SEGMENT_BYTES, roll.getLong("toBasePosition"));
        }
        final List<RecordedEvent> preparations = events.getOrDefault(SegmentPreparationEvent.NAME, List.of());
        assertTrue(preparations.size() >= 2, preparations.toString());
        for (final RecordedEvent preparation : preparations) {
            assertEquals(0, preparation.getLong("basePosition") % SEGMENT_BYTES, preparation.toString());
            assertTrue(preparation.getLong("basePosition") > 0, preparation.toString());
        }

        final List<RecordedEvent> waits = events.getOrDefault(BackPressureEvent.NAME, List.of());
        assertTrue(
                waits.stream()
                        .anyMatch(w -> !w.getBoolean("gotSpace")
                                && w.getDuration().toMillis() >= 40
                                && w.getLong("frameBytes") == frameSpace(1000)
                                && w.getLong("bufferCapacityBytes") == BUFFER_BYTES),
                waits.toString());

        final List<RecordedEvent> failures = events.getOrDefault(FailStopEvent.NAME, List.of());
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.get(0).getString("cause").contains("injected failure"), failures.toString());
    }

    @Test
    void shouldRefuseANullDurabilityBeforeAppendingAnything() throws IOException {
        try (Wal wal = open(config(logDirectory()).build())) {
            final long tail = wal.stats().tailPosition();
            for (final org.junit.jupiter.api.function.Executable call :
                    List.<org.junit.jupiter.api.function.Executable>of(
                            () -> wal.append(bytes(1, 10), null),
                            () -> wal.append(ByteBuffer.wrap(bytes(2, 10)), null),
                            () -> wal.append(new WalBatch().add(bytes(3, 10)).add(bytes(4, 10)), null),
                            () -> wal.appendAsync(bytes(5, 10), null))) {
                final WalException ex = assertThrows(WalException.class, call);
                assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode());
                assertTrue(ex.getMessage().contains("durability is null"), ex.getMessage());
            }
            assertEquals(tail, wal.stats().tailPosition(), "a refused append claims nothing");
        }
    }

    @Test
    void shouldOpenOnAThreadWhoseInterruptIsPendingAndLeaveItPending() throws IOException {
        final Path directory = logDirectory();
        try (Wal wal = open(config(directory).build())) {
            wal.append(bytes(1, 100), Durability.SYNCED);
        }
        Thread.currentThread().interrupt();
        try (Wal wal = open(config(directory).build())) {
            assertTrue(Thread.interrupted(), "the caller's interrupt stays pending (and is cleared here)");
            assertEquals(1, replayAll(wal).size());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldSayInWordsWhyTheLogDirectoryCannotBeCreated() throws IOException {
        final Path file = Files.writeString(tempDir.resolve("a-file"), "not a directory");
        final WalException ex =
                assertThrows(WalException.class, () -> open(config(file).build()));
        assertEquals(WalException.ErrorCode.IO, ex.errorCode());
        assertTrue(ex.getMessage().contains("not a directory"), ex.getMessage());
    }

    @Test
    void shouldReportInEachSyncEventTheDurablePositionItsSyncMadeAndAgreeWithStats() throws IOException {
        // Each event is committed once its sync moved the durable position, so the last one reports the
        // position the log reports; one event per sync the counters count.
        final Path directory = logDirectory();
        final Path recordingFile = tempDir.resolve("syncs.jfr");
        final int records = 40;
        final long durable;
        final WalStats stats;
        try (Recording recording = new Recording()) {
            recording.enable(SyncEvent.NAME).withThreshold(Duration.ZERO);
            recording.start();
            try (Wal wal = open(config(directory).syncIntervalNs(0).build())) {
                for (int i = 0; i < records; i++) {
                    wal.append(bytes(i, 100), Durability.SYNCED);
                }
                durable = wal.durablePosition();
                stats = wal.stats();
                recording.stop();
            }
            recording.dump(recordingFile);
        }
        final List<RecordedEvent> syncs = RecordingFile.readAllEvents(recordingFile).stream()
                .filter(e -> e.getEventType().getName().equals(SyncEvent.NAME))
                .filter(e -> e.getString("directory").equals(directory.toString()))
                .collect(Collectors.toList());
        assertFalse(syncs.isEmpty(), "no sync events");
        long bytes = 0;
        long syncedRecords = 0;
        long highest = 0;
        for (final RecordedEvent sync : syncs) {
            bytes += sync.getLong("bytes");
            syncedRecords += sync.getLong("records");
            highest = Math.max(highest, sync.getLong("durablePosition"));
        }
        assertEquals(durable, highest, "the last event reports the durable position its sync made: " + syncs);
        assertEquals(durable - SegmentHeaderDescriptor.HEADER_LENGTH, bytes, "bytes made durable, event by event");
        assertEquals(records, syncedRecords, "records made durable, event by event");
        if (!writesDurable()) {
            assertEquals(stats.syncs(), syncs.size(), "one event per sync counted: " + stats);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Segments, reopening, recovery report
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldSkipTheRestOfTheZeroFillWhenTheAppendersCatchUpWithThePreparation() throws IOException {
        // Reopening prepares the next segment again, and that preparation stalls at its first write:
        // the appenders catch up with it.
        final Path directory = logWithoutItsNextSegment();
        final ControllableBackend backend = controllable();
        backend.holdPreparationWrites();
        final List<Read> expected = new ArrayList<>();
        try (Wal wal = open(config(directory).backend(backend).build())) {
            for (int i = 0; wal.writtenPosition() < SEGMENT_BYTES - SEGMENT_BYTES / 16; i++) {
                final byte[] payload = bytes(i, 1000);
                expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
            // Within an eighth of the segment's end: the preparation was told to skip the rest of its
            // zero-fill before the appenders could be made to wait for it.
            assertEquals(1, wal.stats().segmentsHurried());
            assertEquals(0, wal.stats().segmentsRolled());
            backend.releasePreparationWrites();
            for (int i = 0; expected.get(expected.size() - 1).lsn() < SEGMENT_BYTES + SEGMENT_BYTES / 4; i++) {
                final byte[] payload = bytes(10_000 + i, 1000);
                expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
            }
            wal.sync();
            assertEquals(1, wal.stats().segmentsRolled());
            assertEquals(1, wal.stats().segmentsHurried());
            assertEquals(expected, replayAll(wal));
        }
        // The hurried segment has its full size; the part never zero-filled reads as zeros.
        assertEquals(SEGMENT_BYTES, Files.size(SegmentNames.segmentPath(directory, SEGMENT_BYTES)));
        try (Wal wal = open(config(directory).build())) {
            assertEquals(expected.size(), wal.recoveryReport().records());
            assertEquals(0, wal.recoveryReport().tornTailBytesCut());
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldKeepEveryRecordWhenLongBatchesEndAtBlockBoundaries() throws IOException {
        // With the smallest batch limit nearly every batch is long: with direct I/O each ends at the
        // last block boundary it reaches, and the next rewrites that block's frames in place.
        final Path directory = logDirectory();
        final List<Read> expected = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(23);
        try (Wal wal = open(
                config(directory).maxBatchBytes(WalConfig.MAX_BATCH_BYTES_MIN).build())) {
            for (int i = 0; i < 4000; i++) {
                final byte[] payload = bytes(i, random.nextInt(0, 700));
                final Durability level = i % 97 == 0 ? Durability.SYNCED : Durability.BUFFERED;
                expected.add(new Read(wal.append(payload, level), payload));
            }
            wal.sync();
            assertWellFormed(expected);
            assertEquals(expected, replayAll(wal));
        }
        try (Wal wal = open(config(directory).build())) {
            assertEquals(0, wal.recoveryReport().tornTailBytesCut());
            assertEquals(expected, replayAll(wal));
        }
    }

    @Test
    void shouldRollSegmentsAndReadEverythingBackInOrderAfterReopen() throws IOException {
        final Path directory = logDirectory();
        final List<Read> expected = new ArrayList<>();
        final long rolled;
        final long logId;
        final long tailAtClose;
        try (Wal wal = open(config(directory).build())) {
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
        try (Wal wal = open(config(directory).build())) {
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
        final Path directory = logDirectory();
        open(config(directory).build()).close();
        try (Wal wal = open(config(directory).build())) {
            assertFalse(wal.recoveryReport().newLog());
            assertEquals(0, wal.recoveryReport().records());
            assertEquals(List.of(), replayAll(wal));
            final long lsn = wal.append(bytes(1, 10), Durability.SYNCED);
            assertEquals(List.of(new Read(lsn, bytes(1, 10))), replayAll(wal));
        }
    }

    @Test
    void shouldReopenAfterCloseRepeatedlyKeepingEveryRecordInOrder() {
        final Path directory = logDirectory();
        final List<Read> expected = new ArrayList<>();
        for (int cycle = 0; cycle < 5; cycle++) {
            try (Wal wal = open(config(directory).build())) {
                assertEquals(expected.size(), wal.recoveryReport().records());
                assertEquals(expected, replayAll(wal));
                for (int i = 0; i < 20; i++) {
                    final byte[] payload = bytes(cycle * 100 + i, 200 + i);
                    expected.add(new Read(wal.append(payload, LEVELS[(cycle + i) % LEVELS.length]), payload));
                }
            }
        }
        assertWellFormed(expected);
        try (Wal wal = open(config(directory).build())) {
            assertEquals(expected, replayAll(wal));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Closing and locking
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldCloseIdempotently() {
        final Wal wal = open(config(logDirectory()).build());
        wal.append(bytes(1, 10), Durability.SYNCED);
        wal.close();
        wal.close();
        wal.close();
    }

    @Test
    void shouldDrainBufferedAppendsOnCloseSoThatReopeningFindsThemAll() {
        final Path directory = logDirectory();
        final List<Read> expected = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(3);
        final Wal wal = open(config(directory).build());
        for (int i = 0; i < 3000; i++) {
            final byte[] payload = bytes(i, random.nextInt(0, 600));
            expected.add(new Read(wal.append(payload, Durability.BUFFERED), payload));
        }
        wal.close();
        assertTrue(wal.durablePosition() > expected.get(expected.size() - 1).lsn());
        try (Wal reopened = open(config(directory).build())) {
            assertEquals(expected.size(), reopened.recoveryReport().records());
            assertEquals(expected, replayAll(reopened));
        }
    }

    @Test
    void shouldDrainTheFullBufferWhenClosedWhileTheDeviceStalls() throws InterruptedException {
        final Path directory = logDirectory();
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(directory).backend(backend).build());
        final byte[] payload = bytes(9, 700);
        final List<Read> expected = new ArrayList<>();
        expected.add(new Read(wal.append(payload, Durability.SYNCED), payload));
        backend.holdWrites();
        fillBuffer(wal, payload).forEach(lsn -> expected.add(new Read(lsn, payload)));

        final AtomicReference<Throwable> closeFailure = new AtomicReference<>();
        final Thread closer = new Thread(
                () -> {
                    try {
                        wal.close();
                    } catch (final Throwable ex) {
                        closeFailure.set(ex);
                    }
                },
                "contract-closer");
        closer.start();
        // The buffer is full and cannot drain, so tryAppend says BACK_PRESSURED until close stops
        // appends; from then on it says CLOSED.
        awaitCondition(
                () -> wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length) == Wal.CLOSED,
                "close to stop appends");
        assertTrue(closer.isAlive(), "close must wait for the buffered records to be written");
        backend.releaseWrites();
        closer.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        assertFalse(closer.isAlive(), "close did not finish after the device resumed");
        assertNull(closeFailure.get());

        try (Wal reopened = open(config(directory).build())) {
            assertEquals(expected, replayAll(reopened));
        }
    }

    @Test
    void shouldRefuseEveryAppendAfterCloseWithErrorCodeClosed() {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long lsn = wal.append(bytes(1, 10), Durability.SYNCED);
        wal.close();
        final byte[] payload = bytes(2, 10);
        final List<Runnable> attempts = List.of(
                () -> wal.append(payload, Durability.BUFFERED),
                () -> wal.append(payload, Durability.SYNCED),
                () -> wal.append(payload, 0, 5, Durability.WRITTEN),
                () -> wal.append(ByteBuffer.wrap(payload), Durability.WRITTEN),
                () -> wal.append(new UnsafeBuffer(payload), 0, payload.length, Durability.SYNCED),
                () -> wal.appendAsync(payload, Durability.SYNCED),
                wal::sync,
                () -> wal.truncateBefore(lsn));
        for (final Runnable attempt : attempts) {
            final WalException ex = assertThrows(WalException.class, attempt::run);
            assertEquals(WalException.ErrorCode.CLOSED, ex.errorCode(), ex.getMessage());
            assertTrue(ex.getMessage().contains(directory.toString()), ex.getMessage());
        }
        assertEquals(Wal.CLOSED, wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length));
        wal.await(lsn, Durability.SYNCED);
        final WalException beyond =
                assertThrows(WalException.class, () -> wal.await(lsn + 1_000_000, Durability.SYNCED));
        assertEquals(WalException.ErrorCode.CLOSED, beyond.errorCode(), beyond.getMessage());
    }

    @Test
    void shouldRefuseASecondOpenOfTheSameDirectoryWithLockedNamingTheDirectory() {
        final Path directory = logDirectory();
        final Wal first = open(config(directory).build());
        final long firstLsn = first.append(bytes(1, 10), Durability.SYNCED);
        final WalException ex =
                assertThrows(WalException.class, () -> open(config(directory).build()));
        assertEquals(WalException.ErrorCode.LOCKED, ex.errorCode(), ex.getMessage());
        assertTrue(ex.getMessage().contains(directory.toString()), ex.getMessage());

        final long secondLsn = first.append(bytes(2, 10), Durability.SYNCED);
        first.close();
        try (Wal second = open(config(directory).build())) {
            assertEquals(
                    List.of(new Read(firstLsn, bytes(1, 10)), new Read(secondLsn, bytes(2, 10))), replayAll(second));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Readers
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldLetAReaderTailALiveLogAndSeeRecordsOnceTheyAreDurable() throws IOException {
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(logDirectory()).backend(backend).syncIntervalNs(0).build());
        try (WalReader reader = wal.reader(wal.startPosition())) {
            assertEquals(0, pollAll(reader, 10).size());
            backend.holdSyncs();
            final byte[] first = bytes(1, 300);
            final long firstLsn = wal.append(first, Durability.WRITTEN);
            if (!writesDurable()) {
                assertTrue(wal.durablePosition() <= firstLsn);
                assertEquals(List.of(), pollAll(reader, 10), "a default reader sees only durable records");
            }
            backend.releaseSyncs();
            wal.sync();
            assertEquals(List.of(new Read(firstLsn, first)), pollAll(reader, 10));
            for (int i = 0; i < 30; i++) {
                final byte[] payload = bytes(i + 10, 100 + i * 40);
                final long lsn = wal.append(payload, Durability.SYNCED);
                assertEquals(List.of(new Read(lsn, payload)), pollAll(reader, 10));
                assertEquals(lsn + frameSpace(payload.length), reader.position());
            }
        }
    }

    @Test
    void shouldLetAWrittenVisibilityReaderSeeWrittenButUnsyncedRecords() throws IOException {
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(logDirectory()).backend(backend).syncIntervalNs(0).build());
        final long start = wal.startPosition();
        try (WalReader writtenReader = wal.reader(start, Durability.WRITTEN);
                WalReader durableReader = wal.reader(start, Durability.SYNCED)) {
            backend.holdSyncs();
            final byte[] payload = bytes(1, 1000);
            final long lsn = wal.append(payload, Durability.WRITTEN);
            assertEquals(List.of(new Read(lsn, payload)), pollAll(writtenReader, 10));
            if (!writesDurable()) {
                assertTrue(wal.durablePosition() <= lsn);
                assertEquals(List.of(), pollAll(durableReader, 10));
            }
            backend.releaseSyncs();
            wal.sync();
            if (!writesDurable()) {
                assertEquals(List.of(new Read(lsn, payload)), pollAll(durableReader, 10));
            }
        }
    }

    @Test
    void shouldRefuseAReaderThatStartsInsideARecordWithPosition() {
        final Wal wal = open(config(logDirectory()).build());
        final byte[] payload = bytes(4, 200);
        // Make the payload's first word look like a plausible frame length.
        payload[0] = 24;
        payload[1] = 0;
        payload[2] = 0;
        payload[3] = 0;
        final long lsn = wal.append(payload, Durability.SYNCED);
        wal.append(bytes(5, 200), Durability.SYNCED);
        for (final long inside : new long[] {lsn + 8, lsn + 16, lsn + 64}) {
            try (WalReader reader = wal.reader(inside)) {
                final WalException ex =
                        assertThrows(WalException.class, () -> reader.poll((b, o, l, p) -> fail("delivered"), 10));
                assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
                assertTrue(ex.getMessage().contains(String.valueOf(inside)), ex.getMessage());
            }
        }
        final long beyond = wal.tailPosition() + 4096;
        final WalException ex = assertThrows(WalException.class, () -> wal.reader(beyond));
        assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
    }

    @Test
    void shouldRefuseToPollAClosedReaderAndCloseItIdempotently() {
        final Wal wal = open(config(logDirectory()).build());
        final long lsn = wal.append(bytes(1, 10), Durability.SYNCED);
        final WalReader reader = wal.reader(lsn);
        reader.close();
        reader.close();
        final WalException ex = assertThrows(WalException.class, () -> reader.poll((b, o, l, p) -> {}, 1));
        assertEquals(WalException.ErrorCode.CLOSED, ex.errorCode(), ex.getMessage());
    }

    @Test
    void shouldTruncateWholeSegmentsOnlyAndNeverTheActiveOne() throws IOException {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final List<Read> expected = appendSegments(wal, 4.5);
        final long activeBase = wal.tailPosition() & -(long) SEGMENT_BYTES;
        assertTrue(activeBase >= 4L * SEGMENT_BYTES);
        final long firstLsn = expected.get(0).lsn();
        final WalReader stale = wal.reader(firstLsn);

        final long target = firstLsnAtOrAfter(expected, 2L * SEGMENT_BYTES + SEGMENT_BYTES / 2);
        assertEquals(2, wal.truncateBefore(target));
        assertEquals(2L * SEGMENT_BYTES, wal.startPosition());
        assertFalse(Files.exists(SegmentNames.segmentPath(directory, 0)));
        assertFalse(Files.exists(SegmentNames.segmentPath(directory, SEGMENT_BYTES)));
        assertTrue(Files.exists(SegmentNames.segmentPath(directory, 2L * SEGMENT_BYTES)));
        assertEquals(recordsFrom(expected, 2L * SEGMENT_BYTES), replayAll(wal));

        final WalException below = assertThrows(WalException.class, () -> wal.reader(firstLsn));
        assertEquals(WalException.ErrorCode.POSITION, below.errorCode(), below.getMessage());
        assertTrue(below.getMessage().contains(String.valueOf(2L * SEGMENT_BYTES)), below.getMessage());
        final WalException staleEx = assertThrows(WalException.class, () -> stale.poll((b, o, l, p) -> {}, 10));
        assertEquals(WalException.ErrorCode.POSITION, staleEx.errorCode(), staleEx.getMessage());
        stale.close();

        assertEquals(0, wal.truncateBefore(target), "nothing more lies below the same position");
        assertEquals(0, wal.truncateBefore(firstLsn), "truncating below the start deletes nothing");

        assertEquals(activeBase / SEGMENT_BYTES - 2, wal.truncateBefore(Long.MAX_VALUE));
        assertEquals(activeBase, wal.startPosition());
        assertTrue(Files.exists(SegmentNames.segmentPath(directory, activeBase)), "the active segment was deleted");
        for (final long base : segmentBases(directory)) {
            assertTrue(base >= activeBase, "segment " + base + " below the active one survived");
        }
        final List<Read> remaining = new ArrayList<>(recordsFrom(expected, activeBase));
        assertEquals(remaining, replayAll(wal));
        final byte[] more = bytes(77, 500);
        remaining.add(new Read(wal.append(more, Durability.SYNCED), more));
        assertEquals(remaining, replayAll(wal));
    }

    @Test
    void shouldDeleteOldestSegmentsBySizeButNeverAProtectedPosition() throws IOException {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final List<Read> expected = appendSegments(wal, 5.5);
        final long activeBase = (wal.writtenPosition() - 1) & -(long) SEGMENT_BYTES;
        assertEquals(5L * SEGMENT_BYTES, activeBase);

        // A consumer is still in the second segment: the size asks for more than protection allows.
        final long consumer = firstLsnAtOrAfter(expected, SEGMENT_BYTES + SEGMENT_BYTES / 3);
        assertEquals(1, wal.truncateToSize(2L * SEGMENT_BYTES, consumer));
        assertEquals(SEGMENT_BYTES, wal.startPosition());
        assertEquals(recordsFrom(expected, SEGMENT_BYTES), replayAll(wal));
        assertEquals(0, wal.truncateToSize(0, consumer), "the protected segment stays, whatever the size");

        assertEquals(0, wal.truncateToSize(5L * SEGMENT_BYTES, Long.MAX_VALUE), "five segments fit in five");
        // Two segments' worth, plus a byte: whole segments only, so two are kept.
        assertEquals(3, wal.truncateToSize(2L * SEGMENT_BYTES + 1, Long.MAX_VALUE));
        assertEquals(4L * SEGMENT_BYTES, wal.startPosition());
        assertEquals(
                List.of(4L * SEGMENT_BYTES, 5L * SEGMENT_BYTES),
                segmentBases(directory).subList(0, 2));
        assertEquals(1, wal.truncateToSize(0, Long.MAX_VALUE), "a zero size keeps the active segment only");
        assertEquals(activeBase, wal.startPosition());
        assertEquals(recordsFrom(expected, activeBase), replayAll(wal));

        for (final long bad : new long[] {-1, Long.MIN_VALUE}) {
            final WalException ex = assertThrows(WalException.class, () -> wal.truncateToSize(bad, Long.MAX_VALUE));
            assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode());
            assertTrue(ex.getMessage().contains("maxTotalBytes"), ex.getMessage());
            final WalException protectedEx = assertThrows(WalException.class, () -> wal.truncateToSize(0, bad));
            assertTrue(protectedEx.getMessage().contains("protectedLsn"), protectedEx.getMessage());
        }
        assertEquals(activeBase, wal.startPosition());
    }

    @Test
    void shouldDeleteSegmentsLastWrittenBeforeAnAgeButNeverAProtectedPositionOrAYoungerOne() throws IOException {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final List<Read> expected = appendSegments(wal, 5.5);
        final long now = System.currentTimeMillis();
        // Ages by segment: 0..2 are days old, 3 an hour, 4 a day (written out of order: an age rule
        // that skipped a young segment would leave a gap), 5 is being written.
        final long[] agesMs = {3 * 86_400_000L, 2 * 86_400_000L, 2 * 86_400_000L, 3_600_000L, 86_400_000L};
        for (int i = 0; i < agesMs.length; i++) {
            Files.setLastModifiedTime(
                    SegmentNames.segmentPath(directory, (long) i * SEGMENT_BYTES),
                    java.nio.file.attribute.FileTime.fromMillis(now - agesMs[i]));
        }
        final long consumer = firstLsnAtOrAfter(expected, 2L * SEGMENT_BYTES);
        assertEquals(2, wal.truncateOlderThan(Duration.ofHours(12), consumer));
        assertEquals(2L * SEGMENT_BYTES, wal.startPosition());
        assertEquals(1, wal.truncateOlderThan(Duration.ofHours(12), Long.MAX_VALUE));
        assertEquals(3L * SEGMENT_BYTES, wal.startPosition(), "stops at the first young segment");
        assertEquals(0, wal.truncateOlderThan(Duration.ofHours(12), Long.MAX_VALUE));
        assertEquals(2, wal.truncateOlderThan(Duration.ofMinutes(30), Long.MAX_VALUE));
        assertEquals(5L * SEGMENT_BYTES, wal.startPosition());
        assertEquals(0, wal.truncateOlderThan(Duration.ZERO, Long.MAX_VALUE), "never the active segment");
        assertEquals(recordsFrom(expected, 5L * SEGMENT_BYTES), replayAll(wal));

        final WalException ex =
                assertThrows(WalException.class, () -> wal.truncateOlderThan(Duration.ofSeconds(-1), Long.MAX_VALUE));
        assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode());
        assertTrue(ex.getMessage().contains("maxAge"), ex.getMessage());
    }

    @Test
    void shouldKeepTruncationAcrossReopen() {
        final Path directory = logDirectory();
        final List<Read> expected;
        final long startPosition;
        try (Wal wal = open(config(directory).build())) {
            expected = appendSegments(wal, 3.5);
            assertEquals(3, wal.truncateBefore(firstLsnAtOrAfter(expected, 3L * SEGMENT_BYTES)));
            startPosition = wal.startPosition();
            assertEquals(3L * SEGMENT_BYTES, startPosition);
        }
        try (Wal wal = open(config(directory).build())) {
            assertEquals(startPosition, wal.startPosition());
            assertEquals(startPosition, wal.recoveryReport().startPosition());
            assertEquals(recordsFrom(expected, startPosition), replayAll(wal));
            final WalException ex = assertThrows(
                    WalException.class, () -> wal.reader(expected.get(0).lsn()));
            assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
            assertTrue(ex.getMessage().contains(String.valueOf(startPosition)), ex.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Fail-stop
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldFailStopWhenASyncFailsAndRecoverEveryAcknowledgedRecord() throws Exception {
        final Path directory = logDirectory();
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(directory).backend(backend).syncIntervalNs(0).build());
        final List<Read> acknowledged = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            final byte[] payload = bytes(i, 100 + i);
            acknowledged.add(new Read(wal.append(payload, i < 20 ? Durability.SYNCED : Durability.WRITTEN), payload));
        }
        final IOException injected = new IOException("injected fdatasync failure (contract test)");
        if (writesDurable()) {
            // With O_DSYNC the write is the sync.
            backend.failNextDataWrite(injected);
        } else {
            backend.failNextDataSync(injected);
        }
        final byte[] pendingPayload = bytes(1000, 100);
        final CompletableFuture<Long> pending = wal.appendAsync(pendingPayload, Durability.SYNCED);
        final byte[] refusedPayload = bytes(1001, 100);
        final WalException ex = assertThrows(WalException.class, () -> wal.append(refusedPayload, Durability.SYNCED));
        assertCausedBy(injected, ex);
        final ExecutionException pendingEx =
                assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
        assertCausedBy(injected, pendingEx);
        assertFailedStopped(wal, injected, acknowledged);
        wal.close();

        try (Wal reopened = open(config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), pendingPayload, refusedPayload);
        }
    }

    @Test
    void shouldFailStopWhenAWriteFailsAndRecoverEveryAcknowledgedRecord() throws Exception {
        final Path directory = logDirectory();
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(directory).backend(backend).syncIntervalNs(0).build());
        final List<Read> acknowledged = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            final byte[] payload = bytes(i, 300 + i);
            acknowledged.add(
                    new Read(wal.append(payload, i % 2 == 0 ? Durability.SYNCED : Durability.WRITTEN), payload));
        }
        final IOException injected = new IOException("injected EIO on write (contract test)");
        backend.failNextDataWrite(injected);
        final byte[] refusedPayload = bytes(1000, 100);
        final WalException ex = assertThrows(WalException.class, () -> wal.append(refusedPayload, Durability.WRITTEN));
        assertCausedBy(injected, ex);
        assertFailedStopped(wal, injected, acknowledged);
        wal.close();

        try (Wal reopened = open(config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), refusedPayload);
        }
    }

    @Test
    void shouldAcknowledgeNothingThatCompletesAfterAFailure() throws Exception {
        final Path directory = logDirectory();
        final ControllableBackend backend = controllable();
        final Wal wal =
                open(config(directory).backend(backend).syncIntervalNs(0).build());
        final byte[] first = bytes(1, 100);
        final List<Read> acknowledged = List.of(new Read(wal.append(first, Durability.SYNCED), first));
        final IOException injected = new IOException("injected fdatasync failure (contract test)");
        final byte[] failing = bytes(2, 100);
        final byte[] later = bytes(3, 100);
        final AtomicReference<Object> laterOutcome = new AtomicReference<>();
        final Thread appender = new Thread(
                () -> {
                    try {
                        laterOutcome.set(wal.append(later, Durability.WRITTEN));
                    } catch (final Throwable ex) {
                        laterOutcome.set(ex);
                    }
                },
                "contract-later-appender");
        final CompletableFuture<Long> failingFuture;
        if (!writesDurable()) {
            // The sync fails first and a later write succeeds after it; a backend may deliver both in
            // one poll, and the write must not be acknowledged.
            backend.holdSyncs();
            backend.failNextDataSync(injected);
            failingFuture = wal.appendAsync(failing, Durability.SYNCED);
            awaitCondition(() -> !backend.failureArmed(), "the failing sync to be submitted");
            backend.holdWrites();
            final long writesBefore = backend.dataWritesSubmitted();
            appender.start();
            awaitCondition(() -> backend.dataWritesSubmitted() > writesBefore, "the later write to be submitted");
        } else {
            // With O_DSYNC the write is the sync; a later write cannot be acknowledged past an earlier
            // failed one, and one performed after it would leave a hole before it, so the later append
            // comes once the failure is known.
            backend.holdWrites();
            backend.failNextDataWrite(injected);
            failingFuture = wal.appendAsync(failing, Durability.SYNCED);
            awaitCondition(() -> !backend.failureArmed(), "the failing write to be submitted");
        }
        final long writtenBefore = wal.writtenPosition();
        final long durableBefore = wal.durablePosition();
        backend.releaseAll();

        final ExecutionException failingEx =
                assertThrows(ExecutionException.class, () -> failingFuture.get(30, TimeUnit.SECONDS));
        assertCausedBy(injected, failingEx);
        if (writesDurable()) {
            appender.start();
        }
        appender.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        assertFalse(appender.isAlive(), "the later append never returned");
        assertTrue(
                laterOutcome.get() instanceof WalException,
                "a WRITTEN append that completed after the failure was acknowledged: " + laterOutcome.get());
        assertCausedBy(injected, (Throwable) laterOutcome.get());
        assertEquals(writtenBefore, wal.writtenPosition(), "the written position moved after the failure");
        assertEquals(durableBefore, wal.durablePosition(), "the durable position moved after the failure");
        wal.close();

        try (Wal reopened = open(config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), failing, later);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Configuration
    // ---------------------------------------------------------------------------------------------

    @TestFactory
    Stream<DynamicTest> shouldRefuseEachInvalidSettingWithConfigNamingTheSetting() {
        final int limit = (BUFFER_BYTES - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;
        return Stream.of(
                        invalid(
                                "segmentCapacityBytes",
                                "300000, not a power of two",
                                b -> b.segmentCapacityBytes(300_000)),
                        invalid(
                                "segmentCapacityBytes",
                                "32 KiB, below the minimum",
                                b -> b.segmentCapacityBytes(32 * 1024)),
                        invalid("segmentCapacityBytes", "negative", b -> b.segmentCapacityBytes(-SEGMENT_BYTES)),
                        invalid(
                                "bufferCapacityBytes",
                                "100000, not a power of two",
                                b -> b.bufferCapacityBytes(100_000)),
                        invalid(
                                "bufferCapacityBytes",
                                "32 KiB, below the minimum",
                                b -> b.bufferCapacityBytes(32 * 1024)),
                        invalid(
                                "bufferCapacityBytes",
                                "larger than the segment",
                                b -> b.bufferCapacityBytes(2 * SEGMENT_BYTES)),
                        invalid(
                                "maxRecordBytes",
                                "a frame larger than half the buffer",
                                b -> b.maxRecordBytes(limit + 1)),
                        invalid("maxRecordBytes", "negative", b -> b.maxRecordBytes(-1)),
                        invalid("maxBatchBytes", "1000, below the minimum", b -> b.maxBatchBytes(1000)),
                        invalid("groupWindowNs", "negative", b -> b.groupWindowNs(-1)),
                        invalid("syncIntervalNs", "negative", b -> b.syncIntervalNs(-1)),
                        invalid("waitYieldNs", "negative", b -> b.waitYieldNs(-1)),
                        invalid(
                                "waitYieldNs",
                                "above the maximum",
                                b -> b.waitYieldNs(WalConfig.WAIT_YIELD_NS_MAX + 1)),
                        invalid("appendTimeoutNs", "zero", b -> b.appendTimeoutNs(0)),
                        invalid("appendTimeoutNs", "negative", b -> b.appendTimeoutNs(-5)),
                        invalid("recoveryPolicy", "null", b -> b.recoveryPolicy(null)))
                .map(c -> DynamicTest.dynamicTest(c.name(), () -> {
                    final WalConfig.Builder builder = config(logDirectory());
                    c.change().accept(builder);
                    final WalException ex = assertThrows(WalException.class, builder::build);
                    assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode(), ex.getMessage());
                    assertTrue(ex.getMessage().contains(c.setting()), ex.getMessage());
                }));
    }

    @Test
    void shouldAcceptAndStoreTheLargestRecordTheBufferAllows() {
        final int limit = (BUFFER_BYTES - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;
        final Wal wal = open(config(logDirectory()).maxRecordBytes(limit).build());
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final byte[] payload = bytes(i, i % 3 == 0 ? limit : 1000 * i);
            expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
        }
        wal.sync();
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldRefuseAMaxRecordBytesTheExistingLogsSegmentsCannotHold() {
        final Path directory = logDirectory();
        final int small = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        final long firstLsn;
        try (Wal wal = open(config(directory)
                .segmentCapacityBytes(small)
                .bufferCapacityBytes(small)
                .maxRecordBytes(1000)
                .build())) {
            firstLsn = wal.append(bytes(1, 1000), Durability.SYNCED);
        }
        final int large = 1024 * 1024;
        final WalException ex = assertThrows(
                WalException.class,
                () -> open(config(directory)
                        .segmentCapacityBytes(large)
                        .bufferCapacityBytes(large)
                        .maxRecordBytes(200_000)
                        .build()));
        assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode(), ex.getMessage());
        assertTrue(ex.getMessage().contains("maxRecordBytes"), ex.getMessage());
        try (Wal wal = open(config(directory)
                .segmentCapacityBytes(large)
                .bufferCapacityBytes(large)
                .maxRecordBytes(20_000)
                .build())) {
            assertEquals(small, wal.recoveryReport().segmentCapacityBytes());
            final byte[] payload = bytes(2, 20_000);
            final long lsn = wal.append(payload, Durability.SYNCED);
            assertEquals(List.of(new Read(firstLsn, bytes(1, 1000)), new Read(lsn, payload)), replayAll(wal));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------------

    /** Appends SYNCED records of 8 KiB (several segments' worth), closes the log, returns their LSNs. */
    private long[] closedLogOf(final Path directory, final int count) {
        final long[] lsns = new long[count];
        try (Wal wal = Wal.open(config(directory).build())) {
            for (int i = 0; i < count; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
            }
        }
        return lsns;
    }

    private void assertHoldsExactly(final Wal wal, final long[] lsns, final int keptCount) {
        final List<TestRecords.Read> records = replayAll(wal);
        assertEquals(keptCount, records.size(), "records after the truncation");
        for (int i = 0; i < keptCount; i++) {
            assertEquals(lsns[i], records.get(i).lsn());
            assertArrayEquals(TestRecords.bytes(i, 8 * 1024), records.get(i).payload());
        }
    }

    @Test
    void shouldKeepRecordsUpToTheOneTruncatedAfterAndGiveNoOldPositionAgain() {
        final Path directory = logDirectory();
        final long[] lsns = closedLogOf(directory, 120);
        for (final int kept : new int[] {117, 40}) {
            // First within the newest segment, then segments before it.
            final long next = Wal.truncateAfter(config(directory).build(), lsns[kept - 1]);
            assertTrue(next > lsns[lsns.length - 1], "the log continues at " + next + ", before old positions");
            assertEquals(SegmentHeaderDescriptor.HEADER_LENGTH, next % SEGMENT_BYTES);
            assertFalse(Files.exists(directory.resolve(SuffixTruncationDescriptor.FILE_NAME)));
            try (Wal wal = Wal.open(config(directory).build())) {
                assertHoldsExactly(wal, lsns, kept);
            }
        }
        try (Wal wal = Wal.open(config(directory).build())) {
            final long appended = wal.append(TestRecords.bytes(1000, 100), Durability.SYNCED);
            assertTrue(appended > lsns[lsns.length - 1]);
        }
        try (Wal wal = Wal.open(config(directory).build())) {
            final List<TestRecords.Read> records = replayAll(wal);
            assertEquals(41, records.size());
            assertArrayEquals(TestRecords.bytes(1000, 100), records.get(40).payload());
        }
    }

    @Test
    void shouldKeepNoRecordWhenTruncatedAfterMinusOne() {
        final Path directory = logDirectory();
        final long[] lsns = closedLogOf(directory, 40);
        final long next = Wal.truncateAfter(config(directory).build(), -1);
        assertTrue(next > lsns[lsns.length - 1]);
        try (Wal wal = Wal.open(config(directory).build())) {
            assertHoldsExactly(wal, lsns, 0);
            assertEquals(next, wal.append(TestRecords.bytes(7, 10), Durability.SYNCED));
        }
    }

    @Test
    void shouldChangeNothingWhenTruncatedAfterTheLastRecord() {
        final Path directory = logDirectory();
        final long[] lsns = closedLogOf(directory, 40);
        Wal.truncateAfter(config(directory).build(), lsns[39]);
        try (Wal wal = Wal.open(config(directory).build())) {
            assertHoldsExactly(wal, lsns, 40);
        }
    }

    @Test
    void shouldRefuseToTruncateAfterAPositionWhereNoRecordStartsAndChangeNothing() {
        final Path directory = logDirectory();
        final long[] lsns = closedLogOf(directory, 40);
        for (final long lsn : new long[] {lsns[5] + 8, lsns[39] + 1_000_000, 17}) {
            final WalException refused = assertThrows(
                    WalException.class,
                    () -> Wal.truncateAfter(config(directory).build(), lsn));
            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertTrue(refused.getMessage().contains(String.valueOf(lsn)), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was changed"), refused.getMessage());
        }
        try (Wal wal = Wal.open(config(directory).build())) {
            assertHoldsExactly(wal, lsns, 40);
        }
    }

    /**
     * Writes the record of a suffix truncation that began and was interrupted (FORMAT.md, "Suffix
     * truncation"), encoded here from the published layout: the log as it was, plus the record.
     */
    private static void writePendingTruncation(final Path directory, final long cut, final long continueAt)
            throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(SegmentNames.segmentPath(directory, 0), StandardOpenOption.READ)) {
            channel.read(header, 0);
        }
        final ByteBuffer record =
                ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        record.putLong(SuffixTruncationDescriptor.MAGIC_OFFSET, SuffixTruncationDescriptor.MAGIC);
        record.putInt(SuffixTruncationDescriptor.VERSION_OFFSET, SuffixTruncationDescriptor.VERSION);
        record.putLong(SuffixTruncationDescriptor.LOG_ID_OFFSET, header.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET));
        record.putLong(SuffixTruncationDescriptor.CUT_POSITION_OFFSET, cut);
        record.putLong(SuffixTruncationDescriptor.CONTINUE_POSITION_OFFSET, continueAt);
        final CRC32C crc = new CRC32C();
        crc.update(record.duplicate().position(0).limit(SuffixTruncationDescriptor.CHECKSUMMED_LENGTH));
        record.putInt(SuffixTruncationDescriptor.CHECKSUM_OFFSET, (int) crc.getValue());
        Files.write(directory.resolve(SuffixTruncationDescriptor.FILE_NAME), record.array());
    }

    @Test
    void shouldHideFromAViewWhatAnInterruptedTruncationDiscardsAndCompleteItAtOpen() throws IOException {
        final Path directory = logDirectory();
        final long[] lsns = closedLogOf(directory, 120);
        final int kept = 40;
        final long cut = lsns[kept - 1] + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(8 * 1024));
        final long continueAt = (lsns[lsns.length - 1] / SEGMENT_BYTES + 2) * SEGMENT_BYTES;
        writePendingTruncation(directory, cut, continueAt);
        try (WalView view = Wal.openReadOnly(directory);
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            assertTrue(view.writtenPosition() <= cut, "the view shows positions past the pending cut");
            final List<TestRecords.Read> before = TestRecords.pollAll(reader, 1000);
            assertEquals(kept, before.size(), "records a view shows while a truncation is pending");
            assertTrue(Wal.inspect(directory).report().findings().stream()
                    .anyMatch(finding -> finding.contains("suffix truncation")));
            final long next;
            try (Wal wal = Wal.open(config(directory).build())) {
                assertHoldsExactly(wal, lsns, kept);
                next = wal.append(TestRecords.bytes(500, 100), Durability.SYNCED);
                assertTrue(next >= continueAt, "the log continues at " + next + ", before " + continueAt);
            }
            assertFalse(Files.exists(directory.resolve(SuffixTruncationDescriptor.FILE_NAME)));
            final List<TestRecords.Read> after = new ArrayList<>();
            final long deadlineNs = System.nanoTime() + WAIT_NS;
            while (after.isEmpty() && System.nanoTime() < deadlineNs) {
                reader.poll(
                        (buffer, offset, length, lsn) -> {
                            final byte[] payload = new byte[length];
                            buffer.getBytes(offset, payload);
                            after.add(new TestRecords.Read(lsn, payload));
                        },
                        10,
                        TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertEquals(1, after.size(), "records the view shows once the truncation is complete");
            assertEquals(next, after.get(0).lsn());
        }
    }

    @Test
    void shouldRefuseToTruncateAnOpenLog() {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long lsn = wal.append(new byte[10], Durability.SYNCED);
        wal.append(new byte[10], Durability.SYNCED);
        final WalException refused = assertThrows(
                WalException.class, () -> Wal.truncateAfter(config(directory).build(), lsn));
        assertEquals(WalException.ErrorCode.LOCKED, refused.errorCode());
        assertEquals(2, replayAll(wal).size());
    }

    /** Appends 8 KiB records to an open log, SYNCED, and returns their LSNs. */
    private static long[] appendRecords(final Wal wal, final int count) {
        final long[] lsns = new long[count];
        for (int i = 0; i < count; i++) {
            lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
        }
        return lsns;
    }

    @Test
    void shouldTruncateAnOpenLogAndGoOnAppendingThere() {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long[] lsns = appendRecords(wal, 120);
        // First within the newest segment, then segments before it, then every record.
        final long first = wal.truncateAfter(lsns[116]);
        assertTrue(first > lsns[119], "the log continues at " + first + ", before old positions");
        assertEquals(SegmentHeaderDescriptor.HEADER_LENGTH, first % SEGMENT_BYTES);
        assertHoldsExactly(wal, lsns, 117);
        final long second = wal.truncateAfter(lsns[39]);
        assertTrue(second > first, "positions went back from " + first + " to " + second);
        assertHoldsExactly(wal, lsns, 40);
        final long appended = wal.append(TestRecords.bytes(1000, 100), Durability.SYNCED);
        assertTrue(appended >= second, "appended at " + appended + ", before " + second);
        assertTrue(wal.durablePosition() > appended);
        wal.close();
        try (Wal reopened = Wal.open(config(directory).build())) {
            final List<TestRecords.Read> records = replayAll(reopened);
            assertEquals(41, records.size());
            assertEquals(appended, records.get(40).lsn());
            assertArrayEquals(TestRecords.bytes(1000, 100), records.get(40).payload());
            final long none = reopened.truncateAfter(-1);
            assertTrue(none > appended);
            assertEquals(0, replayAll(reopened).size());
            assertEquals(none, reopened.append(TestRecords.bytes(7, 10), Durability.SYNCED));
        }
        try (Wal reopened = Wal.open(config(directory).build())) {
            assertEquals(1, replayAll(reopened).size());
        }
    }

    @Test
    void shouldRefuseToTruncateAnOpenLogWhereNoRecordStartsAndGoOn() {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long[] lsns = appendRecords(wal, 40);
        for (final long lsn : new long[] {lsns[5] + 8, lsns[39] + 1_000_000, 17, -2}) {
            final WalException refused = assertThrows(WalException.class, () -> wal.truncateAfter(lsn));
            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertTrue(refused.getMessage().contains(String.valueOf(lsn)), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was changed"), refused.getMessage());
        }
        assertHoldsExactly(wal, lsns, 40);
        final long next = wal.append(TestRecords.bytes(40, 8 * 1024), Durability.SYNCED);
        assertEquals(41, replayAll(wal).size());
        assertTrue(next > lsns[39]);
        wal.close();
        final WalException closed = assertThrows(WalException.class, () -> wal.truncateAfter(lsns[3]));
        assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
    }

    @Test
    void shouldMoveReadersOnAtTheCutAndTellThoseThatDeliveredDiscardedRecords() {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long[] lsns = appendRecords(wal, 120);
        final WalReader behind = wal.reader(wal.startPosition());
        assertEquals(20, behind.poll((buffer, offset, length, lsn) -> {}, 20));
        final WalReader ahead = wal.reader(wal.startPosition());
        assertEquals(120, TestRecords.pollAll(ahead, 1000).size());
        final WalReader unread = wal.reader(lsns[100]);
        final long next = wal.truncateAfter(lsns[39]);
        final long appended = wal.append(TestRecords.bytes(500, 100), Durability.SYNCED);

        final List<TestRecords.Read> rest = TestRecords.pollAll(behind, 7);
        assertEquals(21, rest.size(), "records the reader behind the cut sees");
        assertEquals(lsns[20], rest.get(0).lsn());
        assertEquals(lsns[39], rest.get(19).lsn());
        assertEquals(appended, rest.get(20).lsn());

        final WalException gone = assertThrows(WalException.class, () -> ahead.poll((b, o, l, p) -> {}, 10));
        assertEquals(WalException.ErrorCode.POSITION, gone.errorCode());
        assertTrue(gone.getMessage().contains("discarded"), gone.getMessage());
        assertTrue(gone.getMessage().contains(String.valueOf(next)), gone.getMessage());
        ahead.seek(next);
        assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(ahead, 10)));

        // A reader placed on a discarded record that it never delivered goes on where the log does.
        assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(unread, 10)));

        final WalException refused = assertThrows(WalException.class, () -> wal.reader(lsns[60]));
        assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
        assertTrue(refused.getMessage().contains("discarded by truncateAfter"), refused.getMessage());
        try (WalReader atNext = wal.reader(next)) {
            assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(atNext, 10)));
        }
        behind.close();
        ahead.close();
        unread.close();
    }

    @Test
    void shouldWakeAReaderWaitingAtTheEndWithTheRecordAfterTheTruncation() throws Exception {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long[] lsns = appendRecords(wal, 60);
        final CompletableFuture<List<Long>> seen = new CompletableFuture<>();
        final Thread waiting = new Thread(() -> {
            try (WalReader reader = wal.reader(wal.tailPosition())) {
                final List<Long> delivered = new ArrayList<>();
                final long deadlineNs = System.nanoTime() + WAIT_NS;
                while (delivered.isEmpty() && System.nanoTime() < deadlineNs) {
                    reader.poll((buffer, offset, length, lsn) -> delivered.add(lsn), 10, WAIT_NS);
                }
                seen.complete(delivered);
            } catch (final Throwable ex) {
                seen.completeExceptionally(ex);
            }
        });
        waiting.start();
        awaitCondition(() -> waiting.getState() == Thread.State.TIMED_WAITING, "the reader to wait at the end");
        final long next = wal.truncateAfter(lsns[29]);
        final long appended = wal.append(TestRecords.bytes(600, 100), Durability.SYNCED);
        assertTrue(appended >= next);
        // Waiting at the old end, it delivered nothing that was discarded: it goes on where the log does.
        assertEquals(List.of(appended), seen.get(WAIT_NS, TimeUnit.NANOSECONDS));
        waiting.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
    }

    private static List<Long> lsnsOf(final List<TestRecords.Read> records) {
        return records.stream().map(TestRecords.Read::lsn).collect(Collectors.toList());
    }

    @Test
    void shouldOrderAppendsRacingAnOnlineTruncationBeforeOrAfterItAndLoseNoneAfter() throws Exception {
        final Path directory = logDirectory();
        final Wal wal = open(config(directory).build());
        final long[] lsns = appendRecords(wal, 40);
        final int writers = 3;
        final List<List<Long>> acknowledged = new ArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.atomic.AtomicLong appendedCount = new java.util.concurrent.atomic.AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            final List<Long> mine = new ArrayList<>();
            acknowledged.add(mine);
            final int writer = w;
            final Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        final Durability durability = i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN;
                        mine.add(wal.append(TestRecords.bytes(10_000L * (writer + 1) + i, 1000), durability));
                        appendedCount.incrementAndGet();
                    }
                } catch (final Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            });
            threads.add(thread);
            thread.start();
        }
        awaitCondition(() -> appendedCount.get() >= 100, "appends before the truncation");
        final long next = wal.truncateAfter(lsns[29]);
        final long countAtTruncation = appendedCount.get();
        awaitCondition(() -> appendedCount.get() >= countAtTruncation + 100, "appends after the truncation");
        stop.set(true);
        for (final Thread thread : threads) {
            thread.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        }
        assertNull(failure.get(), () -> "an append failed: " + failure.get());
        wal.sync();
        final List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add(lsns[i]);
        }
        int after = 0;
        int discarded = 0;
        for (final List<Long> mine : acknowledged) {
            for (final long lsn : mine) {
                if (lsn >= next) {
                    expected.add(lsn);
                    after++;
                } else {
                    discarded++;
                }
            }
        }
        assertTrue(after >= 100, "appends after the truncation: " + after);
        assertTrue(discarded >= 100, "appends before the truncation: " + discarded);
        expected.sort(null);
        assertEquals(expected, lsnsOf(replayAll(wal)));
        wal.close();
        try (Wal reopened = Wal.open(config(directory).build())) {
            assertEquals(expected, lsnsOf(replayAll(reopened)));
        }
    }

    /**
     * Opens a log that is closed after the test.
     *
     * @param config the configuration.
     * @return the open log.
     */
    protected final Wal open(final WalConfig config) {
        final Wal wal = Wal.open(config);
        openLogs.add(wal);
        return wal;
    }

    /**
     * A controllable wrapper of the backend under test, released after the test.
     *
     * @return the wrapper.
     */
    protected final ControllableBackend controllable() {
        final ControllableBackend backend = new ControllableBackend(newBackend());
        controllables.add(backend);
        return backend;
    }

    /**
     * Creates a log and removes the empty next segment its first session prepared, so that the next
     * open has to prepare that segment again (with a {@link ControllableBackend}, under the test's
     * control).
     *
     * @return the log's directory.
     */
    protected final Path logWithoutItsNextSegment() throws IOException {
        final Path directory = logDirectory();
        try (Wal wal = open(config(directory).build())) {
            assertTrue(wal.recoveryReport().newLog());
        }
        Files.deleteIfExists(SegmentNames.segmentPath(directory, SEGMENT_BYTES));
        return directory;
    }

    /** @return a log directory that does not exist yet. */
    protected final Path logDirectory() {
        return tempDir.resolve("log");
    }

    @Test
    void shouldNameTheRecordsLsnWhenAWaitForItIsInterruptedAndStillMakeItDurable() throws IOException {
        final ControllableBackend backend = controllable();
        final Wal wal = open(config(logDirectory()).backend(backend).build());
        wal.append(bytes(0, 10), Durability.SYNCED);
        backend.holdSyncs();
        final byte[] payload = bytes(1, 300);
        final WalException ex;
        Thread.currentThread().interrupt();
        try {
            ex = assertThrows(WalException.class, () -> wal.append(payload, Durability.SYNCED));
        } finally {
            assertTrue(Thread.interrupted(), "the interrupt status is kept");
        }
        assertEquals(WalException.ErrorCode.INTERRUPTED, ex.errorCode(), ex::getMessage);
        final long lsn = ex.lsn();
        assertTrue(lsn > 0, "the exception names the appended record: " + ex.getMessage());
        assertTrue(ex.getMessage().contains("LSN " + lsn), ex.getMessage());
        assertTrue(ex.getMessage().contains("is in the log"), ex.getMessage());
        backend.releaseSyncs();
        wal.await(lsn, Durability.SYNCED);
        assertTrue(wal.durablePosition() > lsn);
        final List<Read> read = replayAll(wal);
        assertEquals(new Read(lsn, payload), read.get(read.size() - 1), "the interrupted append is in the log");
    }

    @Test
    void shouldSayNothingWasAppendedWhenARecordIsRefused() {
        final Wal wal = open(config(logDirectory()).build());
        final WalException tooLarge =
                assertThrows(WalException.class, () -> wal.append(new byte[MAX_RECORD_BYTES + 1], Durability.SYNCED));
        assertEquals(WalException.NO_LSN, tooLarge.lsn());
        wal.close();
        final WalException closed = assertThrows(WalException.class, () -> wal.append(new byte[1], Durability.WRITTEN));
        assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
        assertEquals(WalException.NO_LSN, closed.lsn());
    }

    @Test
    void shouldReadEveryRecordAfterReopeningWithASmallerMaxRecordBytes() {
        // Records larger than any reader buffer the smaller setting would size (256 KiB at least).
        final int largeRecordBytes = 600 * 1024;
        final List<Read> written = new ArrayList<>();
        try (Wal wal = Wal.open(config(logDirectory())
                .segmentCapacityBytes(4 * 1024 * 1024)
                .bufferCapacityBytes(2 * 1024 * 1024)
                .maxRecordBytes(largeRecordBytes)
                .build())) {
            for (int i = 0; i < 4; i++) {
                final byte[] payload = bytes(i, i % 2 == 0 ? largeRecordBytes : 100);
                written.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
        }
        final Wal wal = open(config(logDirectory()).maxRecordBytes(1024).build());
        assertEquals(written, replayAll(wal), "records larger than the new maxRecordBytes are still read");
        final WalException refused =
                assertThrows(WalException.class, () -> wal.append(new byte[2048], Durability.WRITTEN));
        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
    }

    @Test
    void shouldReportTheFileSystemAndThatALogInMemorySurvivesNoPowerLoss() {
        final Wal onDisk = open(config(logDirectory()).build());
        assertEquals(FileSystemCheck.type(logDirectory()), onDisk.stats().fileSystemType());
        onDisk.close();
        final Wal inMemory = Wal.open(config(logDirectory()).build(), directory -> "tmpfs");
        openLogs.add(inMemory);
        assertEquals("tmpfs", inMemory.stats().fileSystemType());
        assertFalse(inMemory.stats().survivesPowerLoss(), "SYNCED survives no power loss on tmpfs");
        inMemory.close();
        final Wal onExt4 = Wal.open(config(logDirectory()).build(), directory -> "ext4");
        openLogs.add(onExt4);
        assertTrue(onExt4.stats().survivesPowerLoss());
    }

    // ---------------------------------------------------------------------------------------------
    // Readers: waiting, controlled polls, seek; read-only views beside a writer
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldWaitInPollForARecordAppendedMeanwhileAndTimeOutWhenNoneComes() throws Exception {
        final Wal wal = open(config(logDirectory()).build());
        final long first = wal.append(bytes(1, 100), Durability.SYNCED);
        try (WalReader reader = wal.reader(first, Durability.WRITTEN)) {
            final List<Read> read = new ArrayList<>();
            assertEquals(1, reader.poll(collect(read), 10, WAIT_NS));
            assertEquals(0, reader.poll(collect(read), 10, TimeUnit.MILLISECONDS.toNanos(30)), "nothing came");
            final CompletableFuture<Long> later = CompletableFuture.supplyAsync(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                return wal.append(bytes(2, 200), Durability.WRITTEN);
            });
            assertEquals(1, reader.poll(collect(read), 10, WAIT_NS), "the poll waited for the record");
            assertEquals(List.of(new Read(first, bytes(1, 100)), new Read(later.get(), bytes(2, 200))), read);
        }
    }

    @Test
    void shouldLetTheHandlerEndAPollAfterOrBeforeARecordAndSeek() {
        final Wal wal = open(config(logDirectory()).build());
        final List<Long> lsns = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            lsns.add(wal.append(bytes(i, 50 + i), Durability.SYNCED));
        }
        try (WalReader reader = wal.reader(wal.startPosition())) {
            final List<Long> seen = new ArrayList<>();
            // Takes two records, then stops after the second.
            assertEquals(
                    2,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return seen.size() == 2
                                        ? ControlledRecordHandler.Action.BREAK
                                        : ControlledRecordHandler.Action.CONTINUE;
                            },
                            10));
            assertEquals(lsns.get(2), reader.position());
            // Refuses the third: it comes again.
            assertEquals(
                    0,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return ControlledRecordHandler.Action.ABORT;
                            },
                            10));
            assertEquals(lsns.get(2), reader.position());
            assertEquals(
                    4,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return ControlledRecordHandler.Action.CONTINUE;
                            },
                            10));
            assertEquals(
                    List.of(lsns.get(0), lsns.get(1), lsns.get(2), lsns.get(2), lsns.get(3), lsns.get(4), lsns.get(5)),
                    seen);
            reader.seek(lsns.get(1));
            final List<Read> again = new ArrayList<>();
            assertEquals(5, reader.poll(collect(again), 10));
            assertEquals(new Read(lsns.get(1), bytes(1, 51)), again.get(0));
            final WalException inside = assertThrows(WalException.class, () -> {
                reader.seek(lsns.get(1) + 8);
                reader.poll(collect(again), 10);
            });
            assertEquals(WalException.ErrorCode.POSITION, inside.errorCode());
        }
    }

    @Test
    void shouldFollowALiveLogReadOnlyAcrossRollsAndRetention() throws Exception {
        final Wal wal = open(config(logDirectory()).build());
        final List<Read> expected = new ArrayList<>();
        try (WalView view = Wal.openReadOnly(logDirectory());
                WalReader written = view.reader(view.startPosition(), Durability.WRITTEN);
                WalReader durable = view.reader(view.startPosition(), Durability.SYNCED)) {
            final List<Read> seenWritten = new ArrayList<>();
            final List<Read> seenDurable = new ArrayList<>();
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 60; i++) {
                    final byte[] payload = bytes(round * 1000 + i, 100 + (i * 97) % 5000);
                    expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
                }
                wal.sync();
                drain(written, seenWritten, expected.size());
                drain(durable, seenDurable, expected.size());
                if (round == 1) {
                    // Retention below what both readers have read: they go on without noticing.
                    assertTrue(
                            wal.truncateBefore(expected.get(expected.size() - 1).lsn()) > 0);
                }
            }
            assertTrue(segmentBases(logDirectory()).get(0) > 0, "segments were deleted under the view");
            assertEquals(expected, seenWritten, "every record once, in order, intact (WRITTEN)");
            assertEquals(expected, seenDurable, "every record once, in order, intact (SYNCED)");
            assertTrue(view.durablePosition() <= view.writtenPosition());
            assertEquals(wal.writtenPosition(), view.writtenPosition());
        }
    }

    @Test
    void shouldShowOnlyWhatFramesProveDurableToADurableViewReader() {
        final Wal wal = open(config(logDirectory()).syncIntervalNs(0).build());
        try (WalView view = Wal.openReadOnly(logDirectory());
                WalReader durable = view.reader(view.startPosition(), Durability.SYNCED)) {
            final long first = wal.append(bytes(1, 300), Durability.WRITTEN);
            final List<Read> seen = new ArrayList<>();
            assertEquals(0, durable.poll(collect(seen), 10), "a WRITTEN record is not durable yet");
            assertTrue(view.writtenPosition() > first);
            wal.append(bytes(2, 300), Durability.SYNCED);
            // Both are synced now; a later frame or the durability mark of an idle log proves them.
            drain(durable, seen, 2);
        }
    }

    @Test
    void shouldReportDamageToAViewReaderThatReachesItAndDeliverNoDamagedRecord() throws IOException {
        final List<Read> expected = new ArrayList<>();
        try (Wal wal = open(config(logDirectory()).build())) {
            for (int i = 0; wal.writtenPosition() < SEGMENT_BYTES + SEGMENT_BYTES / 2; i++) {
                final byte[] payload = bytes(i, 200 + (i * 131) % 3000);
                expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
            wal.sync();
        }
        // One flipped bit in the payload of a record in the middle of the first, sealed, segment.
        int victim = 0;
        while (expected.get(victim + 1).lsn() < SEGMENT_BYTES / 2) {
            victim++;
        }
        final long victimLsn = expected.get(victim).lsn();
        final Path firstSegment = SegmentNames.segmentPath(logDirectory(), 0);
        final long damagedOffset = victimLsn + FrameDescriptor.HEADER_LENGTH + 7;
        try (FileChannel channel = FileChannel.open(firstSegment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, damagedOffset);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            channel.write(one, damagedOffset);
        }
        try (WalView view = Wal.openReadOnly(logDirectory());
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            final List<Read> seen = new ArrayList<>();
            final WalCorruptionException damage = assertThrows(WalCorruptionException.class, () -> {
                for (int polls = 0; polls < 1000; polls++) {
                    reader.poll(collect(seen), 1000);
                }
            });
            assertEquals(expected.subList(0, victim), seen, "every record before the damage, intact; none after");
            assertEquals(firstSegment, damage.file());
            assertEquals(victimLsn, damage.fileOffset());
        }
    }

    @Test
    void shouldNotShowAViewReaderAFrameThatIsStillBeingWritten() throws IOException {
        final List<Read> expected = new ArrayList<>();
        final long end;
        try (Wal wal = open(config(logDirectory()).build())) {
            for (int i = 0; i < 5; i++) {
                final byte[] payload = bytes(i, 700);
                expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
            end = wal.writtenPosition();
        }
        try (WalView view = Wal.openReadOnly(logDirectory());
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            assertEquals(end, view.writtenPosition());
            // What a write in progress can look like to a reader of the file: the frame's length is
            // there, its checksum and body are not yet.
            final ByteBuffer partial =
                    ByteBuffer.allocate(FrameDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            partial.putInt(FrameDescriptor.LENGTH_OFFSET, FrameDescriptor.frameLength(700));
            try (FileChannel channel =
                    FileChannel.open(SegmentNames.segmentPath(logDirectory(), 0), StandardOpenOption.WRITE)) {
                channel.write(partial, end);
            }
            assertEquals(end, view.writtenPosition(), "a frame that does not validate is not visible");
            final List<Read> seen = new ArrayList<>();
            drain(reader, seen, expected.size());
            assertEquals(expected, seen);
            assertEquals(0, reader.poll(collect(seen), 10), "nothing more, and no error");
        }
    }

    @Test
    void shouldRefuseAReadOnlyViewOfWhatIsNoLogWithAClearMessage() throws IOException {
        final WalException missing =
                assertThrows(WalException.class, () -> Wal.openReadOnly(tempDir.resolve("absent")));
        assertEquals(WalException.ErrorCode.CONFIG, missing.errorCode());
        assertTrue(missing.getMessage().contains("absent"), missing.getMessage());
        final Path empty = Files.createDirectories(tempDir.resolve("empty"));
        final WalException none = assertThrows(WalException.class, () -> Wal.openReadOnly(empty));
        assertTrue(none.getMessage().contains("no Walden log"), none.getMessage());
    }

    private static void drain(final WalReader reader, final List<Read> seen, final int expectedCount) {
        final long deadlineNs = System.nanoTime() + WAIT_NS;
        while (seen.size() < expectedCount && System.nanoTime() - deadlineNs < 0) {
            reader.poll(collect(seen), 1000, TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertEquals(expectedCount, seen.size(), "records delivered");
    }

    private static RecordHandler collect(final List<Read> into) {
        return (buffer, offset, length, lsn) -> {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            into.add(new Read(lsn, bytes));
        };
    }

    @Test
    void shouldWaitForReturningGroupsByDefaultAndTakeTheSettingFromASystemProperty() {
        assertTrue(WalConfig.builder(logDirectory()).build().groupReturnWait());
        try {
            System.setProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME, "false");
            assertFalse(WalConfig.builder(logDirectory())
                    .fromSystemProperties()
                    .build()
                    .groupReturnWait());
            System.setProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME, "sometimes");
            final WalException refused = assertThrows(
                    WalException.class, () -> WalConfig.builder(logDirectory()).fromSystemProperties());
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(refused.getMessage().contains(WalConfig.GROUP_RETURN_WAIT_PROP_NAME), refused.getMessage());
        } finally {
            System.clearProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME);
        }
    }

    @Test
    void shouldYieldHalfAMillisecondByDefaultAndTakeTheWaitYieldFromASystemProperty() {
        assertEquals(
                WalConfig.WAIT_YIELD_NS_DEFAULT,
                WalConfig.builder(logDirectory()).build().waitYieldNs());
        assertEquals(TimeUnit.MICROSECONDS.toNanos(500), WalConfig.WAIT_YIELD_NS_DEFAULT);
        try {
            System.setProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME, "0");
            assertEquals(
                    0,
                    WalConfig.builder(logDirectory())
                            .fromSystemProperties()
                            .build()
                            .waitYieldNs());
            System.setProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME, "-5");
            final WalException refused = assertThrows(WalException.class, () -> WalConfig.builder(logDirectory())
                    .fromSystemProperties()
                    .build());
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(refused.getMessage().contains("waitYieldNs=-5"), refused.getMessage());
        } finally {
            System.clearProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME);
        }
    }

    @Test
    void shouldAllocateSpaceOrDeclineWithoutChangingContent() throws IOException {
        final Path probe = Files.createDirectories(tempDir.resolve("allocate"));
        final Path file = probe.resolve("allocated");
        final int allocateBytes = 1 << 20;
        final long[] completion = {-1, Long.MIN_VALUE};
        final IOException[] failure = new IOException[1];
        try (StorageSession session = newBackend().open(probe, () -> {})) {
            final int blockBytes = Math.max(4096, session.blockSizeBytes());
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
            assertEquals(completion[1] == 0 ? blockBytes : allocateBytes, content.length);
            for (int i = 0; i < content.length; i++) {
                final byte expected = i < blockBytes ? (byte) (i * 31 + 7) : 0;
                if (content[i] != expected) {
                    fail("byte " + i + " is " + content[i] + " after allocation, expected " + expected);
                }
            }
        }
    }

    private static void awaitCompletion(
            final StorageSession session, final long[] completion, final IOException[] failure) {
        completion[0] = -1;
        awaitCondition(
                () -> {
                    session.poll(
                            (token, result, cause) -> {
                                completion[0] = token;
                                completion[1] = result;
                                failure[0] = cause;
                            },
                            1);
                    return completion[0] != -1;
                },
                "a storage completion");
    }

    /**
     * Waits for a condition, failing after {@link #WAIT_NS}.
     *
     * @param condition the condition.
     * @param what what is awaited, for the failure message.
     */
    protected static void awaitCondition(final BooleanSupplier condition, final String what) {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }

    private static int frameSpace(final int payloadLength) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadLength));
    }

    /** Fills the log buffer with tryAppend while the device holds writes; returns the LSNs. */
    private static List<Long> fillBuffer(final Wal wal, final byte[] payload) {
        final UnsafeBuffer source = new UnsafeBuffer(payload);
        final List<Long> accepted = new ArrayList<>();
        final int attempts = BUFFER_BYTES / frameSpace(payload.length) + 2;
        for (int i = 0; i < attempts; i++) {
            final long lsn = wal.tryAppend(source, 0, payload.length);
            if (lsn == Wal.BACK_PRESSURED) {
                assertFalse(accepted.isEmpty(), "the buffer was full before anything was appended");
                return accepted;
            }
            assertTrue(lsn >= 0, "tryAppend returned " + lsn);
            accepted.add(lsn);
        }
        return fail("tryAppend never reported BACK_PRESSURED after " + attempts + " appends into a stalled log");
    }

    /** Appends records of 1000 bytes until the log holds about {@code segments} segments. */
    private static List<Read> appendSegments(final Wal wal, final double segments) {
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; wal.tailPosition() < (long) (segments * SEGMENT_BYTES); i++) {
            final byte[] payload = bytes(i, 1000);
            expected.add(new Read(wal.append(payload, i % 50 == 0 ? Durability.SYNCED : Durability.BUFFERED), payload));
        }
        wal.sync();
        return expected;
    }

    private static long firstLsnAtOrAfter(final List<Read> records, final long position) {
        return records.stream()
                .mapToLong(Read::lsn)
                .filter(lsn -> lsn >= position)
                .findFirst()
                .orElseThrow();
    }

    private static List<Read> recordsFrom(final List<Read> records, final long position) {
        return records.stream().filter(r -> r.lsn() >= position).collect(Collectors.toList());
    }

    private static List<Long> segmentBases(final Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(
                            p -> SegmentNames.parseSegmentName(p.getFileName().toString()))
                    .filter(base -> base >= 0)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /**
     * Checks that records lie at increasing, aligned positions, each inside one segment after its
     * header, without overlapping.
     *
     * @param records the records in append order.
     */
    protected static void assertWellFormed(final List<Read> records) {
        long end = -1;
        for (final Read record : records) {
            final long lsn = record.lsn();
            assertTrue(lsn >= end, "record at " + lsn + " overlaps the previous one ending at " + end);
            assertEquals(0, lsn % FrameDescriptor.FRAME_ALIGNMENT, "unaligned lsn " + lsn);
            final long offset = lsn % SEGMENT_BYTES;
            assertTrue(offset >= SegmentHeaderDescriptor.HEADER_LENGTH, "lsn " + lsn + " inside a segment header");
            assertTrue(
                    offset + FrameDescriptor.frameLength(record.payload().length) <= SEGMENT_BYTES,
                    "record at " + lsn + " crosses a segment end");
            end = lsn + frameSpace(record.payload().length);
        }
    }

    private static void assertCausedBy(final Throwable expectedCause, final Throwable actual) {
        for (Throwable cause = actual; cause != null; cause = cause.getCause()) {
            if (cause == expectedCause) {
                return;
            }
        }
        throw new AssertionError("expected a failure caused by " + expectedCause + " but got " + actual, actual);
    }

    /** Checks that a failed log refuses everything, names the cause and acknowledges nothing more. */
    private static void assertFailedStopped(final Wal wal, final IOException injected, final List<Read> acknowledged) {
        final long lastAcknowledged = acknowledged.get(acknowledged.size() - 1).lsn();
        final long written = wal.writtenPosition();
        final long durable = wal.durablePosition();
        final byte[] payload = bytes(2000, 50);
        final List<Runnable> attempts = List.of(
                () -> wal.append(payload, Durability.BUFFERED),
                () -> wal.append(payload, Durability.SYNCED),
                () -> wal.append(ByteBuffer.wrap(payload), Durability.WRITTEN),
                () -> wal.append(new UnsafeBuffer(payload), 0, payload.length, Durability.BUFFERED),
                () -> wal.appendAsync(payload, Durability.WRITTEN),
                wal::sync,
                () -> wal.truncateBefore(lastAcknowledged),
                () -> wal.await(wal.tailPosition() + 4096, Durability.SYNCED));
        for (int i = 0; i < attempts.size(); i++) {
            final WalException ex =
                    assertThrows(WalException.class, attempts.get(i)::run, "attempt " + i + " on a failed log");
            assertCausedBy(injected, ex);
        }
        assertEquals(Wal.FAILED, wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length));
        assertEquals(written, wal.writtenPosition(), "nothing may be acknowledged after a failure");
        assertEquals(durable, wal.durablePosition(), "nothing may be acknowledged after a failure");
    }

    /** Checks that a recovered log starts with every acknowledged record, followed at most by some unacknowledged ones. */
    private static void assertRecoveredPrefix(
            final List<Read> acknowledged, final List<Read> recovered, final byte[]... unacknowledged) {
        for (int i = 0; i < acknowledged.size(); i++) {
            if (i >= recovered.size() || !acknowledged.get(i).equals(recovered.get(i))) {
                fail("acknowledged record " + i + " of " + acknowledged.size() + " " + acknowledged.get(i)
                        + " was not recovered; found " + (i < recovered.size() ? recovered.get(i) : "the end")
                        + "; recovered " + recovered.size() + " records, the last acknowledged ones "
                        + acknowledged.subList(Math.max(0, i - 2), acknowledged.size()) + ", recovered "
                        + recovered.subList(Math.max(0, Math.min(recovered.size(), i - 2)), recovered.size()));
            }
        }
        int next = 0;
        for (final Read extra : recovered.subList(acknowledged.size(), recovered.size())) {
            while (next < unacknowledged.length && !Arrays.equals(unacknowledged[next], extra.payload())) {
                next++;
            }
            assertTrue(next < unacknowledged.length, "recovered a record that was never appended: " + extra);
            next++;
        }
    }

    private record InvalidSetting(String name, String setting, Consumer<WalConfig.Builder> change) {}

    private static InvalidSetting invalid(
            final String setting, final String description, final Consumer<WalConfig.Builder> change) {
        return new InvalidSetting(setting + " " + description, setting, change);
    }
}
