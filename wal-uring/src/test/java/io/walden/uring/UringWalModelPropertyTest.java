package io.walden.uring;

import io.walden.model.WalModelProperties;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.Assumptions;

/** The model-based properties on the buffered io_uring backend. */
class UringWalModelPropertyTest extends WalModelProperties {
    @BeforeContainer
    static void requireIoUring() {
        final String reason = UringSupport.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "skipped: io_uring is not available here: " + reason);
    }

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
