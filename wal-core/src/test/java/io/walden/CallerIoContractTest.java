package io.walden;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.StorageBackend;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An appender that runs its own record's I/O ({@code StorageCapabilities#callerMayRunIo()}) may be
 * interrupted anywhere in it: the interrupt is the appender's, not the log's, so it neither fails the
 * log nor loses a record. Every backend whose sessions let appenders run I/O runs this suite.
 */
public abstract class CallerIoContractTest {
    private static final int RECORDS = 3000;
    /** Interrupts that must land in the appender's own I/O. */
    private static final int INTERRUPTS_WANTED = 50;
    /** Most appends while waiting for them. */
    private static final int RECORDS_MAX = 50_000;

    @TempDir
    Path dir;

    /**
     * The backend under test.
     *
     * @return a new backend.
     */
    protected abstract StorageBackend newBackend();

    /**
     * Whether an interrupt set inside one of the backend's own operations reaches the append that ran
     * it (a {@code FileChannel} closed under the operation hands it off, and the append then waits and
     * sees the interrupt). A backend whose operations are system calls that ignore Java interrupts
     * completes the record, and the append returns; it says false.
     *
     * @return true by default.
     */
    protected boolean interruptInsideAnOperationReachesTheAppend() {
        return true;
    }

    private WalConfig config(final StorageBackend backend) {
        return WalConfig.builder(dir)
                .backend(backend)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(4096)
                .build();
    }

    /**
     * The appender is interrupted inside one in three of the writes and syncs it runs itself: a
     * wrapper backend sets its interrupt flag just before the real operation (FileChannel then closes
     * the channel under it). The log must go on: an interrupted append reports INTERRUPTED with its
     * LSN, and every record appended, acknowledged or interrupted, becomes durable and reads back
     * after a reopen. Appends go on until {@value #INTERRUPTS_WANTED} interrupts have landed, however
     * seldom a busy machine lets the appender run its own I/O, and until an append reported one.
     */
    @Test
    void interruptsOfAnAppenderRunningTheIoNeitherFailTheLogNorLoseRecords() throws Exception {
        final CallerInterruptingBackend backend =
                new CallerInterruptingBackend(newBackend(), Thread.currentThread(), 3, 7);
        final Map<Long, byte[]> appended = new HashMap<>();
        final int[] interruptedAppends = {0};
        try (Wal wal = Wal.open(config(backend))) {
            backend.arm();
            // Where an interrupted operation completes the record anyway (a system call that ignores
            // Java interrupts), whether the append still sees the interrupt depends on timing: go on
            // until one has, too.
            for (int i = 0;
                    i < RECORDS_MAX
                            && (backend.interrupts() < INTERRUPTS_WANTED
                                    || (interruptedAppends[0] == 0 && interruptInsideAnOperationReachesTheAppend()));
                    i++) {
                appendCatchingInterrupts(wal, i, appended, interruptedAppends);
            }
            assertFalse(wal.stats().failed(), "the log failed: " + wal.stats().failure());
            wal.sync();
            assertFalse(wal.stats().failed(), "the log failed: " + wal.stats().failure());
        }
        assertTrue(
                backend.interrupts() >= INTERRUPTS_WANTED,
                "only " + backend.interrupts() + " interrupts landed in the appender's own I/O ("
                        + backend.callerOperations() + " writes and syncs it ran) in " + appended.size()
                        + " appends");
        assertTrue(
                interruptedAppends[0] > 0 || !interruptInsideAnOperationReachesTheAppend(),
                "no append reported its interrupt: " + backend.interrupts() + " interrupts landed in "
                        + backend.callerOperations() + " writes and syncs the appender ran, in " + appended.size()
                        + " appends");
        assertAllReadBack(appended);
    }

    /**
     * Another thread interrupts the appender every 20 to 300 microseconds, wherever it is: in its own
     * write or sync, waiting for the I/O thread, or between appends. The log must go on, and every
     * record appended, acknowledged or interrupted, reads back after a reopen.
     */
    @Test
    void interruptsAtRandomMomentsNeitherFailTheLogNorLoseRecords() throws Exception {
        final Map<Long, byte[]> appended = new HashMap<>();
        final int[] interruptedAppends = {0};
        try (Wal wal = Wal.open(config(newBackend()))) {
            final Thread appender = Thread.currentThread();
            final AtomicBoolean done = new AtomicBoolean();
            final Thread interrupter = new Thread(() -> {
                final SplittableRandom random = new SplittableRandom(7);
                while (!done.get()) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(20, 300)));
                    appender.interrupt();
                }
            });
            interrupter.start();
            try {
                for (int i = 0; i < RECORDS; i++) {
                    appendCatchingInterrupts(wal, i, appended, interruptedAppends);
                }
            } finally {
                done.set(true);
                joinUninterruptibly(interrupter);
            }
            assertFalse(wal.stats().failed(), "the log failed: " + wal.stats().failure());
            wal.sync();
            assertFalse(wal.stats().failed(), "the log failed: " + wal.stats().failure());
        }
        assertTrue(interruptedAppends[0] > 0, "no append was interrupted: the test interrupted nothing");
        assertAllReadBack(appended);
    }

    /** Appends record {@code i} SYNCED; an interrupted append must name its record, which counts as appended. */
    private static void appendCatchingInterrupts(
            final Wal wal, final int i, final Map<Long, byte[]> appended, final int[] interruptedAppends) {
        final byte[] payload = ByteBuffer.allocate(16).putLong(i).putLong(~i).array();
        try {
            appended.put(wal.append(payload, Durability.SYNCED), payload);
        } catch (final WalException ex) {
            assertEquals(WalException.ErrorCode.INTERRUPTED, ex.errorCode(), ex.toString());
            assertTrue(ex.lsn() >= 0, "an interrupted append must name its record: " + ex);
            appended.put(ex.lsn(), payload);
            interruptedAppends[0]++;
        }
        Thread.interrupted();
    }

    /** Reopens the log and reads back exactly the appended records. */
    private void assertAllReadBack(final Map<Long, byte[]> appended) {
        final int[] read = {0};
        try (Wal wal = Wal.open(config(newBackend()));
                WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] expected = appended.get(lsn);
                assertNotNull(expected, "a record nobody appended at " + lsn);
                final byte[] actual = new byte[length];
                buffer.getBytes(offset, actual);
                assertArrayEquals(expected, actual, "record at " + lsn);
                read[0]++;
            });
            assertEquals(appended.size(), read[0], "records read back after reopening");
        }
    }

    /** Joins a thread that may still interrupt this one while it stops. */
    private static void joinUninterruptibly(final Thread thread) {
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (final InterruptedException ex) {
                // the interrupter's last interrupt
            }
        }
        Thread.interrupted();
    }
}
