package io.walden.internal.truncation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.format.SegmentNames;
import io.walden.internal.EngineFixture;
import io.walden.internal.append.AppendPath;
import io.walden.internal.append.FramePublisher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {
    private static final int SEGMENT = EngineFixture.SEGMENT_BYTES;
    private static final byte[] RECORD = new byte[4000];

    @TempDir
    Path tempDir;

    @Test
    void shouldRefuseNegativeArgumentsNamingThem() {
        final WalException size = assertThrows(WalException.class, () -> Retention.checkArgument("maxTotalBytes", -1));
        assertEquals(WalException.ErrorCode.CONFIG, size.errorCode());
        assertEquals("retention maxTotalBytes=-1 is negative; nothing was deleted", size.getMessage());
        assertEquals(
                "retention protectedLsn=-5 is negative; nothing was deleted",
                assertThrows(WalException.class, () -> Retention.checkArgument("protectedLsn", -5))
                        .getMessage());
        Retention.checkArgument("protectedLsn", 0);
    }

    @Test
    void shouldRefuseANullOrNegativeAge() {
        assertEquals(
                "maxAge",
                assertThrows(NullPointerException.class, () -> Retention.checkMaxAge(null))
                        .getMessage());
        final WalException negative =
                assertThrows(WalException.class, () -> Retention.checkMaxAge(Duration.ofSeconds(-1)));
        assertEquals(WalException.ErrorCode.CONFIG, negative.errorCode());
        assertEquals("retention maxAge=PT-1S is negative; pass how long segments may be kept", negative.getMessage());
        Retention.checkMaxAge(Duration.ZERO);
    }

    @Test
    void shouldReadASegmentsModificationTimeAndTakeAMissingOneAsGone() throws IOException {
        final Path segment = Files.createFile(tempDir.resolve("segment"));
        Files.setLastModifiedTime(segment, FileTime.fromMillis(1_000_000));

        assertEquals(1_000_000, Retention.lastModifiedMs(segment));
        assertEquals(-1, Retention.lastModifiedMs(tempDir.resolve("deleted")));
    }

    @Test
    void shouldDeleteTheOldestSegmentsBeyondASizeButNoneAtOrAfterTheProtectedPosition() {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            fillThreeSegments(fixture);
            final Retention retention = new Retention(fixture.holder);

            assertEquals(1, retention.truncateToSize(0, SEGMENT + 100));
            assertFalse(Files.exists(SegmentNames.segmentPath(directory, 0)));
            assertTrue(Files.exists(SegmentNames.segmentPath(directory, SEGMENT)));

            assertEquals(0, retention.truncateToSize(2L * SEGMENT, Long.MAX_VALUE), "two segments fit");
            assertEquals(1, retention.truncateToSize(0, Long.MAX_VALUE), "the segment being written stays");
            assertFalse(Files.exists(SegmentNames.segmentPath(directory, SEGMENT)));
            assertTrue(fixture.state().startPosition() >= 2L * SEGMENT);
        }
    }

    @Test
    void shouldDeleteSegmentsLastWrittenLongerAgoThanAnAge() throws IOException {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            fillThreeSegments(fixture);
            final Retention retention = new Retention(fixture.holder);
            final FileTime anHourAgo = FileTime.from(Instant.now().minus(Duration.ofHours(1)));
            Files.setLastModifiedTime(SegmentNames.segmentPath(directory, 0), anHourAgo);

            assertEquals(1, retention.truncateOlderThan(Duration.ofMinutes(1), Long.MAX_VALUE));
            assertEquals(0, retention.truncateOlderThan(Duration.ofMinutes(1), Long.MAX_VALUE), "the next is young");

            Files.setLastModifiedTime(SegmentNames.segmentPath(directory, SEGMENT), anHourAgo);
            assertEquals(0, retention.truncateOlderThan(Duration.ofMinutes(1), SEGMENT), "protected");
            assertEquals(1, retention.truncateOlderThan(Duration.ofMinutes(1), Long.MAX_VALUE));
        }
    }

    @Test
    void shouldDeleteWholeSegmentsBelowAPosition() {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            fillThreeSegments(fixture);
            final Retention retention = new Retention(fixture.holder);

            assertEquals(0, retention.truncateBefore(SEGMENT - 1), "no segment lies entirely below it");
            assertEquals(2, retention.truncateBefore(2L * SEGMENT + 1));
            assertFalse(Files.exists(SegmentNames.segmentPath(directory, SEGMENT)));
        }
    }

    @Test
    void shouldCheckTheArgumentsBeforeRefusingAClosedLog() {
        final EngineFixture fixture = new EngineFixture(tempDir.resolve("log"));
        final Retention retention = new Retention(fixture.holder);
        fixture.close();

        assertEquals(
                WalException.ErrorCode.CONFIG,
                assertThrows(WalException.class, () -> retention.truncateToSize(-1, 0))
                        .errorCode());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> retention.truncateToSize(0, 0))
                        .errorCode());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> retention.truncateOlderThan(Duration.ZERO, 0))
                        .errorCode());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> retention.truncateBefore(0))
                        .errorCode());
    }

    /** Appends until the log writes its third segment. */
    private static void fillThreeSegments(final EngineFixture fixture) {
        final AppendPath appends = fixture.appendPath();
        while (fixture.state().writtenPosition() < 2L * SEGMENT + 4096 + RECORD.length) {
            appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES);
        }
    }
}
