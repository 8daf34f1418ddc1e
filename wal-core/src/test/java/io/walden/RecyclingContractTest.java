package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.drain;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.WriteLimits;
import io.walden.testing.LogImages;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Recycled segments ({@link WalConfig.Builder#recycledSegmentsMax}): retention keeps freed files and
 * the log reuses them as its next segments without zero-filling them; their stale frames never come
 * back, after a clean close or after a crash.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class RecyclingContractTest {
    private static final int RECORD_BYTES = 3000;

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected RecyclingContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    /** A log of six segments' worth of records, whose three oldest segments retention freed. */
    private final class RecycledLog {
        final Path directory = fixture.logDirectory();
        final List<Read> retained = new ArrayList<>();
        final List<Object> freedKeys = new ArrayList<>();
        int next;

        Wal open() {
            return fixture.open(fixture.config(directory).recycledSegmentsMax(2).build());
        }

        /** Appends until the log's end lies past a position. */
        void appendPast(final Wal wal, final long position, final Durability durability) {
            while (retained.isEmpty() || retained.get(retained.size() - 1).lsn() < position) {
                final byte[] payload = bytes(next++, RECORD_BYTES);
                retained.add(new Read(wal.append(payload, durability), payload));
            }
        }

        /** Fills six segments and frees the three oldest; two are kept for reuse. */
        void fillAndFree(final Wal wal) throws IOException {
            appendPast(wal, 6L * SEGMENT_BYTES, Durability.WRITTEN);
            wal.sync();
            for (int i = 0; i < 2; i++) {
                freedKeys.add(fileKey(SegmentNames.segmentPath(directory, (long) i * SEGMENT_BYTES)));
            }
            wal.truncateBefore(3L * SEGMENT_BYTES);
            retained.removeIf(read -> read.lsn() < 3L * SEGMENT_BYTES);
            assertEquals(2, freeFiles(directory).size(), () -> "free files: " + freeFiles(directory));
        }
    }

    @Test
    void retentionKeepsFreedSegmentsThatBecomeTheNextOnesAndEveryRecordReadsBack() throws IOException {
        final RecycledLog log = new RecycledLog();
        try (Wal wal = log.open()) {
            log.fillAndFree(wal);
            // The next segment was prepared (zero-filled) before the truncation; the two after it are
            // made from the freed files.
            log.appendPast(wal, 10L * SEGMENT_BYTES, Durability.SYNCED);
            assertEquals(2, wal.stats().segmentsRecycled(), wal.stats()::toString);
            assertEquals(List.of(), freeFiles(log.directory));
            final List<Object> reusedKeys = new ArrayList<>();
            for (long base = 7L * SEGMENT_BYTES; base <= 10L * SEGMENT_BYTES; base += SEGMENT_BYTES) {
                final Path segment = SegmentNames.segmentPath(log.directory, base);
                if (recycled(segment)) {
                    reusedKeys.add(fileKey(segment));
                }
            }
            assertEquals(log.freedKeys, reusedKeys, "the recycled segments are the freed files, oldest first");
            assertEquals(log.retained, replayAll(wal));
        }
        try (Wal wal = log.open()) {
            final RecoveryReport report = wal.recoveryReport();
            assertTrue(report.closedCleanly(), report::summary);
            assertEquals(log.retained.size(), report.records(), report::summary);
            assertEquals(List.of(), report.evidence(), report::summary);
            assertEquals(log.retained, replayAll(wal));
            log.appendPast(wal, wal.writtenPosition() + SEGMENT_BYTES / 2, Durability.SYNCED);
            assertEquals(log.retained, replayAll(wal));
        }
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(log.directory).verdict());
    }

    @Test
    void aCrashInARecycledSegmentKeepsEveryAcknowledgedRecordAndGivesUpOnlyItsWindow() throws IOException {
        final RecycledLog log = new RecycledLog();
        final Path image = log.directory.resolveSibling("crashed");
        final long crashedIn;
        try (Wal wal = log.open()) {
            log.fillAndFree(wal);
            // Into the first recycled segment, a third of the way: the limit was raised past its first
            // window, so stale bytes lie between the last write and the limit.
            log.appendPast(wal, 8L * SEGMENT_BYTES + SEGMENT_BYTES / 3, Durability.SYNCED);
            crashedIn = log.retained.get(log.retained.size() - 1).lsn() & -(long) SEGMENT_BYTES;
            assertTrue(
                    recycled(SegmentNames.segmentPath(log.directory, crashedIn)), "the log writes a recycled segment");
            LogImages.crashImage(log.directory, image);
        }
        try (Wal wal = fixture.open(fixture.config(image).recycledSegmentsMax(2).build())) {
            final RecoveryReport report = wal.recoveryReport();
            assertEquals(log.retained, replayAll(wal), report::summary);
            final long lastEnd = log.retained.get(log.retained.size() - 1).lsn() + RECORD_BYTES;
            // The log goes on in the same segment, at most its limit's distance past the last record:
            // WriteLimits' bound, max(window, twice what was written in the segment) plus the alignment
            // (how far the limit was raised depends on how the writes were grouped).
            assertEquals(crashedIn, report.endPosition() & -(long) SEGMENT_BYTES, report::summary);
            final long givenUpBoundBytes =
                    Math.max(WriteLimits.windowBytes(SEGMENT_BYTES), 2 * (lastEnd - crashedIn)) + WriteLimits.ALIGNMENT;
            assertTrue(report.endPosition() - lastEnd <= givenUpBoundBytes, report::summary);
            final byte[] payload = bytes(99_999, RECORD_BYTES);
            log.retained.add(new Read(wal.append(payload, Durability.SYNCED), payload));
            assertEquals(log.retained, replayAll(wal));
        }
        try (Wal wal = fixture.open(fixture.config(image).recycledSegmentsMax(2).build())) {
            assertTrue(wal.recoveryReport().closedCleanly(), wal.recoveryReport()::summary);
            assertEquals(log.retained, replayAll(wal));
        }
    }

    @Test
    void aReadOnlyViewFollowsTheLogAcrossRecycledSegmentsAndAClosedOneReadsEveryRecord() throws IOException {
        final RecycledLog log = new RecycledLog();
        try (Wal wal = log.open()) {
            log.fillAndFree(wal);
            try (WalView view = Wal.openReadOnly(log.directory);
                    WalReader written = view.reader(view.startPosition(), Durability.WRITTEN);
                    WalReader durable = view.reader(view.startPosition(), Durability.SYNCED)) {
                final List<Read> seenWritten = new ArrayList<>();
                final List<Read> seenDurable = new ArrayList<>();
                for (long until = 7L * SEGMENT_BYTES; until <= 10L * SEGMENT_BYTES; until += SEGMENT_BYTES / 2) {
                    // A mix of levels, so that the limit's raises wait for syncs of their own.
                    log.appendPast(wal, until, LEVELS[(int) (until / (SEGMENT_BYTES / 2)) % LEVELS.length]);
                    wal.sync();
                    drain(written, seenWritten, log.retained.size());
                    drain(durable, seenDurable, log.retained.size());
                }
                assertEquals(2, wal.stats().segmentsRecycled(), wal.stats()::toString);
                assertEquals(log.retained, seenWritten, "every record once, in order, intact (WRITTEN)");
                assertEquals(log.retained, seenDurable, "every record once, in order, intact (SYNCED)");
            }
        }
        try (WalView view = Wal.openReadOnly(log.directory);
                WalReader reader = view.reader(view.startPosition(), Durability.SYNCED)) {
            final List<Read> seen = new ArrayList<>();
            drain(reader, seen, log.retained.size());
            assertEquals(log.retained, seen);
            assertEquals(LogInspection.Verdict.CLEAN, view.inspect().verdict());
        }
    }

    @Test
    void truncateAfterInARecycledSegmentPastItsFirstWindowLeavesALogThatOpens() throws IOException {
        final RecycledLog log = new RecycledLog();
        try (Wal wal = log.open()) {
            log.fillAndFree(wal);
            // Half way into the first recycled segment: its limit was raised past the zeroed first
            // window, so stale bytes lie between the last frame and the limit.
            log.appendPast(wal, 8L * SEGMENT_BYTES + SEGMENT_BYTES / 2, Durability.WRITTEN);
            final long base = log.retained.get(log.retained.size() - 1).lsn() & -(long) SEGMENT_BYTES;
            assertTrue(recycled(SegmentNames.segmentPath(log.directory, base)), "the log writes a recycled segment");
            final int keep = log.retained.size() - 5;
            wal.truncateAfter(log.retained.get(keep - 1).lsn());
            log.retained.subList(keep, log.retained.size()).clear();
            assertEquals(log.retained, replayAll(wal));
            log.appendPast(wal, wal.writtenPosition() + SEGMENT_BYTES / 4, Durability.SYNCED);
        }
        try (Wal wal = log.open()) {
            assertTrue(wal.recoveryReport().closedCleanly(), wal.recoveryReport()::summary);
            assertEquals(log.retained, replayAll(wal));
        }
        // And on the closed log, in the segment it now writes.
        final int keep = log.retained.size() - 3;
        Wal.truncateAfter(
                fixture.config(log.directory).recycledSegmentsMax(2).build(),
                log.retained.get(keep - 1).lsn());
        log.retained.subList(keep, log.retained.size()).clear();
        try (Wal wal = log.open()) {
            assertEquals(log.retained, replayAll(wal), wal.recoveryReport()::summary);
        }
        assertEquals(LogInspection.Verdict.CLEAN, Wal.inspect(log.directory).verdict());
    }

    private static boolean recycled(final Path segment) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            channel.read(header, 0);
        }
        return SegmentHeaderDecoder.recycled(header);
    }

    private static Object fileKey(final Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    private static List<Path> freeFiles(final Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path ->
                            SegmentNames.parseFreeName(path.getFileName().toString()) >= 0)
                    .sorted()
                    .toList();
        } catch (final IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
