package io.walden.uring;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** The WalContract suite on the io_uring backend with O_DIRECT writes + fdatasync. */
class UringDirectContractTest extends WalContractTest {
    @BeforeAll
    static void requireIoUring() {
        final String reason = UringSupport.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "skipped: io_uring is not available here: " + reason);
    }

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.DIRECT);
    }
}
