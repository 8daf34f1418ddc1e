package io.walden;

import static io.walden.ContractChecks.appendRecords;
import static io.walden.ContractChecks.assertHoldsExactly;
import static io.walden.ContractChecks.awaitCondition;
import static io.walden.ContractChecks.lsnsOf;
import static io.walden.ContractChecks.writePendingTruncation;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * truncateAfter on a closed and on an open log: what is kept, what readers and racing appenders see.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class TruncateAfterContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected TruncateAfterContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldKeepRecordsUpToTheOneTruncatedAfterAndGiveNoOldPositionAgain() {
        final Path directory = fixture.logDirectory();
        final long[] lsns = fixture.closedLogOf(directory, 120);
        for (final int kept : new int[] {117, 40}) {
            // First within the newest segment, then segments before it.
            final long next = Wal.truncateAfter(fixture.config(directory).build(), lsns[kept - 1]);
            assertTrue(next > lsns[lsns.length - 1], "the log continues at " + next + ", before old positions");
            assertEquals(SegmentHeaderDescriptor.HEADER_LENGTH, next % SEGMENT_BYTES);
            assertFalse(Files.exists(directory.resolve(SuffixTruncationDescriptor.FILE_NAME)));
            try (Wal wal = Wal.open(fixture.config(directory).build())) {
                assertHoldsExactly(wal, lsns, kept);
            }
        }
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            final long appended = wal.append(TestRecords.bytes(1000, 100), Durability.SYNCED);
            assertTrue(appended > lsns[lsns.length - 1]);
        }
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            final List<TestRecords.Read> records = replayAll(wal);
            assertEquals(41, records.size());
            assertArrayEquals(TestRecords.bytes(1000, 100), records.get(40).payload());
        }
    }

    @Test
    void shouldKeepNoRecordWhenTruncatedAfterMinusOne() {
        final Path directory = fixture.logDirectory();
        final long[] lsns = fixture.closedLogOf(directory, 40);
        final long next = Wal.truncateAfter(fixture.config(directory).build(), -1);
        assertTrue(next > lsns[lsns.length - 1]);
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            assertHoldsExactly(wal, lsns, 0);
            assertEquals(next, wal.append(TestRecords.bytes(7, 10), Durability.SYNCED));
        }
    }

    @Test
    void shouldChangeNothingWhenTruncatedAfterTheLastRecord() {
        final Path directory = fixture.logDirectory();
        final long[] lsns = fixture.closedLogOf(directory, 40);
        Wal.truncateAfter(fixture.config(directory).build(), lsns[39]);
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            assertHoldsExactly(wal, lsns, 40);
        }
    }

    @Test
    void shouldRefuseToTruncateAfterAPositionWhereNoRecordStartsAndChangeNothing() {
        final Path directory = fixture.logDirectory();
        final long[] lsns = fixture.closedLogOf(directory, 40);
        for (final long lsn : new long[] {lsns[5] + 8, lsns[39] + 1_000_000, 17}) {
            final WalException refused = assertThrows(
                    WalException.class,
                    () -> Wal.truncateAfter(fixture.config(directory).build(), lsn));
            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertTrue(refused.getMessage().contains(String.valueOf(lsn)), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was changed"), refused.getMessage());
        }
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            assertHoldsExactly(wal, lsns, 40);
        }
    }

    @Test
    void shouldHideFromAViewWhatAnInterruptedTruncationDiscardsAndCompleteItAtOpen() throws IOException {
        final Path directory = fixture.logDirectory();
        final long[] lsns = fixture.closedLogOf(directory, 120);
        final int kept = 40;
        final long cut = lsns[kept - 1] + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(8 * 1024));
        final long continueAt = (lsns[lsns.length - 1] / SEGMENT_BYTES + 2) * SEGMENT_BYTES;
        writePendingTruncation(directory, cut, continueAt);
        try (WalView view = Wal.openReadOnly(directory);
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            assertTrue(view.writtenPosition() <= cut, "the view shows positions past the pending cut");
            final List<TestRecords.Read> before = TestRecords.pollAll(reader, 1000);
            assertEquals(kept, before.size(), "records a view shows while a truncation is pending");
            assertTrue(Wal.inspect(directory).report().findings().stream()
                    .anyMatch(finding -> finding.contains("suffix truncation")));
            final long next;
            try (Wal wal = Wal.open(fixture.config(directory).build())) {
                assertHoldsExactly(wal, lsns, kept);
                next = wal.append(TestRecords.bytes(500, 100), Durability.SYNCED);
                assertTrue(next >= continueAt, "the log continues at " + next + ", before " + continueAt);
            }
            assertFalse(Files.exists(directory.resolve(SuffixTruncationDescriptor.FILE_NAME)));
            final List<TestRecords.Read> after = new ArrayList<>();
            final long deadlineNs = System.nanoTime() + WAIT_NS;
            while (after.isEmpty() && System.nanoTime() < deadlineNs) {
                reader.poll(
                        (buffer, offset, length, lsn) -> {
                            final byte[] payload = new byte[length];
                            buffer.getBytes(offset, payload);
                            after.add(new TestRecords.Read(lsn, payload));
                        },
                        10,
                        TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertEquals(1, after.size(), "records the view shows once the truncation is complete");
            assertEquals(next, after.get(0).lsn());
        }
    }

    @Test
    void shouldRefuseToTruncateAnOpenLog() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long lsn = wal.append(new byte[10], Durability.SYNCED);
        wal.append(new byte[10], Durability.SYNCED);
        final WalException refused = assertThrows(
                WalException.class,
                () -> Wal.truncateAfter(fixture.config(directory).build(), lsn));
        assertEquals(WalException.ErrorCode.LOCKED, refused.errorCode());
        assertEquals(2, replayAll(wal).size());
    }

    @Test
    void shouldTruncateAnOpenLogAndGoOnAppendingThere() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long[] lsns = appendRecords(wal, 120);
        // First within the newest segment, then segments before it, then every record.
        final long first = wal.truncateAfter(lsns[116]);
        assertTrue(first > lsns[119], "the log continues at " + first + ", before old positions");
        assertEquals(SegmentHeaderDescriptor.HEADER_LENGTH, first % SEGMENT_BYTES);
        assertHoldsExactly(wal, lsns, 117);
        final long second = wal.truncateAfter(lsns[39]);
        assertTrue(second > first, "positions went back from " + first + " to " + second);
        assertHoldsExactly(wal, lsns, 40);
        final long appended = wal.append(TestRecords.bytes(1000, 100), Durability.SYNCED);
        assertTrue(appended >= second, "appended at " + appended + ", before " + second);
        assertTrue(wal.durablePosition() > appended);
        wal.close();
        try (Wal reopened = Wal.open(fixture.config(directory).build())) {
            final List<TestRecords.Read> records = replayAll(reopened);
            assertEquals(41, records.size());
            assertEquals(appended, records.get(40).lsn());
            assertArrayEquals(TestRecords.bytes(1000, 100), records.get(40).payload());
            final long none = reopened.truncateAfter(-1);
            assertTrue(none > appended);
            assertEquals(0, replayAll(reopened).size());
            assertEquals(none, reopened.append(TestRecords.bytes(7, 10), Durability.SYNCED));
        }
        try (Wal reopened = Wal.open(fixture.config(directory).build())) {
            assertEquals(1, replayAll(reopened).size());
        }
    }

    @Test
    void shouldRefuseToTruncateAnOpenLogWhereNoRecordStartsAndGoOn() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long[] lsns = appendRecords(wal, 40);
        for (final long lsn : new long[] {lsns[5] + 8, lsns[39] + 1_000_000, 17, -2}) {
            final WalException refused = assertThrows(WalException.class, () -> wal.truncateAfter(lsn));
            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertTrue(refused.getMessage().contains(String.valueOf(lsn)), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was changed"), refused.getMessage());
        }
        assertHoldsExactly(wal, lsns, 40);
        final long next = wal.append(TestRecords.bytes(40, 8 * 1024), Durability.SYNCED);
        assertEquals(41, replayAll(wal).size());
        assertTrue(next > lsns[39]);
        wal.close();
        final WalException closed = assertThrows(WalException.class, () -> wal.truncateAfter(lsns[3]));
        assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
    }

    @Test
    void shouldMoveReadersOnAtTheCutAndTellThoseThatDeliveredDiscardedRecords() {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long[] lsns = appendRecords(wal, 120);
        final WalReader behind = wal.reader(wal.startPosition());
        assertEquals(20, behind.poll((buffer, offset, length, lsn) -> {}, 20));
        final WalReader ahead = wal.reader(wal.startPosition());
        assertEquals(120, TestRecords.pollAll(ahead, 1000).size());
        final WalReader unread = wal.reader(lsns[100]);
        final long next = wal.truncateAfter(lsns[39]);
        final long appended = wal.append(TestRecords.bytes(500, 100), Durability.SYNCED);

        final List<TestRecords.Read> rest = TestRecords.pollAll(behind, 7);
        assertEquals(21, rest.size(), "records the reader behind the cut sees");
        assertEquals(lsns[20], rest.get(0).lsn());
        assertEquals(lsns[39], rest.get(19).lsn());
        assertEquals(appended, rest.get(20).lsn());

        final WalException gone = assertThrows(WalException.class, () -> ahead.poll((b, o, l, p) -> {}, 10));
        assertEquals(WalException.ErrorCode.POSITION, gone.errorCode());
        assertTrue(gone.getMessage().contains("discarded"), gone.getMessage());
        assertTrue(gone.getMessage().contains(String.valueOf(next)), gone.getMessage());
        ahead.seek(next);
        assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(ahead, 10)));

        // A reader placed on a discarded record that it never delivered goes on where the log does.
        assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(unread, 10)));

        final WalException refused = assertThrows(WalException.class, () -> wal.reader(lsns[60]));
        assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
        assertTrue(refused.getMessage().contains("discarded by truncateAfter"), refused.getMessage());
        try (WalReader atNext = wal.reader(next)) {
            assertEquals(List.of(appended), lsnsOf(TestRecords.pollAll(atNext, 10)));
        }
        behind.close();
        ahead.close();
        unread.close();
    }

    @Test
    void shouldWakeAReaderWaitingAtTheEndWithTheRecordAfterTheTruncation() throws Exception {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long[] lsns = appendRecords(wal, 60);
        final CompletableFuture<List<Long>> seen = new CompletableFuture<>();
        final Thread waiting = new Thread(() -> {
            try (WalReader reader = wal.reader(wal.tailPosition())) {
                final List<Long> delivered = new ArrayList<>();
                final long deadlineNs = System.nanoTime() + WAIT_NS;
                while (delivered.isEmpty() && System.nanoTime() < deadlineNs) {
                    reader.poll((buffer, offset, length, lsn) -> delivered.add(lsn), 10, WAIT_NS);
                }
                seen.complete(delivered);
            } catch (final Throwable ex) {
                seen.completeExceptionally(ex);
            }
        });
        waiting.start();
        awaitCondition(() -> waiting.getState() == Thread.State.TIMED_WAITING, "the reader to wait at the end");
        final long next = wal.truncateAfter(lsns[29]);
        final long appended = wal.append(TestRecords.bytes(600, 100), Durability.SYNCED);
        assertTrue(appended >= next);
        // Waiting at the old end, it delivered nothing that was discarded: it goes on where the log does.
        assertEquals(List.of(appended), seen.get(WAIT_NS, TimeUnit.NANOSECONDS));
        waiting.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
    }

    @Test
    void shouldOrderAppendsRacingAnOnlineTruncationBeforeOrAfterItAndLoseNoneAfter() throws Exception {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        final long[] lsns = appendRecords(wal, 40);
        final int writers = 3;
        final List<List<Long>> acknowledged = new ArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.atomic.AtomicLong appendedCount = new java.util.concurrent.atomic.AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            final List<Long> mine = new ArrayList<>();
            acknowledged.add(mine);
            final int writer = w;
            final Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        final Durability durability = i % 3 == 0 ? Durability.SYNCED : Durability.WRITTEN;
                        mine.add(wal.append(TestRecords.bytes(10_000L * (writer + 1) + i, 1000), durability));
                        appendedCount.incrementAndGet();
                    }
                } catch (final Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            });
            threads.add(thread);
            thread.start();
        }
        awaitCondition(() -> appendedCount.get() >= 100, "appends before the truncation");
        final long next = wal.truncateAfter(lsns[29]);
        final long countAtTruncation = appendedCount.get();
        awaitCondition(() -> appendedCount.get() >= countAtTruncation + 100, "appends after the truncation");
        stop.set(true);
        for (final Thread thread : threads) {
            thread.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        }
        assertNull(failure.get(), () -> "an append failed: " + failure.get());
        wal.sync();
        final List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add(lsns[i]);
        }
        int after = 0;
        int discarded = 0;
        for (final List<Long> mine : acknowledged) {
            for (final long lsn : mine) {
                if (lsn >= next) {
                    expected.add(lsn);
                    after++;
                } else {
                    discarded++;
                }
            }
        }
        assertTrue(after >= 100, "appends after the truncation: " + after);
        assertTrue(discarded >= 100, "appends before the truncation: " + discarded);
        expected.sort(null);
        assertEquals(expected, lsnsOf(replayAll(wal)));
        wal.close();
        try (Wal reopened = Wal.open(fixture.config(directory).build())) {
            assertEquals(expected, lsnsOf(replayAll(reopened)));
        }
    }
}
