/**
 * The FileChannel storage backend: buffered, O_DIRECT and O_DSYNC, registered with {@link
 * java.util.ServiceLoader} as the default backend.
 */
module io.walden.nio {
    requires transitive io.walden.core;
    // com.sun.nio.file.ExtendedOpenOption.DIRECT, for O_DIRECT.
    requires jdk.unsupported;

    exports io.walden.nio;

    provides io.walden.spi.StorageBackendProvider with
            io.walden.nio.NioStorageBackendProvider;
}
