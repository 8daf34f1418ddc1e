package io.walden.internal.truncation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.internal.DirectoryLock;
import io.walden.internal.EngineFixture;
import io.walden.internal.LogEngine;
import io.walden.internal.append.AppendPath;
import io.walden.internal.append.FramePublisher;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnlineTruncationTest {
    private static final byte[] RECORD = new byte[100];
    private static final int FRAMED = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(RECORD.length));

    @TempDir
    Path tempDir;

    @Test
    void shouldDiscardTheRecordsAfterOneAndContinueInTheNextSegment() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final long kept = append(appends);
            append(appends);
            append(appends);
            final LogEngine before = fixture.holder.engine();

            final long continueAt = truncation(fixture).truncateAfter(kept);

            assertEquals(EngineFixture.SEGMENT_BYTES + 4096, continueAt, "the first frame of the next segment");
            assertNotSame(before, fixture.holder.engine());
            assertFalse(fixture.holder.isClosed());
            // Discarded: from the kept record's end to the next segment, whose header comes first.
            assertArrayEquals(
                    new long[] {kept + FRAMED, EngineFixture.SEGMENT_BYTES},
                    fixture.state().discardedRanges());
            assertEquals(continueAt, append(appends), "the next record goes where the log continues");
        }
    }

    @Test
    void shouldRefuseAPositionOutsideTheLogChangingNothing() {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            final AppendPath appends = fixture.appendPath();
            final long lsn = append(appends);
            final long tail = fixture.holder.engine().logBuffer().tailPosition();
            final LogEngine engine = fixture.holder.engine();

            final WalException refused =
                    assertThrows(WalException.class, () -> truncation(fixture).truncateAfter(tail));

            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertEquals(
                    "cannot truncate the log in " + directory + " after position " + tail
                            + ": the log holds positions " + fixture.state().startPosition() + " to " + tail
                            + " (use -1 to keep no record); nothing was changed",
                    refused.getMessage());
            assertSame(engine, fixture.holder.engine(), "the engine was not even stopped");
            assertEquals(lsn + FRAMED, append(appends));
        }
    }

    @Test
    void shouldStartTheFilesAgainAsTheyWereWhenNoRecordStartsAtThePosition() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final long lsn = append(appends);
            append(appends);
            final LogEngine before = fixture.holder.engine();

            final WalException refused =
                    assertThrows(WalException.class, () -> truncation(fixture).truncateAfter(lsn + 8));

            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertNotSame(before, fixture.holder.engine(), "the stopped engine was replaced by one on the same files");
            assertFalse(fixture.holder.isClosed());
            assertEquals(0, fixture.state().discardedRanges().length);
            assertTrue(append(appends) > lsn + FRAMED, "the log goes on");
        }
    }

    @Test
    void shouldCloseTheLogWhenTheTruncatedFilesCannotBeStarted() {
        final Path directory = tempDir.resolve("log");
        final EngineFixture fixture = new EngineFixture(directory);
        final AppendPath appends = fixture.appendPath();
        final long lsn = append(appends);
        append(appends);
        fixture.backend.failOpensAfter(0);

        final WalException failed =
                assertThrows(WalException.class, () -> truncation(fixture).truncateAfter(lsn));

        assertEquals(WalException.ErrorCode.IO, failed.errorCode());
        assertEquals(
                "truncating the log in " + directory + " after position " + lsn
                        + " failed: java.io.IOException: the test backend opens no more sessions The log is closed;"
                        + " reopen it (the open recovers it either as it was or truncated).",
                failed.getMessage());
        assertTrue(fixture.holder.isClosed());
        assertSame(failed, fixture.state().failure());
        assertEquals(
                WalException.ErrorCode.CLOSED,
                assertThrows(WalException.class, () -> truncation(fixture).truncateAfter(lsn))
                        .errorCode());
        DirectoryLock.acquire(directory).close();
        fixture.close();
    }

    @Test
    void shouldRefuseAClosedLog() {
        final EngineFixture fixture = new EngineFixture(tempDir.resolve("log"));
        fixture.close();

        final WalException refused =
                assertThrows(WalException.class, () -> truncation(fixture).truncateAfter(SuffixTruncation.KEEP_NONE));

        assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
    }

    private static OnlineTruncation truncation(final EngineFixture fixture) {
        return new OnlineTruncation(fixture.config, fixture.backend, fixture.holder, fixture.stats);
    }

    private static long append(final AppendPath appends) {
        return appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES);
    }
}
