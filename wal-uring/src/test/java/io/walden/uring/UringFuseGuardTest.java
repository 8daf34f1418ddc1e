package io.walden.uring;

import io.walden.FuseGuardContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.function.Function;

/** The FUSE guard of the io uring backend: O_DSYNC is not trusted on FUSE. */
@EnabledIfIoUring
class UringFuseGuardTest extends FuseGuardContractTest {
    @Override
    protected StorageBackend newBackend(final StorageOptions options, final Function<Path, String> fileSystemTypes) {
        return new UringStorageBackend(options, fileSystemTypes);
    }
}
