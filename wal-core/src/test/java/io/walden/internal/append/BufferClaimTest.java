package io.walden.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Claiming with back pressure, on a log buffer that no I/O thread drains: the test frees space itself. */
class BufferClaimTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int FRAME = 16 * 1024;
    private static final Path DIRECTORY = Path.of("/var/lib/app/wal");

    private final LogState state = new LogState(HEADER, HEADER, 0);
    private final StatsCounters stats = new StatsCounters();

    @Test
    void shouldClaimAtOnceWhenThereIsSpace() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            final AtomicInteger wakes = new AtomicInteger();

            assertEquals(HEADER, claim(TimeUnit.SECONDS.toNanos(10)).claim(buffer, wakes::incrementAndGet, FRAME));

            assertEquals(0, wakes.get());
            assertEquals(0, backPressureWaits(buffer));
        }
    }

    @Test
    void shouldTimeOutNamingTheTimeoutTheBufferAndTheDirectory() {
        try (LogBuffer buffer = filled()) {
            final long tail = buffer.tailPosition();

            final WalException timedOut = assertThrows(WalException.class, () -> claim(TimeUnit.MILLISECONDS.toNanos(1))
                    .claim(buffer, () -> {}, FRAME));

            assertEquals(WalException.ErrorCode.BACK_PRESSURE_TIMEOUT, timedOut.errorCode());
            assertEquals(
                    "append waited 1 ms (appendTimeoutNs) for space in the 65536-byte log buffer"
                            + " (bufferCapacityBytes) of " + DIRECTORY + ": the disk is slower than the appenders;"
                            + " slow down, or raise appendTimeoutNs",
                    timedOut.getMessage());
            assertEquals(WalException.NO_LSN, timedOut.lsn());
            assertEquals(tail, buffer.tailPosition(), "a timed-out claim leaves nothing behind");
            assertEquals(1, backPressureWaits(buffer));
        }
    }

    @Test
    void shouldClaimOnceTheIoThreadFreesSpace() {
        try (LogBuffer buffer = filled()) {
            final long tail = buffer.tailPosition();
            final AtomicInteger wakes = new AtomicInteger();
            // The wake stands in for the I/O thread: woken, it writes everything and frees the space.
            final Runnable ioWake = () -> {
                if (wakes.incrementAndGet() == 1) {
                    buffer.release(tail);
                }
            };

            final long position = claim(TimeUnit.SECONDS.toNanos(10)).claim(buffer, ioWake, FRAME);

            // The frame does not fit before the lap's (and segment's) end: it goes after the next header.
            assertEquals(CAPACITY + HEADER, position);
            assertTrue(wakes.get() >= 1);
            assertEquals(1, backPressureWaits(buffer));
        }
    }

    @Test
    void shouldReportAClosedBufferForTheCallerToJudge() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            buffer.closeTail();

            assertEquals(LogBuffer.CLOSED, claim(TimeUnit.SECONDS.toNanos(10)).claim(buffer, () -> {}, FRAME));
        }
    }

    @Test
    void shouldStopWaitingWhenInterruptedAndKeepTheInterrupt() {
        try (LogBuffer buffer = filled()) {
            Thread.currentThread().interrupt();
            try {
                final WalException interrupted =
                        assertThrows(WalException.class, () -> claim(TimeUnit.SECONDS.toNanos(10))
                                .claim(buffer, () -> {}, FRAME));

                assertEquals(WalException.ErrorCode.INTERRUPTED, interrupted.errorCode());
                assertEquals(
                        "interrupted while waiting for log buffer space; nothing was appended",
                        interrupted.getMessage());
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
        }
    }

    private BufferClaim claim(final long appendTimeoutNs) {
        return new BufferClaim(DIRECTORY, state, stats, appendTimeoutNs);
    }

    /** A buffer with no space for another frame. */
    private static LogBuffer filled() {
        final LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER);
        while (buffer.claim(FRAME) >= 0) {
            // Claimed and never written: nothing frees it but the test.
        }
        return buffer;
    }

    private long backPressureWaits(final LogBuffer buffer) {
        return stats.snapshot("test", state, buffer, "ext4", null).backPressureWaits();
    }
}
