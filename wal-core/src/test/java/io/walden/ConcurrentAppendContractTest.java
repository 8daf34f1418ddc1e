package io.walden;

import static io.walden.testing.TestRecords.replayAll;
import static io.walden.testing.TestRecords.tagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import io.walden.testing.TestRecords.Tag;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many threads append at once with mixed durability levels, record sizes and sources; every
 * acknowledged record must be read back exactly once, intact, in LSN order, while the log runs,
 * through a tailing reader, and after close and reopen.
 *
 * <p>Each payload is tagged with its writer and sequence number and a checksum, and its content is
 * generated from both, so a reader can check every byte on its own.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ConcurrentAppendContractTest {
    private static final int THREADS = 16;
    private static final int APPENDS_PER_THREAD = 750;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(60);

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected ConcurrentAppendContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldReadBackEveryAcknowledgedRecordExactlyOnceInLsnOrderIntact() throws Exception {
        appendConcurrentlyAndCheck(
                fixture.tempDir().resolve("log"),
                fixture.config(fixture.tempDir().resolve("log")));
    }

    @Test
    void shouldReadBackEveryAcknowledgedRecordWithLargerBuffersAndAGroupWindow() throws Exception {
        final Path directory = fixture.tempDir().resolve("log");
        appendConcurrentlyAndCheck(
                directory,
                fixture.config(directory)
                        .segmentCapacityBytes(1024 * 1024)
                        .bufferCapacityBytes(256 * 1024)
                        .groupWindowNs(TimeUnit.MICROSECONDS.toNanos(200)));
    }

    @Test
    void shouldReadBackEveryAcknowledgedRecordWithNaturalBatchingOnly() throws Exception {
        final Path directory = fixture.tempDir().resolve("log");
        appendConcurrentlyAndCheck(directory, fixture.config(directory).groupReturnWait(false));
    }

    @Test
    void shouldReadBackEveryAcknowledgedRecordWhenEveryWaiterBlocksAtOnce() throws Exception {
        // No yielding: every WRITTEN and SYNCED wait parks and is unparked by the I/O thread.
        final Path directory = fixture.tempDir().resolve("log");
        appendConcurrentlyAndCheck(directory, fixture.config(directory).waitYieldNs(0));
    }

    private void appendConcurrentlyAndCheck(final Path directory, final WalConfig.Builder builder) throws Exception {
        final Map<Tag, Long> acknowledged = new ConcurrentHashMap<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final int total = THREADS * APPENDS_PER_THREAD;
        final long rolled;
        try (Wal wal = Wal.open(builder.build())) {
            final List<Read> tailed = new ArrayList<>();
            final AtomicBoolean tailerDone = new AtomicBoolean();
            final Thread tailer = new Thread(() -> tail(wal, total, tailed, failures, tailerDone), "contract-tailer");
            tailer.setDaemon(true);
            tailer.start();

            final CyclicBarrier start = new CyclicBarrier(THREADS);
            final List<Thread> appenders = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                final int writer = t;
                final Thread thread = new Thread(
                        () -> {
                            try {
                                start.await(30, TimeUnit.SECONDS);
                                appendAll(wal, writer, APPENDS_PER_THREAD, acknowledged, null);
                            } catch (final Throwable ex) {
                                failures.add(ex);
                            }
                        },
                        "contract-appender-" + t);
                thread.setDaemon(true);
                appenders.add(thread);
                thread.start();
            }
            join(appenders);
            assertNoFailures(failures);
            assertEquals(total, acknowledged.size());

            wal.sync();
            final List<Read> records = replayAll(wal);
            assertLogMatches(acknowledged, records);
            assertEquals(total, wal.stats().appends());
            rolled = wal.stats().segmentsRolled();

            join(List.of(tailer));
            assertNoFailures(failures);
            assertTrue(tailerDone.get());
            assertEquals(records, tailed, "the tailing reader saw a different log");
        }
        assertTrue(rolled > 0, "the test should roll segments under concurrency");
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            assertEquals(total, wal.recoveryReport().records());
            assertLogMatches(acknowledged, replayAll(wal));
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedRecordWhenClosedWhileThreadsAppend() throws Exception {
        final Path directory = fixture.tempDir().resolve("log");
        final Map<Tag, Long> acknowledged = new ConcurrentHashMap<>();
        final Set<Tag> unknown = ConcurrentHashMap.newKeySet();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final AtomicInteger closedThreads = new AtomicInteger();
        final Wal wal = Wal.open(fixture.config(directory).build());
        final CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        final List<Thread> appenders = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int writer = t;
            final Thread thread = new Thread(
                    () -> {
                        try {
                            start.await(30, TimeUnit.SECONDS);
                            appendAll(wal, writer, 100_000, acknowledged, unknown);
                            failures.add(new AssertionError("writer " + writer + " never saw the log close"));
                        } catch (final WalException ex) {
                            if (ex.errorCode() == WalException.ErrorCode.CLOSED) {
                                closedThreads.incrementAndGet();
                            } else {
                                failures.add(ex);
                            }
                        } catch (final Throwable ex) {
                            failures.add(ex);
                        }
                    },
                    "contract-appender-" + t);
            thread.setDaemon(true);
            appenders.add(thread);
            thread.start();
        }
        start.await(30, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + WAIT_NS;
        while (acknowledged.size() < 2000 && failures.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                fail("appenders acknowledged only " + acknowledged.size() + " records");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        wal.close();
        join(appenders);
        assertNoFailures(failures);
        assertEquals(THREADS, closedThreads.get(), "every appender must be refused with CLOSED");

        try (Wal reopened = Wal.open(fixture.config(directory).build())) {
            final List<Read> records = replayAll(reopened);
            final Map<Tag, Long> found = checkRecords(records);
            for (final Map.Entry<Tag, Long> entry : acknowledged.entrySet()) {
                assertEquals(entry.getValue(), found.get(entry.getKey()), "acknowledged record " + entry.getKey());
            }
            for (final Tag tag : found.keySet()) {
                assertTrue(
                        acknowledged.containsKey(tag) || unknown.contains(tag),
                        "recovered record " + tag + " that no append returned or failed for");
            }
            assertEquals(records.size(), reopened.recoveryReport().records());
        }
    }

    /**
     * Appends tagged records with mixed levels and sources. Records whose append threw after the
     * call started go to {@code unknown}, if given, before the exception propagates.
     */
    private static void appendAll(
            final Wal wal, final int writer, final int count, final Map<Tag, Long> acknowledged, final Set<Tag> unknown)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        final SplittableRandom random = new SplittableRandom(writer * 7919L + 17);
        final Durability[] levels = Durability.values();
        long previous = -1;
        for (int sequence = 0; sequence < count; sequence++) {
            final int length = random.nextInt(8) == 0
                    ? random.nextInt(TestRecords.TAG_LENGTH, 12_000)
                    : random.nextInt(TestRecords.TAG_LENGTH, 1500);
            final byte[] payload = tagged(writer, sequence, length);
            final Durability level = levels[random.nextInt(levels.length)];
            final Tag tag = new Tag(writer, sequence);
            if (unknown != null) {
                unknown.add(tag);
            }
            final long lsn =
                    switch (random.nextInt(5)) {
                        case 0 -> wal.append(ByteBuffer.wrap(payload), level);
                        case 1 -> wal.append(new UnsafeBuffer(payload), 0, payload.length, level);
                        case 2 -> {
                            final CompletableFuture<Long> future = wal.appendAsync(payload, level);
                            try {
                                yield future.get(WAIT_NS, TimeUnit.NANOSECONDS);
                            } catch (final ExecutionException ex) {
                                if (ex.getCause() instanceof WalException walEx) {
                                    throw walEx;
                                }
                                throw ex;
                            }
                        }
                        default -> wal.append(payload, level);
                    };
            if (lsn <= previous) {
                throw new AssertionError("writer " + writer + " got lsn " + lsn + " after " + previous);
            }
            if (level == Durability.SYNCED && wal.durablePosition() <= lsn) {
                throw new AssertionError("SYNCED append of lsn " + lsn + " returned before it was durable");
            }
            if (level == Durability.WRITTEN && wal.writtenPosition() <= lsn) {
                throw new AssertionError("WRITTEN append of lsn " + lsn + " returned before it was written");
            }
            previous = lsn;
            acknowledged.put(tag, lsn);
            if (unknown != null) {
                unknown.remove(tag);
            }
        }
    }

    /** Follows the live log with a WRITTEN-visibility reader until it has seen {@code total} records. */
    private static void tail(
            final Wal wal,
            final int total,
            final List<Read> tailed,
            final List<Throwable> failures,
            final AtomicBoolean done) {
        final long deadline = System.nanoTime() + WAIT_NS;
        try (WalReader reader = wal.reader(wal.startPosition(), Durability.WRITTEN)) {
            final RecordHandler handler = (buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                TestRecords.verify(payload);
                if (!tailed.isEmpty() && tailed.get(tailed.size() - 1).lsn() >= lsn) {
                    throw new AssertionError("tailing reader went from lsn "
                            + tailed.get(tailed.size() - 1).lsn() + " to " + lsn);
                }
                tailed.add(new Read(lsn, payload));
            };
            while (tailed.size() < total) {
                if (reader.poll(handler, 64) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("tailing reader saw only " + tailed.size() + " of " + total);
                    }
                    if (!failures.isEmpty()) {
                        return;
                    }
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }
            done.set(true);
        } catch (final Throwable ex) {
            failures.add(ex);
        }
    }

    /** Checks that a log holds exactly the acknowledged records, each once, intact, in LSN order. */
    private static void assertLogMatches(final Map<Tag, Long> acknowledged, final List<Read> records) {
        final Map<Tag, Long> found = checkRecords(records);
        assertEquals(acknowledged.size(), records.size(), "record count");
        assertEquals(acknowledged, found);
    }

    /**
     * Checks every record's content, that LSNs increase, that no record appears twice and that each
     * writer's records appear in its sequence order.
     *
     * @return where each record was found.
     */
    private static Map<Tag, Long> checkRecords(final List<Read> records) {
        final Map<Tag, Long> found = new HashMap<>();
        final Map<Integer, Integer> lastSequence = new HashMap<>();
        final Set<Long> lsns = new HashSet<>();
        long previous = -1;
        for (final Read record : records) {
            assertTrue(record.lsn() > previous, "lsn " + record.lsn() + " after " + previous);
            previous = record.lsn();
            assertTrue(lsns.add(record.lsn()));
            final Tag tag = TestRecords.verify(record.payload());
            assertFalse(found.containsKey(tag), "record " + tag + " appears twice");
            found.put(tag, record.lsn());
            final Integer last = lastSequence.put(tag.writer(), tag.sequence());
            assertTrue(
                    last == null || last < tag.sequence(),
                    "writer " + tag.writer() + " sequence " + tag.sequence() + " after " + last);
        }
        return found;
    }

    private static void join(final List<Thread> threads) throws InterruptedException {
        final long deadline = System.nanoTime() + WAIT_NS;
        for (final Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                final AssertionError error = new AssertionError(thread.getName() + " did not finish");
                error.setStackTrace(thread.getStackTrace());
                throw error;
            }
        }
    }

    private static void assertNoFailures(final List<Throwable> failures) {
        if (!failures.isEmpty()) {
            final AssertionError error = new AssertionError(failures.size() + " thread(s) failed", failures.get(0));
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }
}
