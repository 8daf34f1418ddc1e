package io.walden.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.internal.EngineFixture;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.events.BackPressureEvent;
import io.walden.internal.state.LogBuffer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class AppendPathTest {
    private static final byte[] RECORD = new byte[100];
    private static final int FRAMED = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(RECORD.length));

    @TempDir
    Path tempDir;

    @Test
    void shouldAppendEachKindOfPayloadInConsecutiveFrames() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();

            final long first = appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES);
            final long second = appends.append(
                    ByteBuffer.wrap(RECORD), 0, RECORD.length, Durability.SYNCED, FramePublisher.BYTE_BUFFER);
            final long third = appends.append(
                    new UnsafeBuffer(RECORD), 0, RECORD.length, Durability.BUFFERED, FramePublisher.DIRECT_BUFFER);

            assertEquals(first + FRAMED, second);
            assertEquals(second + FRAMED, third);
            assertTrue(fixture.state().durablePosition() > second);
            assertEquals(third + FRAMED, fixture.holder.engine().logBuffer().tailPosition());
        }
    }

    @Test
    void shouldRefuseWithoutClaimingAnything() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final long tail = fixture.holder.engine().logBuffer().tailPosition();
            final byte[] tooLarge = new byte[fixture.config.maxRecordBytes() + 1];

            assertEquals(
                    WalException.ErrorCode.CONFIG,
                    assertThrows(
                                    WalException.class,
                                    () -> appends.append(
                                            tooLarge, 0, tooLarge.length, Durability.WRITTEN, FramePublisher.BYTES))
                            .errorCode());
            assertEquals(
                    WalException.ErrorCode.CONFIG,
                    assertThrows(
                                    WalException.class,
                                    () -> appends.append(RECORD, 0, RECORD.length, null, FramePublisher.BYTES))
                            .errorCode());
            assertEquals(tail, fixture.holder.engine().logBuffer().tailPosition());
        }
    }

    @Test
    @Timeout(60)
    void shouldClaimAgainInTheEngineThatReplacedAStoppedOne() throws InterruptedException {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final EngineHolder holder = fixture.holder;
            final AppendPath appends = fixture.appendPath();
            final AtomicLong lsn = new AtomicLong(-1);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread appender = new Thread(() -> {
                try {
                    lsn.set(appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES));
                } catch (final Throwable ex) {
                    failure.set(ex);
                }
            });
            final LogEngine next;
            synchronized (holder.closeLock()) {
                // As truncateAfter does: the stopped engine's buffer refuses claims as closed.
                holder.engine().stop(true);
                appender.start();
                // The appender found the buffer closed and asks, under this lock, whether the engine was
                // replaced or the log closed.
                awaitBlockedOn(appender, holder.closeLock());
                next = fixture.startEngine(holder.state());
                holder.replace(next);
            }
            appender.join();

            assertNull(failure.get());
            assertTrue(lsn.get() >= next.recovered().endPosition(), "claimed in the engine that replaced it");
            assertEquals(lsn.get() + FRAMED, next.logBuffer().tailPosition());
            assertTrue(fixture.state().writtenPosition() > lsn.get());
        }
    }

    @Test
    void shouldRefuseAnAppendToAClosedLog() {
        final EngineFixture fixture = new EngineFixture(tempDir.resolve("log"));
        final AppendPath appends = fixture.appendPath();
        fixture.close();

        final WalException refused = assertThrows(
                WalException.class,
                () -> appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES));

        assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
        assertEquals("the log in " + fixture.config.directory() + " is closed", refused.getMessage());
        assertEquals(WalException.NO_LSN, refused.lsn());
        assertEquals(LogBuffer.CLOSED, appends.tryAppend(new UnsafeBuffer(RECORD), 0, RECORD.length));
    }

    @Test
    void shouldTellATryingAppenderToComeBackWhileTheEngineIsReplacedAndThatTheLogFailed() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final EngineHolder holder = fixture.holder;
            final AppendPath appends = fixture.appendPath();
            final UnsafeBuffer record = new UnsafeBuffer(RECORD);
            final long lsn = appends.tryAppend(record, 0, RECORD.length);
            assertTrue(lsn >= 0);

            synchronized (holder.closeLock()) {
                holder.engine().stop(true);
                assertEquals(LogBuffer.BACK_PRESSURED, appends.tryAppend(record, 0, RECORD.length));
                holder.closeStopped(new WalException(WalException.ErrorCode.IO, "truncation failed"));
                assertEquals(AppendPath.FAILED, appends.tryAppend(record, 0, RECORD.length));
            }
        }
    }

    @Test
    void shouldOfferWithoutWaitingAndAskForASyncWithoutCountingAWaiter() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final long requestsBefore = fixture.state().syncRequestCount();

            final long synced = appends.offer(RECORD, 0, RECORD.length, true, FramePublisher.BYTES, false);
            final long buffered = appends.offer(RECORD, 0, RECORD.length, false, FramePublisher.BYTES, true);

            assertEquals(synced + FRAMED, buffered);
            assertTrue(fixture.state().syncRequestPosition() > synced, "no sync asked for");
            assertEquals(requestsBefore, fixture.state().syncRequestCount(), "an offer counted a waiter");
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (fixture.state().durablePosition() <= synced) {
                assertTrue(System.nanoTime() - deadlineNs < 0, "the offered record never became durable");
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void shouldAllocateNothingPerAppend() {
        // Over several segments, with rolls and back pressure: the appender's own allocations are counted.
        try (EngineFixture fixture = new EngineFixture(
                tempDir.resolve("log"),
                WalConfig.builder(tempDir.resolve("log")).waitYieldNs(0))) {
            final AppendPath appends = fixture.appendPath();
            final ByteBuffer byteBuffer = ByteBuffer.allocateDirect(RECORD.length);
            final UnsafeBuffer directBuffer = new UnsafeBuffer(RECORD);
            final com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final int appendCount = 3_000;
            appendAll(appends, appendCount, byteBuffer, directBuffer);
            // Loads the back-pressure event's class, which a first wait for space would load (and count).
            BackPressureEvent.beginIfEnabled();

            final long before = threads.getCurrentThreadAllocatedBytes();
            appendAll(appends, appendCount, byteBuffer, directBuffer);
            final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;

            assertTrue(
                    allocatedBytes < appendCount,
                    allocatedBytes + " bytes allocated over " + appendCount + " appends of each kind");
        }
    }

    private static void appendAll(
            final AppendPath appends, final int count, final ByteBuffer byteBuffer, final UnsafeBuffer directBuffer) {
        for (int i = 0; i < count; i++) {
            appends.append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES);
            appends.append(byteBuffer, 0, RECORD.length, Durability.BUFFERED, FramePublisher.BYTE_BUFFER);
            appends.append(directBuffer, 0, RECORD.length, Durability.WRITTEN, FramePublisher.DIRECT_BUFFER);
        }
    }

    /** Returns once a thread waits to enter a monitor (a hook the code needs no change for). */
    private static void awaitBlockedOn(final Thread thread, final Object monitor) {
        final int identity = System.identityHashCode(monitor);
        while (true) {
            final ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
            if (info != null
                    && info.getThreadState() == Thread.State.BLOCKED
                    && info.getLockInfo() != null
                    && info.getLockInfo().getIdentityHashCode() == identity) {
                return;
            }
            if (!thread.isAlive()) {
                fail("the appender ended without asking whether the engine was replaced");
            }
            Thread.yield();
        }
    }
}
