package io.walden.uring.ffm;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;

/**
 * Registers the FFM io_uring backend with {@link java.util.ServiceLoader}: behind the FileChannel
 * backend (the default, chosen by measurement), ahead of the jasyncfio io_uring backend, which it
 * beats side by side (docs/measurements/2026-11-27-ffm-io-uring.md).
 *
 * <p><b>Threading:</b> stateless.
 */
public final class FfmUringStorageBackendProvider implements StorageBackendProvider {
    /** Priority of this backend among available ones: below FileChannel's 10, above jasyncfio's 5. */
    public static final int PRIORITY = 7;

    /** Creates the provider; called by {@link java.util.ServiceLoader}. */
    public FfmUringStorageBackendProvider() {}

    @Override
    public String name() {
        return "uring-ffm";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public String unavailableReason() {
        return FfmUringSupport.unavailableReason();
    }

    @Override
    public StorageBackend create(final StorageOptions options) {
        return new FfmUringStorageBackend(options);
    }
}
