/**
 * The io_uring storage backend on jasyncfio: buffered, O_DIRECT and O_DSYNC, registered with {@link
 * java.util.ServiceLoader} behind the FileChannel backend. It needs native access: on JDK 24 and later
 * run with {@code --enable-native-access=ALL-UNNAMED} (or the module's name on the module path).
 */
@SuppressWarnings("requires-automatic")
module io.walden.uring {
    requires transitive io.walden.core;
    // jasyncfio is an automatic module, named from its jar.
    requires jasyncfio;

    exports io.walden.uring;

    provides io.walden.spi.StorageBackendProvider with
            io.walden.uring.UringStorageBackendProvider;
}
