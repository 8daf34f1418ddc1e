package io.walden.internal;

import io.walden.WalException;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Chooses the storage backend when the configuration names none: the available provider with the
 * highest priority, found with {@link ServiceLoader}.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class BackendSelector {
    private static final System.Logger LOGGER = System.getLogger(BackendSelector.class.getName());

    private BackendSelector() {}

    public static StorageBackend select(final StorageOptions options) {
        final List<StorageBackendProvider> providers = new ArrayList<>();
        ServiceLoader.load(StorageBackendProvider.class).forEach(providers::add);
        providers.sort(Comparator.comparingInt(StorageBackendProvider::priority).reversed());
        final List<String> reasons = new ArrayList<>();
        for (final StorageBackendProvider provider : providers) {
            final String reason = provider.unavailableReason();
            if (reason != null) {
                reasons.add(provider.name() + ": " + reason);
                continue;
            }
            final StorageBackend backend = provider.create(options);
            LOGGER.log(
                    System.Logger.Level.INFO,
                    "Walden chose storage backend " + backend.name()
                            + (reasons.isEmpty() ? "" : " (unavailable: " + String.join("; ", reasons) + ")"));
            return backend;
        }
        throw new WalException(
                WalException.ErrorCode.CONFIG,
                "no storage backend available"
                        + (reasons.isEmpty() ? " on the class path" : ": " + String.join("; ", reasons))
                        + ". Add io.walden:wal-nio (FileChannel, any platform) to the class path, or set one with"
                        + " WalConfig.Builder.backend(...)");
    }
}
