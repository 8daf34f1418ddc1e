package io.walden.bench.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The commit log people write by hand: one {@link FileChannel} appended to under a lock, each
 * writer writing its record and, every {@code forceEvery} records, calling {@code force(false)}
 * (fdatasync) before it releases the lock. {@code forceEvery} 1 is a sync per record (the record is
 * durable when the call returns: {@code SYNCED}); larger values batch by count, as many commit logs
 * do, and acknowledge a record before it is durable (a crash loses up to {@code forceEvery - 1}
 * acknowledged records: {@code WRITTEN}). The file grows with every write, as it would.
 *
 * <p><b>Threading:</b> as {@link Target}; appends are serialised by the lock.
 */
final class FileChannelTarget implements Target {
    private final FileChannel channel;
    private final ReentrantLock lock = new ReentrantLock();
    private final int recordBytes;
    private final long forceEvery;
    private long appended;
    private volatile long syncs;

    FileChannelTarget(final Path directory, final int recordBytes, final long forceEvery) throws IOException {
        this.channel =
                FileChannel.open(directory.resolve("log.dat"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        this.recordBytes = recordBytes;
        this.forceEvery = forceEvery;
    }

    @Override
    public Appender appender(final int writerIndex) {
        final ByteBuffer payload = Payloads.direct(recordBytes, writerIndex);
        return () -> append(payload);
    }

    private void append(final ByteBuffer payload) throws IOException {
        lock.lock();
        try {
            payload.clear();
            while (payload.hasRemaining()) {
                channel.write(payload);
            }
            if (++appended % forceEvery == 0) {
                channel.force(false);
                syncs = syncs + 1;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long syncs() {
        return syncs;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
