package io.walden.nio;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;

/**
 * Registers the FileChannel backend with {@link java.util.ServiceLoader}. It runs everywhere, so it
 * has a low priority: a faster backend that is available wins.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class NioStorageBackendProvider implements StorageBackendProvider {
    /** Priority of this backend among available ones. */
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
