package io.walden.uring;

import io.walden.model.WalModelProperties;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The model-based properties on the buffered io_uring backend. */
@EnabledIfIoUring
class UringWalModelPropertyTest extends WalModelProperties {
    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
