/**
 * The io_uring storage backend that owns its ring through the Foreign Function and Memory API (JDK 22
 * and later), registered with {@link java.util.ServiceLoader} behind the FileChannel backend. It needs
 * native access: {@code --enable-native-access=io.walden.uring.ffm} on the module path, or {@code
 * ALL-UNNAMED} on the class path.
 */
module io.walden.uring.ffm {
    requires transitive io.walden.core;

    exports io.walden.uring.ffm;

    provides io.walden.spi.StorageBackendProvider with
            io.walden.uring.ffm.FfmUringStorageBackendProvider;
}
