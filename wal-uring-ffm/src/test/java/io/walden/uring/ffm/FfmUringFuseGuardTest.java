package io.walden.uring.ffm;

import io.walden.FuseGuardContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.function.Function;

/** The FUSE guard of the ring-owning io_uring backend: O_DSYNC is not trusted on FUSE. */
@EnabledIfFfmUring
class FfmUringFuseGuardTest extends FuseGuardContractTest {
    @Override
    protected StorageBackend newBackend(final StorageOptions options, final Function<Path, String> fileSystemTypes) {
        return new FfmUringStorageBackend(options, fileSystemTypes);
    }
}
