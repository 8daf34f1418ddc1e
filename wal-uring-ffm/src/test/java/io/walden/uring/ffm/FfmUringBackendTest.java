package io.walden.uring.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is particular to the FFM io_uring backend: selection, errors in words, completions signalled by
 * its waiter thread, writes completed in any order, and leaks over many opens.
 */
@EnabledIfFfmUring
class FfmUringBackendTest {
    @TempDir
    Path directory;

    @Test
    void shouldBeChosenAheadOfNoOtherBackendButTheFileChannelOnesWhenAlone() {
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(1024)
                .build())) {
            wal.append(new byte[16], Durability.SYNCED);
            assertEquals("uring-ffm", wal.stats().backend());
        }
    }

    @Test
    void shouldNameTheFileOffsetAndErrnoWhenTheKernelRejectsAWrite() throws Exception {
        final List<long[]> results = new ArrayList<>();
        final List<IOException> failures = new ArrayList<>();
        try (StorageSession session = new FfmUringStorageBackend(StorageOptions.DIRECT).open(directory, () -> {})) {
            final int handle = session.openFile(directory.resolve("misaligned"), true);
            final ByteBuffer block = ByteBuffer.allocateDirect(8192);
            // O_DIRECT needs block-aligned offsets: offset 1 is refused by the kernel with EINVAL.
            session.submitWrite(handle, 1, block, 0, 4096, 7);
            pollUntil(session, results, failures, 1);
        }
        assertEquals(7, results.get(0)[0]);
        assertTrue(results.get(0)[1] < 0, "a failed write completes with a negative result");
        final IOException failure = failures.get(0);
        assertNotNull(failure);
        assertTrue(failure.getMessage().contains("misaligned"), failure.getMessage());
        assertTrue(failure.getMessage().contains("at offset 1"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Invalid argument (errno 22)"), failure.getMessage());
    }

    @Test
    void shouldRefuseOpensAsFileChannelDoes() throws IOException {
        try (StorageSession session = new FfmUringStorageBackend().open(directory, () -> {})) {
            assertThrows(NoSuchFileException.class, () -> session.openFile(directory.resolve("missing"), false));
            Files.writeString(directory.resolve("present"), "x");
            assertThrows(FileAlreadyExistsException.class, () -> session.openFile(directory.resolve("present"), true));
        }
    }

    @Test
    void shouldSignalEveryCompletionFromItsWaiterThreadAndDeliverWritesInAnyOrder() throws Exception {
        final int writes = 32;
        final CountDownLatch signalled = new CountDownLatch(1);
        final List<Thread> signallers = new ArrayList<>();
        final List<long[]> results = new ArrayList<>();
        final List<IOException> failures = new ArrayList<>();
        try (StorageSession session = new FfmUringStorageBackend(new StorageOptions(true, true)).open(directory, () -> {
            synchronized (signallers) {
                signallers.add(Thread.currentThread());
            }
            signalled.countDown();
        })) {
            final int handle = session.openFile(directory.resolve("deep"), true);
            final ByteBuffer blocks = ByteBuffer.allocateDirect(4096 * (writes + 1));
            final int base = alignedOffset(blocks);
            for (int i = 0; i < writes; i++) {
                blocks.put(base + i * 4096, (byte) (i + 1));
                session.submitWrite(handle, (long) i * 4096, blocks, base + i * 4096, 4096, i);
            }
            assertTrue(session.inFlight() == writes, "all writes in flight at once");
            assertTrue(signalled.await(30, TimeUnit.SECONDS), "no completion signal");
            pollUntil(session, results, failures, writes);
            session.closeFile(handle);
        }
        final boolean[] seen = new boolean[writes];
        for (int i = 0; i < writes; i++) {
            assertNull(failures.get(i));
            assertEquals(4096, results.get(i)[1]);
            seen[(int) results.get(i)[0]] = true;
        }
        for (int i = 0; i < writes; i++) {
            assertTrue(seen[i], "write " + i + " delivered");
        }
        synchronized (signallers) {
            assertTrue(
                    signallers.stream().allMatch(t -> t.getName().startsWith("walden-uring-ffm-")),
                    signallers.toString());
        }
        final byte[] bytes = Files.readAllBytes(directory.resolve("deep"));
        for (int i = 0; i < writes; i++) {
            assertEquals(i + 1, bytes[i * 4096], "block " + i);
        }
    }

    @Test
    void shouldCompleteASyncOnTheCallerBeforeItReturnsAndSignalItThere() throws Exception {
        final List<Thread> signallers = new ArrayList<>();
        final List<long[]> results = new ArrayList<>();
        final List<IOException> failures = new ArrayList<>();
        try (StorageSession session = new FfmUringStorageBackend().open(directory, () -> {
            synchronized (signallers) {
                signallers.add(Thread.currentThread());
            }
        })) {
            final int handle = session.openFile(directory.resolve("synced"), true);
            final ByteBuffer bytes = ByteBuffer.allocateDirect(64);
            session.submitWrite(handle, 0, bytes, 0, 64, 1);
            pollUntil(session, results, failures, 1);
            synchronized (signallers) {
                signallers.clear();
            }
            session.submitSyncOnCaller(handle, 2);
            synchronized (signallers) {
                assertTrue(signallers.contains(Thread.currentThread()), "signalled on the caller: " + signallers);
            }
            assertEquals(1, session.inFlight());
            final int delivered = session.poll(
                    (token, result, failure) -> {
                        results.add(new long[] {token, result});
                        failures.add(failure);
                    },
                    8);
            assertEquals(1, delivered, "the sync completed before submitSyncOnCaller returned");
            session.closeFile(handle);
        }
        assertEquals(2, results.get(1)[0]);
        assertEquals(0, results.get(1)[1]);
        assertNull(failures.get(1));
    }

    @Test
    void shouldCompleteAWriteOnTheCallerBeforeItReturnsAndNameTheErrnoOfARefusedOne() throws Exception {
        final List<Thread> signallers = new ArrayList<>();
        final List<long[]> results = new ArrayList<>();
        final List<IOException> failures = new ArrayList<>();
        final CompletionHandler record = (token, result, failure) -> {
            results.add(new long[] {token, result});
            failures.add(failure);
        };
        try (StorageSession session = new FfmUringStorageBackend(new StorageOptions(true, true)).open(directory, () -> {
            synchronized (signallers) {
                signallers.add(Thread.currentThread());
            }
        })) {
            final int handle = session.openFile(directory.resolve("on-caller"), true);
            final ByteBuffer blocks = ByteBuffer.allocateDirect(3 * 4096);
            final int base = alignedOffset(blocks);
            blocks.put(base, (byte) 7);
            session.submitWriteOnCaller(handle, 4096, blocks, base, 4096, 1);
            synchronized (signallers) {
                assertTrue(signallers.contains(Thread.currentThread()), "signalled on the caller: " + signallers);
            }
            assertEquals(1, session.poll(record, 8), "the write completed before the call returned");
            // O_DIRECT needs block-aligned offsets: the kernel refuses offset 1 with EINVAL.
            session.submitWriteOnCaller(handle, 1, blocks, base, 4096, 2);
            assertEquals(1, session.poll(record, 8));
            session.closeFile(handle);
        }
        assertEquals(1, results.get(0)[0]);
        assertEquals(4096, results.get(0)[1]);
        assertNull(failures.get(0));
        assertEquals(7, Files.readAllBytes(directory.resolve("on-caller"))[4096]);
        assertEquals(2, results.get(1)[0]);
        assertTrue(results.get(1)[1] < 0);
        final String message = failures.get(1).getMessage();
        assertTrue(message.contains("on-caller") && message.contains("Invalid argument (errno 22)"), message);
    }

    @Test
    void shouldAllocateSegmentsWithFallocateOnThisFileSystem() throws Exception {
        for (final StorageOptions options : List.of(StorageOptions.BUFFERED, StorageOptions.DIRECT)) {
            final Path file = directory.resolve("allocated-" + options.directIo());
            final List<long[]> results = new ArrayList<>();
            final List<IOException> failures = new ArrayList<>();
            try (StorageSession session = new FfmUringStorageBackend(options).open(directory, () -> {})) {
                final int handle = session.openFile(file, true);
                session.submitAllocate(handle, 0, 1 << 20, 3);
                pollUntil(session, results, failures, 1);
                session.closeFile(handle);
            }
            assertNull(failures.get(0));
            assertEquals(1 << 20, results.get(0)[1], "fallocate result with " + options);
            assertEquals(1 << 20, Files.size(file));
        }
    }

    @Test
    void shouldReportNoReasonWhereIoUringRuns() {
        assertNull(new FfmUringStorageBackendProvider().unavailableReason());
    }

    private static void pollUntil(
            final StorageSession session,
            final List<long[]> results,
            final List<IOException> failures,
            final int count) {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (results.size() < count) {
            assertTrue(
                    System.nanoTime() < deadlineNs, "completions did not arrive: " + results.size() + " of " + count);
            session.poll(
                    (token, result, failure) -> {
                        results.add(new long[] {token, result});
                        failures.add(failure);
                    },
                    count);
            Thread.onSpinWait();
        }
    }

    private static int alignedOffset(final ByteBuffer buffer) {
        final int misalignment = buffer.alignmentOffset(0, 4096);
        return misalignment == 0 ? 0 : 4096 - misalignment;
    }
}
