package io.walden.uring;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;

/**
 * Registers the io_uring backend with {@link java.util.ServiceLoader}, behind the FileChannel
 * backend: measured side by side, FileChannel is faster for one writer and for sixteen (README,
 * "Which backend is the default"), so io_uring is chosen only when it is the one backend on the class
 * path, or when configured with {@code WalConfig.Builder.backend}.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class UringStorageBackendProvider implements StorageBackendProvider {
    /** Priority of this backend among available ones; below the FileChannel backend's. */
    public static final int PRIORITY = 5;

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
