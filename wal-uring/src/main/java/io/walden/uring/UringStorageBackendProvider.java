package io.walden.uring;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;

/**
 * Registers the io_uring backend with {@link java.util.ServiceLoader}, ahead of the FileChannel
 * backend when the kernel offers io_uring.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class UringStorageBackendProvider implements StorageBackendProvider {
    /** Priority of this backend among available ones; above the FileChannel backend's. */
    public static final int PRIORITY = 20;

    /** Creates the provider; called by {@link java.util.ServiceLoader}. */
    public UringStorageBackendProvider() {}

    @Override
    public String name() {
        return "uring";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public String unavailableReason() {
        return UringSupport.unavailableReason();
    }

    @Override
    public StorageBackend create(final StorageOptions options) {
        return new UringStorageBackend(options);
    }
}
