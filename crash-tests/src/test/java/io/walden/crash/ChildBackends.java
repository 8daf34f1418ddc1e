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
     * @param name {@code nio}, {@code nio-direct}, {@code uring} or {@code uring-direct}.
     * @return a new backend.
     * @throws IllegalArgumentException for another name.
     */
    public static StorageBackend named(final String name) {
        return switch (name) {
            case "nio" -> new NioStorageBackend(StorageOptions.BUFFERED);
            case "nio-direct" -> new NioStorageBackend(StorageOptions.DIRECT);
            case "uring" -> new UringStorageBackend(StorageOptions.BUFFERED);
            case "uring-direct" -> new UringStorageBackend(StorageOptions.DIRECT);
            default -> throw new IllegalArgumentException("unknown backend " + name);
        };
    }
}
