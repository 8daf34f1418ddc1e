package io.walden.internal;

import io.walden.WalConfig;
import io.walden.internal.append.AppendPath;
import io.walden.internal.append.AppendWaits;
import io.walden.internal.append.BufferClaim;
import io.walden.internal.append.RecordLimits;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open log's engine for unit tests of the parts a {@code Wal} is made of: the directory lock, a
 * running {@link LogEngine} on {@link FileRecordingSession}s (real files, each operation done at
 * once) and its {@link EngineHolder}, with small segments. Closing it closes the log.
 *
 * <p><b>Threading:</b> the test's thread.
 */
public final class EngineFixture implements AutoCloseable {
    public static final int SEGMENT_BYTES = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;

    public final WalConfig config;
    public final RecordingBackend backend = new RecordingBackend();
    public final StatsCounters stats = new StatsCounters();
    public final EngineHolder holder;

    public EngineFixture(final Path directory) {
        this(directory, WalConfig.builder(directory));
    }

    public EngineFixture(final Path directory, final WalConfig.Builder builder) {
        this.config =
                builder.backend(backend).segmentCapacityBytes(SEGMENT_BYTES).build();
        try {
            Files.createDirectories(directory);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        final DirectoryLock lock = DirectoryLock.acquire(directory);
        this.holder = new EngineHolder(directory, lock, startEngine(null));
    }

    /** @return the log's state. */
    public LogState state() {
        return holder.state();
    }

    /** Starts an engine on the log's files as they are, continuing a stopped one's state (or null). */
    public LogEngine startEngine(final LogState existingState) {
        try {
            return LogEngine.start(config, backend, existingState, stats, session -> {});
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Stops the current engine, handing its state over, and puts a new one on the same files in its
     * place, as a truncateAfter that cuts nothing would.
     *
     * @return the stopped engine.
     */
    LogEngine replaceEngine() {
        synchronized (holder.closeLock()) {
            final LogEngine old = holder.engine();
            old.stop(true);
            holder.replace(startEngine(holder.state()));
            return old;
        }
    }

    /** @return an append path on the log, whose appends wait up to 30 s for buffer space. */
    public AppendPath appendPath() {
        return new AppendPath(
                holder,
                new BufferClaim(config.directory(), holder.state(), stats, TimeUnit.SECONDS.toNanos(30)),
                new AppendWaits(holder),
                new RecordLimits(config.maxRecordBytes()),
                null);
    }

    @Override
    public void close() {
        holder.close();
    }

    /** Opens a {@link FileRecordingSession} per engine; can be told to refuse the opens after some. */
    public static final class RecordingBackend implements StorageBackend {
        // Opens left before each open fails; negative: never fail. Any thread.
        private final AtomicInteger opensLeft = new AtomicInteger(-1);

        /** Makes every open after the next {@code count} fail. */
        public void failOpensAfter(final int count) {
            opensLeft.set(count);
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
            if (opensLeft.getAndUpdate(left -> left > 0 ? left - 1 : left) == 0) {
                throw new IOException("the test backend opens no more sessions");
            }
            return new FileRecordingSession();
        }
    }
}
