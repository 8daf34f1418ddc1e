package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.assertWellFormed;
import static io.walden.ContractChecks.awaitCondition;
import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.MAX_RECORD_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.pollAll;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The durability levels: when an append, an await, a future or a sync returns, and what is then durable.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class DurabilityContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected DurabilityContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldMakeASyncedAppendDurableBeforeItReturns() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        for (int i = 0; i < 50; i++) {
            final long lsn = wal.append(bytes(i, 100 + i * 10), Durability.SYNCED);
            assertTrue(wal.durablePosition() > lsn, "durable " + wal.durablePosition() + " after SYNCED lsn " + lsn);
            assertTrue(wal.writtenPosition() > lsn);
            assertTrue(wal.writtenPosition() >= wal.durablePosition());
        }
    }

    @Test
    void shouldMakeAWrittenAppendWrittenBeforeItReturns() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
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
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
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
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
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
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
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
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
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
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
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
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .syncIntervalNs(TimeUnit.MILLISECONDS.toNanos(5))
                .build());
        final long lsn = wal.append(bytes(1, 100), Durability.WRITTEN);
        awaitCondition(() -> wal.durablePosition() > lsn, "the background sync to cover a WRITTEN record");
    }

    @Test
    void shouldCompleteSyncedAppendsWithAGroupWindowAndSmallBatches() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
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
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        long payloadBytes = 0;
        for (int i = 0; i < 60; i++) {
            wal.append(bytes(i, 100 + i), Durability.SYNCED);
            payloadBytes += 100 + i;
        }
        final WalStats stats = wal.stats();
        assertEquals(fixture.newBackend().name(), stats.backend());
        assertEquals(60, stats.appends());
        assertEquals(payloadBytes, stats.appendBytes());
        assertTrue(stats.writes() > 0, stats.toString());
        assertTrue(stats.writeBytes() >= payloadBytes + 60L * FrameDescriptor.HEADER_LENGTH, stats.toString());
        if (!fixture.writesDurable()) {
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

    @Test
    void shouldNameTheRecordsLsnWhenAWaitForItIsInterruptedAndStillMakeItDurable() throws IOException {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        wal.append(bytes(0, 10), Durability.SYNCED);
        // Held so that the record cannot become durable before the wait sees the interrupt: its sync,
        // or, where every write is durable (O_DSYNC), its write.
        final boolean durableWrites = fixture.writesDurable();
        if (durableWrites) {
            backend.holdWrites();
        } else {
            backend.holdSyncs();
        }
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
        if (durableWrites) {
            backend.releaseWrites();
        } else {
            backend.releaseSyncs();
        }
        wal.await(lsn, Durability.SYNCED);
        assertTrue(wal.durablePosition() > lsn);
        final List<Read> read = replayAll(wal);
        assertEquals(new Read(lsn, payload), read.get(read.size() - 1), "the interrupted append is in the log");
    }
}
