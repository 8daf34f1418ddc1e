package io.walden;

import static io.walden.ContractChecks.assertCausedBy;
import static io.walden.ContractChecks.assertFailedStopped;
import static io.walden.ContractChecks.assertRecoveredPrefix;
import static io.walden.ContractChecks.awaitCondition;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fail-stop: a failed sync or write fails the log, and nothing is acknowledged after it.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class FailStopContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected FailStopContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldFailStopWhenASyncFailsAndRecoverEveryAcknowledgedRecord() throws Exception {
        final Path directory = fixture.logDirectory();
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(directory).backend(backend).syncIntervalNs(0).build());
        final List<Read> acknowledged = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            final byte[] payload = bytes(i, 100 + i);
            acknowledged.add(new Read(wal.append(payload, i < 20 ? Durability.SYNCED : Durability.WRITTEN), payload));
        }
        final IOException injected = new IOException("injected fdatasync failure (contract test)");
        if (fixture.writesDurable()) {
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

        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), pendingPayload, refusedPayload);
        }
    }

    @Test
    void shouldFailStopWhenAWriteFailsAndRecoverEveryAcknowledgedRecord() throws Exception {
        final Path directory = fixture.logDirectory();
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(directory).backend(backend).syncIntervalNs(0).build());
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

        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), refusedPayload);
        }
    }

    @Test
    void shouldAcknowledgeNothingThatCompletesAfterAFailure() throws Exception {
        final Path directory = fixture.logDirectory();
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(directory).backend(backend).syncIntervalNs(0).build());
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
        if (!fixture.writesDurable()) {
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
        if (fixture.writesDurable()) {
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

        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertRecoveredPrefix(acknowledged, replayAll(reopened), failing, later);
        }
    }
}
