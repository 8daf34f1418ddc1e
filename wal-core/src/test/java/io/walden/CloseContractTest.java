package io.walden;

import static io.walden.ContractChecks.awaitCondition;
import static io.walden.ContractChecks.fillBuffer;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing and the directory lock.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class CloseContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected CloseContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldCloseIdempotently() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        wal.append(bytes(1, 10), Durability.SYNCED);
        wal.close();
        wal.close();
        wal.close();
    }

    @Test
    void shouldDrainBufferedAppendsOnCloseSoThatReopeningFindsThemAll() {
        final Path directory = fixture.logDirectory();
        final List<Read> expected = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(3);
        final Wal wal = fixture.open(fixture.config(directory).build());
        for (int i = 0; i < 3000; i++) {
            final byte[] payload = bytes(i, random.nextInt(0, 600));
            expected.add(new Read(wal.append(payload, Durability.BUFFERED), payload));
        }
        wal.close();
        assertTrue(wal.durablePosition() > expected.get(expected.size() - 1).lsn());
        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertEquals(expected.size(), reopened.recoveryReport().records());
            assertEquals(expected, replayAll(reopened));
        }
    }

    @Test
    void shouldDrainTheFullBufferWhenClosedWhileTheDeviceStalls() throws InterruptedException {
        final Path directory = fixture.logDirectory();
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(fixture.config(directory).backend(backend).build());
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

        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertEquals(expected, replayAll(reopened));
        }
    }

    @Test
    void shouldRefuseEveryAppendAfterCloseWithErrorCodeClosed() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
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
        final Path directory = fixture.logDirectory();
        final Wal first = fixture.open(fixture.config(directory).build());
        final long firstLsn = first.append(bytes(1, 10), Durability.SYNCED);
        final WalException ex = assertThrows(
                WalException.class, () -> fixture.open(fixture.config(directory).build()));
        assertEquals(WalException.ErrorCode.LOCKED, ex.errorCode(), ex.getMessage());
        assertTrue(ex.getMessage().contains(directory.toString()), ex.getMessage());

        final long secondLsn = first.append(bytes(2, 10), Durability.SYNCED);
        first.close();
        try (Wal second = fixture.open(fixture.config(directory).build())) {
            assertEquals(
                    List.of(new Read(firstLsn, bytes(1, 10)), new Read(secondLsn, bytes(2, 10))), replayAll(second));
        }
    }
}
