package io.walden.crash.fault;

import io.walden.WalConfig;
import io.walden.spi.StorageBackend;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The log configuration of the fault tests (backends by name come from {@link
 * io.walden.crash.ChildBackends#named}): small segments, so that segment
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
