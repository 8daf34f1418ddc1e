package io.walden.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalReader;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.WriteLimits;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import io.walden.testing.LogImages;
import io.walden.testing.TestFiles;
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
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The segment lifecycle contract, over a storage backend: a crash costs no new segment (the log
 * continues at the crashed segment's write limit), the write limit always covers what was written,
 * and a lost newest segment is refused, never silently replaced.
 */
public abstract class SegmentLifecycleContractTest {
    private static final int SEGMENT_BYTES = 256 * 1024;
    private static final int BUFFER_BYTES = 64 * 1024;
    private static final int CRASH_CYCLES = 12;
    private static final int RECORDS_PER_CYCLE = 5;

    private Path root;

    /**
     * The backend under test; a new instance per call.
     *
     * @return the backend.
     */
    protected abstract StorageBackend newBackend();

    @BeforeEach
    void createRoot() throws IOException {
        root = Files.createDirectories(Path.of("target", "lifecycle-" + System.nanoTime()));
    }

    @AfterEach
    void deleteRoot() throws IOException {
        TestFiles.deleteRecursively(root);
    }

    @Test
    void aCrashLoopKeepsTheLogInItsFirstSegmentAndLosesNothing() throws IOException {
        final List<byte[]> expected = new ArrayList<>();
        final List<Long> lsns = new ArrayList<>();
        Path current = root.resolve("cycle-0");
        for (int cycle = 0; cycle < CRASH_CYCLES; cycle++) {
            final Path live = root.resolve("live-" + cycle);
            if (cycle > 0) {
                copyDirectory(current, live);
            }
            try (Wal wal = Wal.open(config(live))) {
                for (int i = 0; i < RECORDS_PER_CYCLE; i++) {
                    final byte[] payload = payload(cycle * 100 + i, 100);
                    lsns.add(wal.append(payload, Durability.SYNCED));
                    expected.add(payload);
                }
                current = root.resolve("cycle-" + (cycle + 1));
                LogImages.crashImage(live, current);
            }
        }
        for (int i = 1; i < lsns.size(); i++) {
            assertTrue(lsns.get(i) > lsns.get(i - 1), "positions only grow: " + lsns);
        }
        assertTrue(
                lsns.get(lsns.size() - 1) < SEGMENT_BYTES,
                CRASH_CYCLES + " crashes moved the log out of its first segment: " + lsns);
        try (Wal wal = Wal.open(config(current))) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(expected.size(), report.records(), report::summary);
            final List<byte[]> read = readAll(wal);
            assertEquals(expected.size(), read.size());
            for (int i = 0; i < read.size(); i++) {
                assertTrue(Arrays.equals(expected.get(i), read.get(i)), "record " + i);
            }
        }
        final long segmentFiles = LogImages.segmentFiles(current).size();
        assertTrue(segmentFiles <= 3, "after " + CRASH_CYCLES + " crashes the log has " + segmentFiles + " segments");
    }

    @Test
    void theActiveSegmentsWriteLimitAlwaysCoversWhatWasWritten() throws IOException {
        final Path directory = root.resolve("log");
        try (Wal wal = Wal.open(config(directory))) {
            long lastEnd = 0;
            int raisesSeen = 0;
            int lastLimit = writeLimit(SegmentNames.segmentPath(directory, 0));
            assertTrue(lastLimit > 0 && lastLimit < SEGMENT_BYTES, "a new log's segment has a limit: " + lastLimit);
            for (int i = 0; i < 200 && lastEnd < SEGMENT_BYTES - 8192; i++) {
                final long lsn = wal.append(payload(i, 1000), Durability.WRITTEN);
                lastEnd = lsn + 1016;
                final int limit = writeLimit(SegmentNames.segmentPath(directory, 0));
                assertTrue(
                        lastEnd <= limit,
                        "record " + i + " ends at " + lastEnd + ", past the header's write limit " + limit);
                raisesSeen += limit != lastLimit ? 1 : 0;
                lastLimit = limit;
            }
            assertTrue(raisesSeen >= 3, "the limit was raised as the log grew: " + raisesSeen);
        }
    }

    @Test
    void aLimitAnEarlierSessionLeftIsWithdrawnWhenTheNewSessionHasNoRoomForOne() throws IOException {
        // A session continues at a limit within a window of the segment's end, where it has no room for
        // a limit of its own: it then writes up to the end, so the old limit must not survive in the
        // header, or a crash that loses its writes would give their positions out again. (Found by the
        // power-loss property suite.)
        final int capacity = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        final int lateLimit = capacity - WriteLimits.windowBytes(capacity);
        final Path live = root.resolve("live");
        final Path first = root.resolve("first");
        try (Wal wal = Wal.open(smallConfig(live, capacity))) {
            wal.append(payload(1, 100), Durability.SYNCED);
            LogImages.crashImage(live, first);
        }
        final Path segment = SegmentNames.segmentPath(first, 0);
        setWriteLimit(segment, lateLimit);

        final Path second = root.resolve("second");
        final long lsn;
        try (Wal wal = Wal.open(smallConfig(first, capacity))) {
            assertEquals(lateLimit, wal.recoveryReport().endPosition(), wal.recoveryReport()::summary);
            lsn = wal.append(payload(2, 100), Durability.WRITTEN);
            assertEquals(lateLimit, lsn);
            LogImages.crashImage(first, second);
        }
        // The power fails before the page with the record reaches the disk: possible only where a
        // written record is not durable yet. With O_DSYNC it is (the header may already say so, once
        // the log went idle), and losing it would be a device that lies: the record then stays.
        if (!writesDurable()) {
            try (FileChannel channel =
                    FileChannel.open(SegmentNames.segmentPath(second, 0), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(4096), lsn);
            }
        }
        try (Wal wal = Wal.open(smallConfig(second, capacity))) {
            assertTrue(
                    wal.recoveryReport().endPosition() > lsn,
                    "the position " + lsn + " a reader may have seen is given out again: "
                            + wal.recoveryReport().summary());
        }
    }

    @Test
    void aLostNewestSegmentAfterACleanCloseIsRefusedAndChangesNothing() throws IOException {
        final Path directory = root.resolve("log");
        writeThreeSegments(directory);
        final List<Path> segments = LogImages.segmentFiles(directory);
        final Path newestWithData = newestWithData(segments);
        deleteFrom(segments, newestWithData);
        assertLostSegmentRefused(directory, newestWithData);
    }

    @Test
    void aLostNewestSegmentAfterACrashIsRefused() throws IOException {
        final Path live = root.resolve("live");
        final Path image = root.resolve("image");
        try (Wal wal = Wal.open(config(live))) {
            for (int i = 0; i < 300; i++) {
                wal.append(payload(i, 2000), Durability.WRITTEN);
            }
            wal.sync();
            LogImages.crashImage(live, image);
        }
        final List<Path> segments = LogImages.segmentFiles(image);
        final Path newestWithData = newestWithData(segments);
        deleteFrom(segments, newestWithData);
        assertLostSegmentRefused(image, newestWithData);
    }

    @Test
    void deletingTheUnusedPreparedSegmentLosesNothing() throws IOException {
        final Path directory = root.resolve("log");
        final int records = writeThreeSegments(directory);
        final List<Path> segments = LogImages.segmentFiles(directory);
        final Path newestWithData = newestWithData(segments);
        assertTrue(!segments.get(segments.size() - 1).equals(newestWithData), "a prepared segment follows");
        Files.delete(segments.get(segments.size() - 1));
        try (Wal wal = Wal.open(config(directory))) {
            assertEquals(records, wal.recoveryReport().records(), wal.recoveryReport()::summary);
        }
    }

    private void assertLostSegmentRefused(final Path directory, final Path lost) throws IOException {
        final Map<String, String> before = TestFiles.contents(directory);
        final WalCorruptionException ex = assertThrows(
                WalCorruptionException.class, () -> Wal.open(config(directory)).close());
        assertTrue(ex.getMessage().contains("lost segment"), ex.getMessage());
        assertTrue(ex.getMessage().contains(lost.getFileName().toString()), ex.getMessage());
        assertEquals(before, TestFiles.contents(directory), "a refused open changes nothing");
        final LogInspection inspection = Wal.inspect(directory);
        assertEquals(LogInspection.Verdict.CORRUPTION, inspection.verdict());
    }

    /** Appends records over three segments and closes cleanly; the next segment is prepared. */
    private int writeThreeSegments(final Path directory) throws IOException {
        int records = 0;
        try (Wal wal = Wal.open(config(directory))) {
            while (wal.writtenPosition() < 2L * SEGMENT_BYTES + SEGMENT_BYTES / 2) {
                wal.append(payload(records++, 2000), Durability.WRITTEN);
            }
            wal.sync();
            // Wait for the next segment's preparation, so that the newest file holds no data.
            final long deadlineNs = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(SegmentNames.segmentPath(directory, 3L * SEGMENT_BYTES))) {
                assertTrue(System.nanoTime() < deadlineNs, "segment 3 was never prepared");
                LockSupport.parkNanos(1_000_000L);
            }
        }
        return records;
    }

    private static Path newestWithData(final List<Path> segments) throws IOException {
        Path newest = null;
        for (final Path segment : segments) {
            final byte[] firstFrame = new byte[8];
            try (FileChannel channel = FileChannel.open(segment)) {
                channel.read(ByteBuffer.wrap(firstFrame), SegmentHeaderDescriptor.HEADER_LENGTH);
            }
            if (!Arrays.equals(firstFrame, new byte[8])) {
                newest = segment;
            }
        }
        return newest;
    }

    private static void deleteFrom(final List<Path> segments, final Path first) throws IOException {
        boolean deleting = false;
        for (final Path segment : segments) {
            deleting |= segment.equals(first);
            if (deleting) {
                Files.delete(segment);
            }
        }
    }

    private static int writeLimit(final Path segment) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment)) {
            channel.read(header, 0);
        }
        return header.getInt(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET);
    }

    /** Whether the backend under test makes every write durable by itself (O_DSYNC). */
    private boolean writesDurable() throws IOException {
        final Path probe = Files.createDirectories(root.resolve("writes-durable-probe"));
        try (StorageSession session = newBackend().open(probe, () -> {})) {
            return session.capabilities().writesDurable();
        }
    }

    private WalConfig smallConfig(final Path directory, final int capacity) {
        return WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(capacity)
                .syncIntervalNs(0)
                .build();
    }

    /** Rewrites a segment header's write limit, checksum included, as a session that raised it would. */
    private static void setWriteLimit(final Path segment, final int limit) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.read(header, 0);
            SegmentHeaders.writeLimitAndContinued(header, limit, false);
            header.clear();
            channel.write(header, 0);
        }
    }

    private WalConfig config(final Path directory) {
        return WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(BUFFER_BYTES)
                .maxRecordBytes(16 * 1024)
                .syncIntervalNs(0)
                .build();
    }

    private static List<byte[]> readAll(final Wal wal) {
        final List<byte[]> read = new ArrayList<>();
        try (WalReader reader = wal.reader(wal.startPosition())) {
            while (reader.poll(
                            (buffer, offset, length, lsn) -> {
                                final byte[] bytes = new byte[length];
                                buffer.getBytes(offset, bytes);
                                read.add(bytes);
                            },
                            100)
                    > 0) {
                // drain
            }
        }
        return read;
    }

    private static byte[] payload(final int seed, final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i);
        }
        return bytes;
    }

    private static void copyDirectory(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, to.resolve(file.getFileName()));
                }
            }
        }
    }
}
