package io.walden.internal;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.internal.state.NoSpace;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.IoErrors;
import io.walden.spi.StorageBackend;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Opens a log: creates its directory durably, takes the directory lock, chooses the backend,
 * recovers the log and starts its first engine, then hands the parts to the log's constructor. On
 * failure the lock is released again.
 *
 * <p><b>Threading:</b> stateless; called by the thread that opens a log.
 */
public final class LogOpening {
    private LogOpening() {}

    @FunctionalInterface
    public interface Opened<T> {
        T open(
                WalConfig config,
                DirectoryLock lock,
                StorageBackend backend,
                String fileSystemType,
                StatsCounters stats,
                LogEngine engine);
    }

    /**
     * Opens a log, creating it if the directory holds none, and runs recovery, with the interrupt flag
     * cleared (an interrupt would close the FileChannels it uses) and set again for the caller.
     */
    public static <T> T open(
            final WalConfig config, final Function<Path, String> fileSystemTypes, final Opened<T> opened) {
        final boolean interrupted = Thread.interrupted();
        try {
            return openUninterrupted(config, fileSystemTypes, opened);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static <T> T openUninterrupted(
            final WalConfig config, final Function<Path, String> fileSystemTypes, final Opened<T> opened) {
        try {
            LogDirectories.createDurably(config.directory());
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO,
                    "cannot create the log directory " + config.directory() + ": " + IoErrors.reason(ex),
                    ex);
        }
        final DirectoryLock lock = DirectoryLock.acquire(config.directory());
        try {
            final StorageBackend backend =
                    config.backend() != null ? config.backend() : BackendSelector.select(config.storageOptions());
            final String fileSystemType = fileSystemTypes.apply(config.directory());
            final StatsCounters stats = new StatsCounters();
            final LogEngine engine = LogEngine.start(
                    config,
                    backend,
                    null,
                    stats,
                    capabilities -> LogDirectories.warnIfNotDurable(
                            config.directory(), fileSystemType, capabilities.durabilityNote()));
            // An existing log's segment capacity wins; what was not set follows it (maxRecordBytes).
            final WalConfig logConfig =
                    config.forSegmentCapacity(engine.recovered().segmentCapacityBytes());
            return opened.open(logConfig, lock, backend, fileSystemType, stats, engine);
        } catch (final IOException ex) {
            lock.close();
            throw new WalException(
                    NoSpace.errorCode(ex),
                    "cannot open the log in " + config.directory() + ": " + IoErrors.describe(ex),
                    ex);
        } catch (final RuntimeException | Error ex) {
            lock.close();
            throw ex;
        }
    }
}
