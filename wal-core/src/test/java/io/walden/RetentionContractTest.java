package io.walden;

import static io.walden.ContractChecks.appendSegments;
import static io.walden.ContractChecks.firstLsnAtOrAfter;
import static io.walden.ContractChecks.recordsFrom;
import static io.walden.ContractChecks.segmentBases;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentNames;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retention: truncateBefore, by size and by age.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class RetentionContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected RetentionContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldTruncateWholeSegmentsOnlyAndNeverTheActiveOne() throws IOException {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
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
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
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
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
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
        final Path directory = fixture.logDirectory();
        final List<Read> expected;
        final long startPosition;
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            expected = appendSegments(wal, 3.5);
            assertEquals(3, wal.truncateBefore(firstLsnAtOrAfter(expected, 3L * SEGMENT_BYTES)));
            startPosition = wal.startPosition();
            assertEquals(3L * SEGMENT_BYTES, startPosition);
        }
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertEquals(startPosition, wal.startPosition());
            assertEquals(startPosition, wal.recoveryReport().startPosition());
            assertEquals(recordsFrom(expected, startPosition), replayAll(wal));
            final WalException ex = assertThrows(
                    WalException.class, () -> wal.reader(expected.get(0).lsn()));
            assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
            assertTrue(ex.getMessage().contains(String.valueOf(startPosition)), ex.getMessage());
        }
    }
}
