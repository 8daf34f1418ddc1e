package io.walden.uring.ffm;

import io.walden.model.WalModelProperties;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The model-based properties on the FFM io_uring backend with O_DIRECT + O_DSYNC writes. */
@EnabledIfFfmUring
class FfmUringWalModelPropertyTest extends WalModelProperties {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(new StorageOptions(true, true));
    }
}
