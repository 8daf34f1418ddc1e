package io.walden.bench.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link AsynchronousFileChannel} as its documentation suggests: each writer takes the next file
 * position, {@code write(buffer, position)}, waits for the future, then {@code force(false)} (the
 * API has no asynchronous force). With the JDK's default thread pool ({@code open} without an
 * executor: an unbounded cached pool) or with a fixed pool of four threads.
 *
 * <p><b>Threading:</b> as {@link Target}; writers run concurrently, each force covers at least its
 * own write.
 */
final class AsyncFileChannelTarget implements Target {
    private static final int FIXED_POOL_THREADS = 4;

    private final AsynchronousFileChannel channel;
    private final ExecutorService pool;
    private final int recordBytes;
    private final AtomicLong nextPosition = new AtomicLong();
    private final LongAdder syncs = new LongAdder();

    AsyncFileChannelTarget(final Path directory, final int recordBytes, final boolean fixedPool) throws IOException {
        this.recordBytes = recordBytes;
        final Path file = directory.resolve("log.dat");
        final Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        if (fixedPool) {
            pool = Executors.newFixedThreadPool(FIXED_POOL_THREADS);
            channel = AsynchronousFileChannel.open(file, options, pool);
        } else {
            pool = null;
            channel = AsynchronousFileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }
    }

    @Override
    public Appender appender(final int writerIndex) {
        final ByteBuffer payload = Payloads.direct(recordBytes, writerIndex);
        return () -> append(payload);
    }

    private void append(final ByteBuffer payload) throws IOException, InterruptedException, ExecutionException {
        long position = nextPosition.getAndAdd(recordBytes);
        payload.clear();
        while (payload.hasRemaining()) {
            position += channel.write(payload, position).get();
        }
        channel.force(false);
        syncs.increment();
    }

    @Override
    public long syncs() {
        return syncs.sum();
    }

    @Override
    public void close() throws IOException {
        channel.close();
        if (pool != null) {
            pool.shutdown();
            try {
                pool.awaitTermination(10, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
