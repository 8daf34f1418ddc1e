package io.walden;

import static io.walden.ContractChecks.assertCausedBy;
import static io.walden.ContractChecks.awaitCondition;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AsyncAppender}: appends that do not wait, acknowledged in order once each record reaches its
 * level; the ready signal; back-pressure; fail-stop and close; no allocation per record; a sync asked
 * for without a waiter.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}. Where the
 * backend's writes are durable by themselves (O_DSYNC), a held write stands for a held sync.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AsyncAppenderContractTest {
    private static final long WAIT_MS = TimeUnit.NANOSECONDS.toMillis(ContractFixture.WAIT_NS);

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected AsyncAppenderContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    /** Records what a poll delivers, and the log's positions at each acknowledgement. */
    private static final class Acks implements AckHandler {
        private final Wal wal;
        final List<Long> lsns = new ArrayList<>();
        final List<Long> tags = new ArrayList<>();
        final List<Long> writtenAtAck = new ArrayList<>();
        final List<Long> durableAtAck = new ArrayList<>();
        final List<WalException> failures = new ArrayList<>();
        final List<Long> failedTags = new ArrayList<>();

        Acks(final Wal wal) {
            this.wal = wal;
        }

        @Override
        public void acknowledged(final long lsn, final long tag) {
            lsns.add(lsn);
            tags.add(tag);
            writtenAtAck.add(wal.writtenPosition());
            durableAtAck.add(wal.durablePosition());
        }

        @Override
        public void failed(final long lsn, final long tag, final WalException failure) {
            failures.add(failure);
            failedTags.add(tag);
        }
    }

    /** Holds what makes a record durable: syncs, or writes where writes are durable by themselves. */
    private void holdDurability(final ControllableBackend backend) throws IOException {
        if (fixture.writesDurable()) {
            backend.holdWrites();
        } else {
            backend.holdSyncs();
        }
    }

    @Test
    void shouldAcknowledgeEveryRecordInOrderOnlyOnceItReachedItsLevel() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final Acks acks = new Acks(wal);
        final AsyncAppender appender = wal.asyncAppender(16);
        final Durability[] levels = {Durability.SYNCED, Durability.WRITTEN, Durability.BUFFERED, Durability.SYNCED};
        final List<Read> appended = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            final byte[] payload = bytes(i, 50 + i * 7 % 900);
            long lsn;
            while ((lsn = appender.append(payload, levels[i % levels.length], 1000 + i)) == Wal.BACK_PRESSURED) {
                appender.poll(acks);
            }
            appended.add(new Read(lsn, payload));
            appender.poll(acks);
        }
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "every acknowledgement");
        assertEquals(300, acks.lsns.size());
        for (int i = 0; i < 300; i++) {
            assertEquals(1000 + i, acks.tags.get(i), "acknowledgement " + i + " out of order");
            final long lsn = appended.get(i).lsn();
            assertEquals(lsn, acks.lsns.get(i));
            final Durability level = levels[i % levels.length];
            if (level == Durability.SYNCED) {
                assertTrue(acks.durableAtAck.get(i) > lsn, "SYNCED record " + lsn + " acknowledged before its sync");
            } else if (level == Durability.WRITTEN) {
                assertTrue(acks.writtenAtAck.get(i) > lsn, "WRITTEN record " + lsn + " acknowledged before its write");
            }
        }
        assertTrue(acks.failures.isEmpty());
        wal.close();
        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertEquals(appended, replayAll(reopened));
        }
    }

    @Test
    void shouldAcknowledgeASyncedRecordOnlyAfterItsSyncCompleted() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        final Acks acks = new Acks(wal);
        final AsyncAppender appender = wal.asyncAppender(8);
        holdDurability(backend);
        final long lsn = appender.append(bytes(1, 200), Durability.SYNCED, 7);
        if (!fixture.writesDurable()) {
            awaitCondition(() -> wal.writtenPosition() > lsn, "the record to be written");
        }
        awaitCondition(() -> backend.heldCompletions() > 0, "the sync (or durable write) to be held");
        assertEquals(0, appender.poll(acks), "acknowledged while its sync was held");
        assertEquals(1, appender.pending());
        backend.releaseAll();
        awaitCondition(() -> appender.poll(acks) > 0, "the acknowledgement");
        assertEquals(List.of(7L), acks.tags);
        assertTrue(acks.durableAtAck.get(0) > lsn);
    }

    @Test
    void shouldSyncForAnAsynchronousAppendWithoutAWaiterAndCoverEverythingWrittenMeanwhile() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        // No periodic sync: only the appends' requests can make the records durable.
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .backend(backend)
                .syncIntervalNs(0)
                .build());
        final Acks acks = new Acks(wal);
        final AsyncAppender appender = wal.asyncAppender(256);
        if (fixture.writesDurable()) {
            final long last = appendAll(appender, 100);
            awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "every acknowledgement");
            assertTrue(acks.durableAtAck.get(99) > last);
            return;
        }
        backend.holdSyncs();
        final long syncsBefore = backend.dataSyncsSubmitted();
        final long first = appender.append(bytes(0, 100), Durability.SYNCED, 0);
        awaitCondition(() -> backend.dataSyncsSubmitted() > syncsBefore, "the first record's sync");
        // Written while the first sync is in flight: the next sync covers them all.
        final long last = appendAll(appender, 99);
        awaitCondition(() -> wal.writtenPosition() > last, "the records to be written");
        final long syncsWhileHeld = backend.dataSyncsSubmitted() - syncsBefore;
        assertEquals(1, syncsWhileHeld, "a second sync started while the first was in flight");
        backend.releaseSyncs();
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "every acknowledgement");
        assertTrue(acks.lsns.get(0) == first && acks.durableAtAck.get(99) > last);
        final long syncs = backend.dataSyncsSubmitted() - syncsBefore;
        assertTrue(syncs <= 3, syncs + " syncs for 100 records written during one sync (expected 2, a mark's 3)");
    }

    private static long appendAll(final AsyncAppender appender, final int count) {
        long lsn = -1;
        for (int i = 1; i <= count; i++) {
            lsn = appender.append(bytes(i, 100), Durability.SYNCED, i);
            assertTrue(lsn >= 0, "refused: " + lsn);
        }
        return lsn;
    }

    @Test
    void shouldRunTheReadySignalOnceWhatTheLastPollLeftPendingIsDue() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        final Acks acks = new Acks(wal);
        final Semaphore signals = new Semaphore(0);
        final AsyncAppender appender = wal.asyncAppender(8, signals::release);
        holdDurability(backend);
        final long lsn = appender.append(bytes(1, 300), Durability.SYNCED, 1);
        appender.append(bytes(2, 300), Durability.SYNCED, 2);
        awaitCondition(() -> backend.heldCompletions() > 0, "the sync (or durable write) to be held");
        assertEquals(0, appender.poll(acks));
        assertEquals(0, signals.availablePermits(), "signalled while nothing was due");
        backend.releaseAll();
        assertTrue(signals.tryAcquire(WAIT_MS, TimeUnit.MILLISECONDS), "no ready signal once the record was durable");
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "both acknowledgements");
        assertEquals(List.of(1L, 2L), acks.tags);
        assertTrue(acks.durableAtAck.get(0) > lsn);
        // The next record is watched once a poll leaves it pending.
        // A second sync may have made the second record durable after a poll that left it pending.
        signals.drainPermits();
        holdDurability(backend);
        appender.append(bytes(3, 300), Durability.SYNCED, 3);
        awaitCondition(() -> backend.heldCompletions() > 0, "the third record's sync (or write) to be held");
        appender.poll(acks);
        backend.releaseAll();
        assertTrue(signals.tryAcquire(WAIT_MS, TimeUnit.MILLISECONDS), "no ready signal for the third record");
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "the third acknowledgement");
        assertEquals(List.of(1L, 2L, 3L), acks.tags);
    }

    @Test
    void shouldRefuseAnAppendWhileCapacityAcknowledgementsArePending() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        final Acks acks = new Acks(wal);
        final AsyncAppender appender = wal.asyncAppender(3);
        assertEquals(4, appender.capacity(), "rounded up to a power of two");
        holdDurability(backend);
        for (int i = 0; i < 4; i++) {
            assertTrue(appender.append(bytes(i, 100), Durability.SYNCED, i) >= 0);
        }
        final long tailBefore = wal.tailPosition();
        assertEquals(Wal.BACK_PRESSURED, appender.append(bytes(9, 100), Durability.SYNCED, 9));
        assertEquals(tailBefore, wal.tailPosition(), "a refused append entered the log");
        assertEquals(4, appender.pending());
        backend.releaseAll();
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "the four acknowledgements");
        assertTrue(appender.append(bytes(9, 100), Durability.SYNCED, 9) >= 0);
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "the fifth acknowledgement");
        assertEquals(List.of(0L, 1L, 2L, 3L, 9L), acks.tags);
    }

    @Test
    void shouldFailEveryPendingAcknowledgementWithTheLogsFailureAndSignalIt() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(
                fixture.config(directory).backend(backend).syncIntervalNs(0).build());
        final Acks acks = new Acks(wal);
        final Semaphore signals = new Semaphore(0);
        final AsyncAppender appender = wal.asyncAppender(8, signals::release);
        final byte[] kept = bytes(0, 100);
        final long keptLsn = appender.append(kept, Durability.SYNCED, 0);
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "the first acknowledgement");
        // Written before the failure and polled only after it: still acknowledged, as a blocking
        // WRITTEN append of it would have returned.
        final AsyncAppender late = wal.asyncAppender(4);
        final long writtenLsn = late.append(bytes(50, 100), Durability.WRITTEN, 50);
        awaitCondition(() -> wal.writtenPosition() > writtenLsn, "the WRITTEN record to be written");
        final IOException injected = new IOException("injected failure (AsyncAppender contract test)");
        holdDurability(backend);
        if (fixture.writesDurable()) {
            backend.failNextDataWrite(injected);
        } else {
            backend.failNextDataSync(injected);
        }
        final long[] lsns = new long[3];
        for (int i = 0; i < 3; i++) {
            lsns[i] = appender.append(bytes(1 + i, 100), Durability.SYNCED, 1 + i);
        }
        awaitCondition(() -> !backend.failureArmed(), "the failing operation to be submitted");
        assertEquals(0, appender.poll(acks));
        // The first record's signal may have run: only the failure's counts from here.
        signals.drainPermits();
        backend.releaseAll();
        assertTrue(signals.tryAcquire(WAIT_MS, TimeUnit.MILLISECONDS), "no ready signal as the log failed");
        assertEquals(3, appender.poll(acks));
        assertEquals(List.of(0L), acks.tags, "a record acknowledged after the failure");
        assertEquals(List.of(1L, 2L, 3L), acks.failedTags);
        for (int i = 0; i < 3; i++) {
            final WalException failure = acks.failures.get(i);
            assertEquals(lsns[i], failure.lsn(), "the failure names the record");
            assertCausedBy(injected, failure);
            assertTrue(failure.getMessage().contains("unknown"), failure.getMessage());
        }
        final Acks lateAcks = new Acks(wal);
        assertEquals(1, late.poll(lateAcks));
        assertEquals(List.of(50L), lateAcks.tags, "a record written before the failure was failed");
        final WalException refused =
                assertThrows(WalException.class, () -> appender.append(bytes(9, 100), Durability.SYNCED, 9));
        assertCausedBy(injected, refused);
        wal.close();
        try (Wal reopened = fixture.open(fixture.config(directory).build())) {
            assertEquals(new Read(keptLsn, kept), replayAll(reopened).get(0));
        }
    }

    @Test
    void shouldAcknowledgeEverythingAfterACleanCloseAndThenRefuseAppends() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final Acks acks = new Acks(wal);
        final AsyncAppender appender = wal.asyncAppender(64, () -> {});
        for (int i = 0; i < 40; i++) {
            assertTrue(appender.append(bytes(i, 200), i % 2 == 0 ? Durability.SYNCED : Durability.WRITTEN, i) >= 0);
        }
        wal.close();
        assertEquals(40, appender.poll(acks));
        assertEquals(40, acks.tags.size());
        assertTrue(acks.failures.isEmpty());
        final WalException refused =
                assertThrows(WalException.class, () -> appender.append(bytes(99, 10), Durability.SYNCED, 99));
        assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
    }

    @Test
    void shouldRefuseBadArgumentsAndAppendsAfterClose() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> wal.asyncAppender(0));
        assertTrue(zero.getMessage().contains("capacity"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> wal.asyncAppender(AsyncAppender.CAPACITY_MAX + 1));
        assertThrows(NullPointerException.class, () -> wal.asyncAppender(4, null));
        final AsyncAppender appender = wal.asyncAppender(4);
        final byte[] payload = bytes(1, 100);
        assertThrows(NullPointerException.class, () -> appender.append(payload, null, 0));
        assertThrows(
                IndexOutOfBoundsException.class,
                () -> appender.append(new UnsafeBuffer(payload), 50, 100, Durability.WRITTEN, 0));
        final long lsn = appender.append(payload, Durability.WRITTEN, 5);
        appender.close();
        assertThrows(IllegalStateException.class, () -> appender.append(payload, Durability.WRITTEN, 6));
        final Acks acks = new Acks(wal);
        awaitCondition(() -> appender.poll(acks) >= 0 && appender.pending() == 0, "the acknowledgement after close");
        assertEquals(List.of(lsn), acks.lsns);
        wal.close();
        assertThrows(WalException.class, () -> wal.asyncAppender(4));
    }

    /**
     * {@code appendAsync}: a ready signal that finds the futures' lock taken leaves its poll to the
     * holder, which must take it even when its own append is refused (a lost poll there left a future
     * pending for good when the log closed under concurrent appends).
     */
    @Test
    void shouldCompleteAFutureWhoseSignalFoundTheLockTakenWhenTheHoldersAppendIsRefused() throws Exception {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).backend(backend).build());
        holdDurability(backend);
        final CompletableFuture<Long> future = wal.appendAsync(bytes(1, 100), Durability.SYNCED);
        awaitCondition(() -> backend.heldCompletions() > 0, "the sync (or durable write) to be held");
        final AsyncFutures futures = wal.asyncFutures();
        futures.lock.lock();
        try {
            backend.releaseAll();
            awaitCondition(futures::pollOwed, "the ready signal to find the lock taken");
            assertFalse(future.isDone(), "completed while its poll was owed");
            final byte[] tooLarge = new byte[ContractFixture.MAX_RECORD_BYTES + 1];
            assertThrows(WalException.class, () -> wal.appendAsync(tooLarge, Durability.SYNCED));
            assertTrue(future.isDone(), "the poll the signal left to the lock's holder was lost when its append threw");
        } finally {
            futures.lock.unlock();
        }
        assertTrue(future.join() >= 0);
    }

    @Test
    void shouldAllocateNothingPerRecord() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final AtomicInteger acknowledged = new AtomicInteger();
        final AckHandler handler = new AckHandler() {
            @Override
            public void acknowledged(final long lsn, final long tag) {
                acknowledged.lazySet(acknowledged.get() + 1);
            }

            @Override
            public void failed(final long lsn, final long tag, final WalException failure) {
                throw failure;
            }
        };
        final AsyncAppender appender = wal.asyncAppender(1024, () -> {});
        final UnsafeBuffer payload = new UnsafeBuffer(bytes(3, 120));
        final Durability[] levels = {Durability.SYNCED, Durability.WRITTEN};
        final int warmUp = 20_000;
        final int measured = 20_000;
        long allocated = 0;
        for (int i = 0; i < warmUp + measured; i++) {
            if (i == warmUp) {
                allocated = threads.getThreadAllocatedBytes(thread);
            }
            while (appender.append(payload, 0, payload.capacity(), levels[i & 1], i) == Wal.BACK_PRESSURED) {
                appender.poll(handler);
            }
            appender.poll(handler);
        }
        allocated = threads.getThreadAllocatedBytes(thread) - allocated;
        assertTrue(allocated < measured, allocated + " bytes allocated over " + measured + " appends and polls");
        awaitCondition(() -> appender.poll(handler) >= 0 && appender.pending() == 0, "every acknowledgement");
        assertEquals(warmUp + measured, acknowledged.get());
    }
}
