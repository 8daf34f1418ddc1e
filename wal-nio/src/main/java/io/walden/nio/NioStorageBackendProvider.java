package io.walden.nio;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;

/**
 * Registers the FileChannel backend with {@link java.util.ServiceLoader}: the default wherever it is
 * on the class path, because it measured faster than the io_uring backend (README, "Which backend
 * is the default").
 *
 * <p><b>Threading:</b> stateless.
 */
public final class NioStorageBackendProvider implements StorageBackendProvider {
    /** Priority of this backend among available ones; above the io_uring backend's. */
    public static final int PRIORITY = 10;

    /** Creates the provider; called by {@link java.util.ServiceLoader}. */
    public NioStorageBackendProvider() {}

    @Override
    public String name() {
        return "nio";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public StorageBackend create(final StorageOptions options) {
        return new NioStorageBackend(options);
    }
}
