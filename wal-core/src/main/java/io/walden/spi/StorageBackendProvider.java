package io.walden.spi;

/**
 * Makes a backend discoverable through {@link java.util.ServiceLoader}, so that the core can pick
 * the best available backend without depending on any. A module registers its provider in {@code
 * META-INF/services/io.walden.spi.StorageBackendProvider}.
 *
 * <p><b>Threading:</b> implementations are immutable and thread-safe.
 */
public interface StorageBackendProvider {
    /**
     * Name of the backend family, for example {@code nio} or {@code uring}.
     *
     * @return the name.
     */
    String name();

    /**
     * Preference among available providers; the highest wins.
     *
     * @return the priority.
     */
    int priority();

    /**
     * Why this backend cannot run here, or null when it can.
     *
     * @return the reason, naming the cause and what to do instead.
     */
    String unavailableReason();

    /**
     * Creates a backend.
     *
     * @param options the I/O options.
     * @return the backend.
     * @throws UnsupportedOperationException if the options are not supported, with the reason.
     */
    StorageBackend create(StorageOptions options);
}
