/**
 * Walden's core: the log ({@code io.walden}), the storage backend SPI ({@code io.walden.spi}), the
 * record codec SPI ({@code io.walden.codec}) and the on-disk format's descriptors ({@code
 * io.walden.format}). Everything under {@code
 * io.walden.internal} is the implementation and is not exported. Backends are found with {@link
 * java.util.ServiceLoader} ({@code wal-nio}, {@code wal-uring}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.walden.core {
    // Agrona's buffers are in the API (Wal.append(DirectBuffer, ...)); Agrona is an automatic module.
    requires transitive org.agrona.core;
    requires jdk.jfr;
    // WalMXBean, registered by Wal.registerMBean().
    requires transitive java.management;

    exports io.walden;
    exports io.walden.spi;
    exports io.walden.format;
    exports io.walden.codec;

    uses io.walden.spi.StorageBackendProvider;
    uses io.walden.codec.RecordCodec;
}
