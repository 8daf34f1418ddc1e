package io.walden.bench.harness;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * The oldest way to a durable append in Java: a {@link RandomAccessFile} in {@code "rw"} mode,
 * {@code write(bytes)} then {@code getFD().sync()} (fsync: data and metadata) per record, under the
 * file's monitor.
 *
 * <p><b>Threading:</b> as {@link Target}; appends are serialised.
 */
final class RandomAccessFileTarget implements Target {
    private final RandomAccessFile file;
    private final int recordBytes;
    private volatile long syncs;

    RandomAccessFileTarget(final Path directory, final int recordBytes) throws IOException {
        this.file = new RandomAccessFile(directory.resolve("log.dat").toFile(), "rw");
        this.recordBytes = recordBytes;
    }

    @Override
    public Appender appender(final int writerIndex) {
        final byte[] payload = Payloads.array(recordBytes, writerIndex);
        return () -> append(payload);
    }

    private void append(final byte[] payload) throws IOException {
        synchronized (file) {
            file.write(payload);
            file.getFD().sync();
            syncs = syncs + 1;
        }
    }

    @Override
    public long syncs() {
        return syncs;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
