package io.walden.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import one.jasyncfio.AsyncFile;
import one.jasyncfio.EventExecutor;
import one.jasyncfio.OpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins the behaviour of jasyncfio 0.0.7 that the io_uring session relies on to run a log's I/O from
 * its completions ({@code UringStorageSession}, {@code StorageCapabilities#completionThreadMayRunIo}): a
 * future completes on the event-loop thread, never on the submitter's; and an operation submitted
 * from that thread, inside a completion callback, is carried out by the loop alone: no other thread
 * has to wake it or submit anything (jasyncfio enqueues it directly and submits it when the loop
 * next waits for completions). If an upgrade of jasyncfio changes either, this test fails, not the
 * log.
 */
@EnabledIfIoUring
class JasyncfioEventLoopTest {
    private static final int ATTEMPTS_MAX = 1000;

    @TempDir
    Path directory;

    @Test
    void shouldCompleteOnTheEventLoopAndRunWhatACallbackSubmitsThereWithoutHelp() throws Throwable {
        final Thread testThread = Thread.currentThread();
        final EventExecutor executor = UringExecutors.shared();
        final Path path = directory.resolve("pinned");
        final AsyncFile file = AsyncFile.open(path, 0644, executor, OpenOption.READ_WRITE, OpenOption.CREATE)
                .get(10, TimeUnit.SECONDS);
        final ByteBuffer first = ByteBuffer.allocateDirect(64);
        final ByteBuffer second = ByteBuffer.allocateDirect(64);
        first.put(0, (byte) 1);
        second.put(0, (byte) 2);
        final AtomicReference<Thread> firstThread = new AtomicReference<>();
        final AtomicReference<Thread> secondThread = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        // A future that completes before its callback is attached runs the callback on the attaching
        // thread (CompletableFuture's rule, which the session's completion signal copes with): write
        // again until a callback runs on the event loop, which then chains the rest.
        for (int attempt = 0; attempt < ATTEMPTS_MAX && firstThread.get() == null; attempt++) {
            final CountDownLatch done = new CountDownLatch(1);
            // jasyncfio moves a buffer's position past what it wrote; an empty buffer completes at once.
            first.clear();
            file.write(first, 0, 64).whenComplete((written, error) -> {
                if (error != null) {
                    failure.set(error);
                    done.countDown();
                    return;
                }
                if (Thread.currentThread() == testThread) {
                    done.countDown();
                    return;
                }
                firstThread.set(Thread.currentThread());
                // Submitted on the event loop: a write and then an fdatasync, the way a log writes
                // and syncs from its completions. Their callbacks are attached on the loop, before
                // the loop can look at their completions.
                file.write(second, 64, 64).whenComplete((secondWritten, secondError) -> {
                    if (secondError != null) {
                        failure.set(secondError);
                        done.countDown();
                        return;
                    }
                    file.dataSync().whenComplete((synced, syncError) -> {
                        secondThread.set(Thread.currentThread());
                        failure.set(syncError);
                        done.countDown();
                    });
                });
            });
            // The test thread submits nothing more and does not touch the executor while it waits.
            assertTrue(done.await(10, TimeUnit.SECONDS), "operations submitted on the event loop never completed");
            assertNull(failure.get());
        }
        assertNotNull(firstThread.get(), "no completion ran on the event loop in " + ATTEMPTS_MAX + " writes");
        assertNotEquals(testThread, firstThread.get());
        assertEquals(firstThread.get(), secondThread.get(), "completions ran on more than one thread");
        file.close().get(10, TimeUnit.SECONDS);
        final byte[] bytes = Files.readAllBytes(path);
        assertEquals(128, bytes.length);
        assertEquals(1, bytes[0]);
        assertEquals(2, bytes[64]);
    }
}
