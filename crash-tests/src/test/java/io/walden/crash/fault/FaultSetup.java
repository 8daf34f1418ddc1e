package io.walden.crash.fault;

import io.walden.WalConfig;
import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.uring.UringStorageBackend;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Backends by name and the log configuration of the fault tests: small segments, so that segment
 * preparation (allocation, zero-fill, directory sync) happens every few hundred records, and an append
 * timeout long enough that appenders blocked while a fault is held back never time out.
 *
 * <p><b>Threading:</b> stateless.
 */
final class FaultSetup {
    /** Largest record the appenders write. */
    static final int MAX_RECORD_BYTES = 8 * 1024;

    private FaultSetup() {}

    /**
     * The real backend of a name.
     *
     * @param name {@code nio}, {@code nio-direct}, {@code uring} or {@code uring-direct}.
     * @return a new backend.
     */
    static StorageBackend backend(final String name) {
        return switch (name) {
            case "nio" -> new NioStorageBackend(StorageOptions.BUFFERED);
            case "nio-direct" -> new NioStorageBackend(StorageOptions.DIRECT);
            case "uring" -> new UringStorageBackend(StorageOptions.BUFFERED);
            case "uring-direct" -> new UringStorageBackend(StorageOptions.DIRECT);
            default -> throw new IllegalArgumentException("unknown backend " + name);
        };
    }

    /**
     * The configuration of a log.
     *
     * @param directory the log directory.
     * @param backend the backend.
     * @return the configuration.
     */
    static WalConfig config(final Path directory, final StorageBackend backend) {
        return WalConfig.builder(directory)
                .backend(backend)
                .segmentCapacityBytes(WalConfig.SEGMENT_CAPACITY_BYTES_MIN)
                .bufferCapacityBytes(WalConfig.BUFFER_CAPACITY_BYTES_MIN)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .syncIntervalNs(TimeUnit.MILLISECONDS.toNanos(5))
                .appendTimeoutNs(TimeUnit.SECONDS.toNanos(60))
                .build();
    }
}
