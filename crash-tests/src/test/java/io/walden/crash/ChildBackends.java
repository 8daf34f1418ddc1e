package io.walden.crash;

import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.uring.UringStorageBackend;

/**
 * The storage backends the child programs of the kill and follow tests run, by the name their
 * parent passes on the command line. Copied with every child's classes ({@link ChildJvm}).
 *
 * <p><b>Threading:</b> stateless.
 */
public final class ChildBackends {
    private ChildBackends() {}

    /**
     * Creates a backend by name.
     *
     * @param name {@code nio} or {@code uring}, optionally with {@code -direct}, then optionally with
     *     {@code -dsync} (every write durable by itself; io_uring then keeps several in flight).
     * @return a new backend.
     * @throws IllegalArgumentException for another name.
     */
    public static StorageBackend named(final String name) {
        return switch (name) {
            case "nio" -> new NioStorageBackend(StorageOptions.BUFFERED);
            case "nio-direct" -> new NioStorageBackend(StorageOptions.DIRECT);
            case "uring" -> new UringStorageBackend(StorageOptions.BUFFERED);
            case "uring-direct" -> new UringStorageBackend(StorageOptions.DIRECT);
            case "nio-dsync" -> new NioStorageBackend(new StorageOptions(false, true));
            case "nio-direct-dsync" -> new NioStorageBackend(new StorageOptions(true, true));
            case "uring-dsync" -> new UringStorageBackend(new StorageOptions(false, true));
            case "uring-direct-dsync" -> new UringStorageBackend(new StorageOptions(true, true));
            default -> throw new IllegalArgumentException("unknown backend " + name);
        };
    }
}
