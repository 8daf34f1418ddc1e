package io.walden.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.internal.EngineFixture;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.WaitFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppendWaitsTest {
    private static final byte[] RECORD = new byte[100];

    @TempDir
    Path tempDir;

    @Test
    void shouldSayAnInterruptedWaitLeavesTheRecordToBeWritten() {
        final WalException cause =
                new WalException(WalException.ErrorCode.INTERRUPTED, "interrupted while waiting for position 4197");

        final WalException unknown = WaitFailure.outcomeUnknown(cause, 4096, Durability.SYNCED);

        assertEquals(WalException.ErrorCode.INTERRUPTED, unknown.errorCode());
        assertEquals(4096, unknown.lsn());
        assertSame(cause, unknown.getCause());
        assertEquals(
                "interrupted while waiting for the record at LSN 4096 to be SYNCED: the record is in the log and"
                        + " will be written and synced unless the log fails; call await(4096, SYNCED) to learn when",
                unknown.getMessage());
        assertEquals(
                "interrupted while waiting for the record at LSN 4096 to be WRITTEN: the record is in the log and"
                        + " will be written unless the log fails; call await(4096, WRITTEN) to learn when",
                WaitFailure.outcomeUnknown(cause, 4096, Durability.WRITTEN).getMessage());
    }

    @Test
    void shouldSayAFailedWaitLeavesTheRecordsFateUnknown() {
        final WalException cause = new WalException(WalException.ErrorCode.IO, "the log failed.");

        final WalException unknown = WaitFailure.outcomeUnknown(cause, 8192, Durability.WRITTEN);

        assertEquals(WalException.ErrorCode.IO, unknown.errorCode());
        assertEquals(8192, unknown.lsn());
        assertEquals(
                "the log failed. The record at LSN 8192 was appended before that; whether it reached the disk is"
                        + " unknown: reopen the log and read it to find out.",
                unknown.getMessage());
    }

    @Test
    void shouldWaitForEachLevel() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendWaits waits = new AppendWaits(fixture.holder);
            final long lsn = publish(fixture);

            waits.await(lsn, Durability.BUFFERED);
            waits.await(lsn, Durability.WRITTEN);
            assertTrue(fixture.state().writtenPosition() > lsn);
            waits.await(lsn, Durability.SYNCED);
            assertTrue(fixture.state().durablePosition() > lsn);
            assertTrue(waits.await(lsn, Durability.SYNCED, 0));
        }
    }

    @Test
    void shouldReportATimeoutForAPositionNotReached() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendWaits waits = new AppendWaits(fixture.holder);
            final long beyond = fixture.holder.engine().logBuffer().tailPosition() + 4096;

            assertFalse(waits.await(beyond, Durability.WRITTEN, TimeUnit.MILLISECONDS.toNanos(1)));
        }
    }

    @Test
    void shouldRefuseAWaitThatOutlastsTheAppendTimeoutWhileTheLogWaitsForSpaceNamingTheRecord() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendWaits waits = new AppendWaits(fixture.holder, TimeUnit.MILLISECONDS.toNanos(20));
            // A record no write can reach yet, as one claimed past the end of a segment whose successor
            // cannot be prepared.
            final long beyond = fixture.holder.engine().logBuffer().tailPosition() + 4096;
            fixture.state().spaceShortage("the next segment cannot be prepared: the file system is full");

            // Preemptively bounded: a wait that ignores the shortage would never end.
            final WalException refused = assertTimeoutPreemptively(
                    Duration.ofSeconds(30),
                    () -> assertThrows(
                            WalException.class,
                            () -> waits.awaitAppended(
                                    fixture.holder.engine(), beyond, AppendWaits.NO_FRAME_END, Durability.WRITTEN, 0)));
            assertEquals(WalException.ErrorCode.STORAGE_SPACE, refused.errorCode());
            assertEquals(beyond, refused.lsn(), "the record is in the log");
            assertTrue(refused.getMessage().contains("the file system is full"), refused.getMessage());
            assertTrue(refused.getMessage().contains("will be written once there is space"), refused.getMessage());
        }
    }

    @Test
    void shouldSyncEverythingAppendedBefore() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendWaits waits = new AppendWaits(fixture.holder);
            publish(fixture);
            publish(fixture);
            final long tail = fixture.holder.engine().logBuffer().tailPosition();

            waits.sync();

            assertTrue(fixture.state().durablePosition() >= tail);
        }
    }

    @Test
    void shouldRefuseAWaitBeyondTheEndOfAClosedLogNamingTheRecord() {
        final EngineFixture fixture = new EngineFixture(tempDir.resolve("log"));
        final AppendWaits waits = new AppendWaits(fixture.holder);
        fixture.close();
        final long tail = fixture.holder.engine().logBuffer().tailPosition();

        final WalException refused = assertThrows(WalException.class, () -> waits.await(tail, Durability.WRITTEN));

        assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
        assertEquals(tail, refused.lsn());
        assertEquals(
                "the log is closed and ends at position " + tail + " before position " + (tail + 1)
                        + " The record at LSN " + tail + " was appended before that; whether it reached the disk"
                        + " is unknown: reopen the log and read it to find out.",
                refused.getMessage());
        assertEquals(
                "the log in " + fixture.config.directory() + " is closed",
                assertThrows(WalException.class, waits::sync).getMessage());
    }

    @Test
    void shouldRefuseANullLevel() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            assertEquals(
                    WalException.ErrorCode.CONFIG,
                    assertThrows(WalException.class, () -> new AppendWaits(fixture.holder).await(0, null))
                            .errorCode());
        }
    }

    /** Claims and publishes a record in the current engine, waiting for nothing. */
    private static long publish(final EngineFixture fixture) {
        final LogBuffer buffer = fixture.holder.engine().logBuffer();
        final long lsn = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(RECORD.length)));
        buffer.publish(lsn, RECORD, 0, RECORD.length);
        return lsn;
    }
}
