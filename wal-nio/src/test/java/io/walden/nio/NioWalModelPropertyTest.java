package io.walden.nio;

import io.walden.model.WalModelProperties;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The model-based properties on the buffered FileChannel backend. */
class NioWalModelPropertyTest extends WalModelProperties {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.BUFFERED);
    }
}
