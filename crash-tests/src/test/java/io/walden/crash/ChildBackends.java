package io.walden.crash;

import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;
import io.walden.uring.UringStorageBackend;
import java.util.ServiceLoader;

/**
 * The storage backends the child programs of the kill and follow tests run, by the name their
 * parent passes on the command line. Copied with every child's classes ({@link ChildJvm}).
 *
 * <p><b>Threading:</b> stateless.
 */
public final class ChildBackends {
    /** The provider name of the ring-owning io_uring backend, and the start of its backend names. */
    public static final String FFM_URING = "uring-ffm";

    private ChildBackends() {}

    /**
     * Creates a backend by name.
     *
     * @param name {@code nio}, {@code uring} or {@code uring-ffm} (JDK 22+), optionally with {@code -direct}, then optionally with
     *     {@code -dsync} (every write durable by itself; io_uring then keeps several in flight).
     * @return a new backend.
     * @throws IllegalArgumentException for another name.
     */
    public static StorageBackend named(final String name) {
        if (name.startsWith(FFM_URING)) {
            return ffmUring(name);
        }
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

    /**
     * The io_uring backend that owns its ring (wal-uring-ffm, JDK 22 and later), through its provider:
     * these tests compile for Java 17 and cannot name it.
     */
    private static StorageBackend ffmUring(final String name) {
        final String mode = name.substring(FFM_URING.length());
        final StorageOptions options =
                switch (mode) {
                    case "" -> StorageOptions.BUFFERED;
                    case "-direct" -> StorageOptions.DIRECT;
                    case "-dsync" -> new StorageOptions(false, true);
                    case "-direct-dsync" -> new StorageOptions(true, true);
                    default -> throw new IllegalArgumentException("unknown backend " + name);
                };
        final StorageBackendProvider provider = ffmUringProvider();
        if (provider == null) {
            throw new IllegalArgumentException("backend " + name + " needs wal-uring-ffm on the class path (JDK 22+)");
        }
        return provider.create(options);
    }

    /**
     * The provider of the ring-owning io_uring backend, if it is on the class path.
     *
     * @return the provider, or null.
     */
    public static StorageBackendProvider ffmUringProvider() {
        for (final StorageBackendProvider provider : ServiceLoader.load(StorageBackendProvider.class)) {
            if (provider.name().equals(FFM_URING)) {
                return provider;
            }
        }
        return null;
    }
}
