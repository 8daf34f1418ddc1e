package io.walden.uring.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operation submitted by a thread that then ends, while the kernel still holds it: io_uring
 * cancels such a request (ECANCELED) when it waits in the ended thread's io-wq, here behind a long
 * write of the same file from another thread (io-wq runs the writes of one file one at a time). An
 * appender that held the log's I/O duty is such a thread. The session submits it again, so it
 * completes, and its bytes are in the file.
 */
@EnabledIfFfmUring
class FfmUringSubmitterExitTest {
    private static final int LONG_WRITE_BYTES = 32 << 20;
    private static final int SHORT_WRITE_BYTES = 4096;
    private static final int ROUNDS = 6;

    @TempDir
    Path directory;

    @Test
    void shouldCompleteAWriteWhoseSubmittingThreadEndedBeforeTheKernelRanIt() throws Exception {
        final ByteBuffer longWrite = ByteBuffer.allocateDirect(LONG_WRITE_BYTES);
        final ByteBuffer shortWrite = ByteBuffer.allocateDirect(SHORT_WRITE_BYTES);
        for (int round = 0; round < ROUNDS; round++) {
            final Path file = directory.resolve("file-" + round);
            final byte marker = (byte) (round + 1);
            for (int i = 0; i < SHORT_WRITE_BYTES; i++) {
                shortWrite.put(i, marker);
            }
            final Map<Long, Long> results = new HashMap<>();
            final Map<Long, IOException> failures = new HashMap<>();
            try (StorageSession session =
                    new FfmUringStorageBackend(new StorageOptions(false, true)).open(directory, () -> {})) {
                ((FfmUringStorageSession) session).forceAsync();
                final int handle = session.openFile(file, true);
                // The test thread keeps the file's io-wq turn busy with a long O_DSYNC write ...
                session.submitWrite(handle, 0, longWrite, 0, LONG_WRITE_BYTES, 1);
                // ... so that the short write, from a thread that ends at once, waits behind it.
                final Thread submitter = new Thread(
                        () -> session.submitWrite(handle, LONG_WRITE_BYTES, shortWrite, 0, SHORT_WRITE_BYTES, 2),
                        "short-lived-submitter");
                submitter.start();
                submitter.join();
                assertFalse(submitter.isAlive());
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (results.size() < 2) {
                    assertTrue(System.nanoTime() < deadlineNs, "completions did not arrive: " + results);
                    session.poll(
                            (token, result, failure) -> {
                                results.put(token, result);
                                failures.put(token, failure);
                            },
                            2);
                    Thread.onSpinWait();
                }
                session.closeFile(handle);
            }
            final int shown = round;
            assertNull(failures.get(1L), () -> "round " + shown + ": the long write failed: " + failures.get(1L));
            assertNull(
                    failures.get(2L),
                    () -> "round " + shown + ": the write of the ended thread failed: " + failures.get(2L));
            assertEquals((long) SHORT_WRITE_BYTES, results.get(2L));
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                final ByteBuffer read = ByteBuffer.allocate(SHORT_WRITE_BYTES);
                channel.read(read, LONG_WRITE_BYTES);
                for (int i = 0; i < SHORT_WRITE_BYTES; i++) {
                    assertEquals(marker, read.get(i), "byte " + i + " of the short write, round " + round);
                }
            }
        }
    }
}
