package io.walden;

import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * What the contract suite's tests share: small sizes, the backend under test, logs opened through {@link #open} and closed after each test, and the waits and checks the topics use.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ContractSupport extends BatchContractTest {
    /** Segment capacity used by most tests: small, so that tests roll segments cheaply. */
    protected static final int SEGMENT_BYTES = 256 * 1024;
    /** Log buffer capacity used by most tests. */
    protected static final int BUFFER_BYTES = 64 * 1024;
    /** Largest record used by most tests. */
    protected static final int MAX_RECORD_BYTES = 16 * 1024;
    /** Bound of every wait for something that must happen. */
    protected static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    static final Durability[] LEVELS = Durability.values();

    final List<Wal> openLogs = new ArrayList<>();
    final List<ControllableBackend> controllables = new ArrayList<>();

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

    /** Appends SYNCED records of 8 KiB (several segments' worth), closes the log, returns their LSNs. */
    long[] closedLogOf(final Path directory, final int count) {
        final long[] lsns = new long[count];
        try (Wal wal = Wal.open(config(directory).build())) {
            for (int i = 0; i < count; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
            }
        }
        return lsns;
    }

    void assertHoldsExactly(final Wal wal, final long[] lsns, final int keptCount) {
        final List<TestRecords.Read> records = replayAll(wal);
        assertEquals(keptCount, records.size(), "records after the truncation");
        for (int i = 0; i < keptCount; i++) {
            assertEquals(lsns[i], records.get(i).lsn());
            assertArrayEquals(TestRecords.bytes(i, 8 * 1024), records.get(i).payload());
        }
    }

    /**
     * Writes the record of a suffix truncation that began and was interrupted (FORMAT.md, "Suffix
     * truncation"), encoded here from the published layout: the log as it was, plus the record.
     */
    static void writePendingTruncation(final Path directory, final long cut, final long continueAt) throws IOException {
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

    /** Appends 8 KiB records to an open log, SYNCED, and returns their LSNs. */
    static long[] appendRecords(final Wal wal, final int count) {
        final long[] lsns = new long[count];
        for (int i = 0; i < count; i++) {
            lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
        }
        return lsns;
    }

    static List<Long> lsnsOf(final List<TestRecords.Read> records) {
        return records.stream().map(TestRecords.Read::lsn).collect(Collectors.toList());
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

    static void drain(final WalReader reader, final List<Read> seen, final int expectedCount) {
        final long deadlineNs = System.nanoTime() + WAIT_NS;
        while (seen.size() < expectedCount && System.nanoTime() - deadlineNs < 0) {
            reader.poll(collect(seen), 1000, TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertEquals(expectedCount, seen.size(), "records delivered");
    }

    static RecordHandler collect(final List<Read> into) {
        return (buffer, offset, length, lsn) -> {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            into.add(new Read(lsn, bytes));
        };
    }

    static void awaitCompletion(final StorageSession session, final long[] completion, final IOException[] failure) {
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

    static int frameSpace(final int payloadLength) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadLength));
    }

    /** Fills the log buffer with tryAppend while the device holds writes; returns the LSNs. */
    static List<Long> fillBuffer(final Wal wal, final byte[] payload) {
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
    static List<Read> appendSegments(final Wal wal, final double segments) {
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; wal.tailPosition() < (long) (segments * SEGMENT_BYTES); i++) {
            final byte[] payload = bytes(i, 1000);
            expected.add(new Read(wal.append(payload, i % 50 == 0 ? Durability.SYNCED : Durability.BUFFERED), payload));
        }
        wal.sync();
        return expected;
    }

    static long firstLsnAtOrAfter(final List<Read> records, final long position) {
        return records.stream()
                .mapToLong(Read::lsn)
                .filter(lsn -> lsn >= position)
                .findFirst()
                .orElseThrow();
    }

    static List<Read> recordsFrom(final List<Read> records, final long position) {
        return records.stream().filter(r -> r.lsn() >= position).collect(Collectors.toList());
    }

    static List<Long> segmentBases(final Path directory) throws IOException {
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

    static void assertCausedBy(final Throwable expectedCause, final Throwable actual) {
        for (Throwable cause = actual; cause != null; cause = cause.getCause()) {
            if (cause == expectedCause) {
                return;
            }
        }
        throw new AssertionError("expected a failure caused by " + expectedCause + " but got " + actual, actual);
    }

    /** Checks that a failed log refuses everything, names the cause and acknowledges nothing more. */
    static void assertFailedStopped(final Wal wal, final IOException injected, final List<Read> acknowledged) {
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
    static void assertRecoveredPrefix(
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

    record InvalidSetting(String name, String setting, Consumer<WalConfig.Builder> change) {}

    static InvalidSetting invalid(
            final String setting, final String description, final Consumer<WalConfig.Builder> change) {
        return new InvalidSetting(setting + " " + description, setting, change);
    }
}
