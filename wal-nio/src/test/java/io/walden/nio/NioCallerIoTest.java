package io.walden.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.WalStats;
import io.walden.spi.StorageOptions;
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
 * An appender that runs its own record's I/O on the FileChannel backend: it does so when alone, and
 * an interrupt that closes the channel under its write or sync neither fails the log nor loses a
 * record.
 */
class NioCallerIoTest {
    private static final int RECORDS = 3000;

    @TempDir
    Path dir;

    private WalConfig config() {
        return WalConfig.builder(dir)
                .backend(new NioStorageBackend(StorageOptions.BUFFERED))
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(4096)
                .build();
    }

    @Test
    void aLoneAppenderRunsItsOwnWritesAndSyncs() {
        try (Wal wal = Wal.open(config())) {
            for (int i = 0; i < 500; i++) {
                wal.append(new byte[64], i % 2 == 0 ? Durability.SYNCED : Durability.WRITTEN);
            }
            final WalStats stats = wal.stats();
            assertTrue(stats.appendsRunByCaller() > 0, "no append ran its own I/O: " + stats);
            assertTrue(stats.appendsRunByCaller() <= 500, stats.toString());
        }
    }

    /**
     * Another thread interrupts the appender every 20 to 300 microseconds, so that interrupts land in
     * its writes and fdatasyncs: FileChannel then closes the channel. The log must go on: an
     * interrupted append reports INTERRUPTED with its LSN, and every record appended, acknowledged or
     * interrupted, becomes durable and reads back after a reopen.
     */
    @Test
    void interruptsOfAnAppenderRunningTheIoNeitherFailTheLogNorLoseRecords() throws Exception {
        final Map<Long, byte[]> appended = new HashMap<>();
        int interruptedAppends = 0;
        final long runByCaller;
        try (Wal wal = Wal.open(config())) {
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
                    final byte[] payload =
                            ByteBuffer.allocate(16).putLong(i).putLong(~i).array();
                    try {
                        appended.put(wal.append(payload, Durability.SYNCED), payload);
                    } catch (final WalException ex) {
                        assertEquals(WalException.ErrorCode.INTERRUPTED, ex.errorCode(), ex.toString());
                        assertTrue(ex.lsn() >= 0, "an interrupted append must name its record: " + ex);
                        appended.put(ex.lsn(), payload);
                        interruptedAppends++;
                    }
                    Thread.interrupted();
                }
            } finally {
                done.set(true);
                joinUninterruptibly(interrupter);
            }
            final WalStats stats = wal.stats();
            assertFalse(stats.failed(), "the log failed: " + stats.failure());
            runByCaller = stats.appendsRunByCaller();
            wal.sync();
            assertFalse(wal.stats().failed(), "the log failed: " + wal.stats().failure());
        }
        assertTrue(interruptedAppends > 0, "no append was interrupted: the test interrupted nothing");
        assertTrue(runByCaller > 0, "no append ran its own I/O, so no interrupt reached it");
        assertEquals(RECORDS, appended.size());
        final int[] read = {0};
        try (Wal wal = Wal.open(config());
                WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] expected = appended.get(lsn);
                assertNotNull(expected, "a record nobody appended at " + lsn);
                final byte[] actual = new byte[length];
                buffer.getBytes(offset, actual);
                assertArrayEquals(expected, actual, "record at " + lsn);
                read[0]++;
            });
            assertEquals(RECORDS, read[0], "records read back after reopening");
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
