package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import io.walden.bench.BenchLogs;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Durable writes per second through a Walden storage backend at a fixed number in flight, below the
 * log: the measurement issue 27 (pipelined durable writes) starts from. The command opens one file
 * through the backend's {@link StorageSession}, lays it out (written and synced), then keeps {@code
 * --depth} writes of {@code --block-bytes} in flight on distinct blocks, round robin over the file,
 * each made durable by itself (a backend with O_DSYNC, e.g. {@code uring-direct-dsync}), and counts
 * completions over the measured time. Compare with {@code fio --ioengine=io_uring --direct=1
 * --sync=1 --iodepth=N --rw=write} in the same run.
 *
 * <p>Prints one line: {@value #RESULT_PREFIX} backend, depth, block, writes/s, mean latency.
 *
 * <p><b>Threading:</b> one thread submits and polls, as the SPI requires; it spins on {@code poll}
 * with a short park while nothing completes.
 */
@Command(
        name = "queue-depth",
        hidden = true,
        description = "Durable writes/s through a storage backend with N writes in flight (issue 27).")
public final class QueueDepthCommand implements Callable<Integer> {
    /** Prefix of the result line. */
    public static final String RESULT_PREFIX = "@@QUEUE-DEPTH ";

    @Option(names = "--dir", required = true, description = "directory for the file (emptied first)")
    Path dir;

    @Option(names = "--backend", defaultValue = "uring-direct-dsync", description = "a walden-bench backend name")
    String backend;

    @Option(names = "--depth", defaultValue = "1", description = "writes in flight")
    int depth;

    @Option(
            names = "--sync-each",
            description = "follow each write by a data sync of its own (a backend without O_DSYNC): the"
                    + " fdatasync mode at depth; a slot is free again when its sync completes")
    boolean syncEach;

    @Option(names = "--block-bytes", defaultValue = "4096", description = "bytes per write")
    int blockBytes;

    @Option(names = "--file-mib", defaultValue = "32", description = "file size, MiB (written over round robin)")
    int fileMib;

    @Option(names = "--warmup-ms", defaultValue = "1000")
    long warmupMs;

    @Option(names = "--measure-ms", defaultValue = "3000")
    long measureMs;

    /** The bit that marks a sync's token (with --sync-each); the low bits are the slot. */
    private static final long SYNC_TOKEN = 1L << 32;

    private long completed;
    private long latencyNsTotal;
    private long[] submittedAtNs;
    private int inFlight;
    private IOException failure;

    @Override
    public Integer call() throws Exception {
        BenchFiles.deleteRecursively(dir);
        Files.createDirectories(dir);
        final StorageBackend storage = BenchLogs.backend(backend);
        final long blocks = ((long) fileMib << 20) / blockBytes;
        submittedAtNs = new long[depth];
        try (StorageSession session = storage.open(dir, () -> {})) {
            // Page-aligned, as direct I/O needs.
            final ByteBuffer buffers =
                    ByteBuffer.allocateDirect(blockBytes * depth + 4096).alignedSlice(4096);
            for (int i = 0; i < blockBytes * depth; i++) {
                buffers.put(i, (byte) (i * 31));
            }
            final int handle = session.openFile(dir.resolve("queue-depth.dat"), true);
            layOut(session, handle, buffers, blocks * blockBytes);
            final CompletionHandler handler = (token, result, error) -> {
                inFlight--;
                if (error != null) {
                    failure = error;
                    return;
                }
                completed++;
                latencyNsTotal += System.nanoTime() - submittedAtNs[(int) token];
            };
            long next = 0;
            long measuredFrom = -1;
            long measuredAtStart = 0;
            long latencyAtStart = 0;
            final long startNs = System.nanoTime();
            final long warmEndNs = startNs + TimeUnit.MILLISECONDS.toNanos(warmupMs);
            final long endNs = warmEndNs + TimeUnit.MILLISECONDS.toNanos(measureMs);
            final boolean[] slotBusy = new boolean[depth];
            // With --sync-each: slots whose write completed and whose sync is still to be submitted.
            final boolean[] syncDue = new boolean[depth];
            while (true) {
                final long nowNs = System.nanoTime();
                if (measuredFrom < 0 && nowNs - warmEndNs >= 0) {
                    measuredFrom = nowNs;
                    measuredAtStart = completed;
                    latencyAtStart = latencyNsTotal;
                }
                if (nowNs - endNs >= 0) {
                    break;
                }
                for (int slot = 0; slot < depth; slot++) {
                    if (syncDue[slot]) {
                        syncDue[slot] = false;
                        inFlight++;
                        session.submitSync(handle, slot | SYNC_TOKEN);
                    }
                }
                // Keep every slot busy: each slot's buffer is written to the next block in turn.
                for (int slot = 0; slot < depth && inFlight < depth; slot++) {
                    if (!slotBusy[slot]) {
                        slotBusy[slot] = true;
                        submittedAtNs[slot] = System.nanoTime();
                        inFlight++;
                        session.submitWrite(
                                handle, (next++ % blocks) * blockBytes, buffers, slot * blockBytes, blockBytes, slot);
                    }
                }
                final int polled = session.poll(
                        (token, result, error) -> {
                            final int slot = (int) (token & ~SYNC_TOKEN);
                            if (syncEach && (token & SYNC_TOKEN) == 0 && error == null) {
                                // The write is done; its sync goes next, and the slot stays busy.
                                inFlight--;
                                syncDue[slot] = true;
                                return;
                            }
                            slotBusy[slot] = false;
                            handler.onCompletion(slot, result, error);
                        },
                        depth);
                if (failure != null) {
                    throw failure;
                }
                if (polled == 0) {
                    LockSupport.parkNanos(1_000);
                }
            }
            final double seconds = (System.nanoTime() - measuredFrom) / 1e9;
            final long measured = completed - measuredAtStart;
            System.out.println(RESULT_PREFIX
                    + String.format(
                            Locale.ROOT,
                            "backend=%s%s depth=%d block=%d writes/s=%.0f mean-latency-us=%.1f",
                            backend,
                            syncEach ? "+sync-each" : "",
                            depth,
                            blockBytes,
                            measured / seconds,
                            measured == 0 ? 0.0 : (latencyNsTotal - latencyAtStart) / 1e3 / measured));
            while (inFlight > 0) {
                session.poll((token, result, error) -> inFlight--, depth);
            }
            session.closeFile(handle);
        }
        BenchFiles.deleteRecursively(dir);
        return 0;
    }

    /** Writes the whole file once, then syncs it, so that the measured writes overwrite laid-out blocks. */
    private static void layOut(
            final StorageSession session, final int handle, final ByteBuffer buffer, final long fileBytes)
            throws IOException {
        final int chunk = buffer.capacity();
        final IOException[] error = {null};
        final int[] completions = {0};
        final CompletionHandler handler = (token, result, failure) -> {
            completions[0]++;
            error[0] = failure;
        };
        for (long offset = 0; offset < fileBytes; offset += chunk) {
            completions[0] = 0;
            session.submitWrite(handle, offset, buffer, 0, (int) Math.min(chunk, fileBytes - offset), 0);
            awaitOne(session, handler, completions, error);
        }
        completions[0] = 0;
        session.submitSync(handle, 0);
        awaitOne(session, handler, completions, error);
    }

    private static void awaitOne(
            final StorageSession session,
            final CompletionHandler handler,
            final int[] completions,
            final IOException[] error)
            throws IOException {
        while (completions[0] == 0) {
            if (session.poll(handler, 1) == 0) {
                LockSupport.parkNanos(1_000);
            }
        }
        if (error[0] != null) {
            throw error[0];
        }
    }
}
