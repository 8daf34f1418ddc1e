package io.walden.uring;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** The RecoveryContract suite on the io_uring backend with buffered writes. */
class UringRecoveryTest extends RecoveryContractTest {
    @BeforeAll
    static void requireIoUring() {
        final String reason = UringSupport.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "skipped: io_uring is not available here: " + reason);
    }

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
