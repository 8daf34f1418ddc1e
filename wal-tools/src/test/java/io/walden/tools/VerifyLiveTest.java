package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code walden verify --live}: exit 0 on a healthy log that a {@link Wal} in this process keeps
 * appending to (its write in progress is not a torn tail), exit 2 for damage in a sealed segment below
 * it, and exit 1 as ever for a crash's torn tail when no process holds the log.
 */
class VerifyLiveTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);
    private static final int LIVE_TAILS_WANTED = 3;

    private Path root;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        root = TestLogs.newRoot("verify-live");
        dir = root.resolve("log");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void aHealthyLogBeingWrittenExitsZero() throws Exception {
        try (Wal wal = Wal.open(TestLogs.config(dir).build());
                Writer writer = new Writer(wal)) {
            writer.awaitRecords(1000);
            // Run until verify has seen the writer's write in progress a few times: a run that sees only
            // complete frames proves nothing about --live (and without --live such a run exits 0 too).
            int liveTails = 0;
            int runs = 0;
            final long startNs = System.nanoTime();
            while (liveTails < LIVE_TAILS_WANTED) {
                if (System.nanoTime() - startNs > DEADLINE_NS) {
                    fail("in " + runs + " runs, verify saw the write in progress " + liveTails + " time(s), fewer than "
                            + LIVE_TAILS_WANTED + " in 60 s; the writer appended " + writer.records + " records"
                            + (writer.failure.get() != null ? " and failed: " + writer.failure.get() : "") + "; "
                            + wal.stats());
                }
                final ToolRun run = ToolRun.run("verify", "--live", "--json", dir.toString());
                runs++;
                run.assertExit(0);
                final Map<String, Object> result = JsonParser.parseObject(run.out());
                assertEquals("HELD", result.get("lock"), run::toString);
                if ("TORN_TAIL".equals(result.get("verdict"))) {
                    assertEquals(Boolean.TRUE, result.get("liveTail"), run::toString);
                    liveTails++;
                } else {
                    assertEquals("CLEAN", result.get("verdict"), run::toString);
                }
            }
            final ToolRun text = ToolRun.run("verify", "--live", dir.toString()).assertExit(0);
            assertTrue(text.out().startsWith("verdict: "), text::toString);
            writer.assertNoFailure();
        }
    }

    @Test
    void damageInASealedSegmentBelowTheLiveTailIsCorruption() throws Exception {
        try (Wal wal = Wal.open(TestLogs.config(dir).build())) {
            // Three segments hold data: the first is sealed (full, synced, never written again).
            final List<TestLogs.Rec> written = new ArrayList<>();
            long last = 0;
            for (int i = 0; TestLogs.segmentBase(last) < 2L * TestLogs.SEGMENT_BYTES; i++) {
                final byte[] payload = TestLogs.payload(i, 1000);
                last = wal.append(payload, Durability.SYNCED);
                written.add(new TestLogs.Rec(last, payload));
            }
            final TestLogs.Rec victim = written.get(10);
            assertEquals(0, TestLogs.segmentBase(victim.lsn()));
            TestLogs.flipPayloadByte(dir, victim);
            try (Writer writer = new Writer(wal)) {
                writer.awaitRecords(100);
                final ToolRun run = ToolRun.run("verify", "--live", dir.toString())
                        .assertOneLineError(
                                2, SegmentNames.segmentPath(dir, 0).toString(), "at offset " + victim.lsn());
                assertTrue(run.out().startsWith("verdict: CORRUPTION (exit 2)"), run::toString);
                final Map<String, Object> json =
                        JsonParser.parseObject(ToolRun.run("verify", "--live", "--json", dir.toString())
                                .assertExit(2)
                                .out());
                assertEquals("CORRUPTION", json.get("verdict"));
                assertEquals(Boolean.FALSE, json.get("liveTail"));
                writer.assertNoFailure();
            }
        }
    }

    @Test
    void aTornTailWithNoProcessHoldingTheLogIsStillATornTail() throws IOException {
        TestLogs.tornTailLog(dir, 20);
        final ToolRun run = ToolRun.run("verify", "--live", dir.toString()).assertExit(1);
        assertTrue(run.out().contains("--live, but no process holds the log"), run::toString);
        final Map<String, Object> json =
                JsonParser.parseObject(ToolRun.run("verify", "--live", "--json", dir.toString())
                        .assertExit(1)
                        .out());
        assertEquals(Boolean.FALSE, json.get("liveTail"));
    }

    /** Appends to a log on its own thread until closed: mostly WRITTEN, every 50th SYNCED (pacing it). */
    private static final class Writer implements AutoCloseable {
        private final Wal wal;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch started = new CountDownLatch(1);
        private volatile long records;
        private final Thread thread;

        Writer(final Wal wal) {
            this.wal = wal;
            this.thread = new Thread(this::run, "verify-live-writer");
            thread.start();
        }

        private void run() {
            try {
                started.countDown();
                for (int i = 0; !stop.get(); i++) {
                    wal.append(TestLogs.payload(i, 700), i % 50 == 0 ? Durability.SYNCED : Durability.WRITTEN);
                    records = i + 1;
                }
            } catch (final Throwable ex) {
                failure.set(ex);
            }
        }

        /** Waits, with a deadline, until the writer has appended some records. */
        void awaitRecords(final long count) throws InterruptedException {
            assertTrue(started.await(10, TimeUnit.SECONDS), "the writer started");
            final long startNs = System.nanoTime();
            while (records < count && failure.get() == null) {
                if (System.nanoTime() - startNs > DEADLINE_NS) {
                    fail("the writer appended " + records + " records in 60 s, fewer than " + count);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertNoFailure();
        }

        void assertNoFailure() {
            assertNull(failure.get(), () -> "the writer failed: " + failure.get());
        }

        @Override
        public void close() {
            stop.set(true);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while the writer stopped", ex);
            }
            assertTrue(!thread.isAlive(), "the writer stopped within 30 s");
            assertNoFailure();
        }
    }
}
