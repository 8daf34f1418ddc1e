package io.walden.bench;

import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageBackendProvider;
import io.walden.spi.StorageOptions;
import io.walden.uring.UringStorageBackend;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * Opens the logs the JMH benchmarks append to: a fresh directory (see {@link BenchFiles}), 64 MiB
 * segments, an 8 MiB buffer and a backend chosen by name.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class BenchLogs {
    /** Segment capacity of benchmark logs. */
    static final int SEGMENT_CAPACITY_BYTES = 64 * 1024 * 1024;
    /** Log buffer capacity of benchmark logs. */
    static final int BUFFER_CAPACITY_BYTES = 8 * 1024 * 1024;
    /** The provider name of the io_uring backend that owns its ring (wal-uring-ffm). */
    private static final String FFM_URING = "uring-ffm";

    private BenchLogs() {}

    /**
     * Creates a backend from its benchmark parameter value.
     *
     * @param name {@code nio} or {@code uring}, optionally with {@code -direct} and/or {@code -dsync}, and
     *     optionally {@code +flush<N>us} for syncs that take at least N microseconds, or {@code
     *     +deepflush<N>us} for writes that are each a flush of N microseconds, any number at once.
     * @return the backend.
     */
    public static StorageBackend backend(final String name) {
        // "<backend>+flush<N>us": the backend with every data sync taking at least N microseconds, an
        // emulated high-latency disk (issue 27).
        final int deepFlush = name.indexOf("+deepflush");
        if (deepFlush > 0 && name.endsWith("us")) {
            // "<backend>+deepflush<N>us": storage whose every write is a flush of N us, any number at
            // once (see FlushDelayBackend).
            return new FlushDelayBackend(
                    backend(name.substring(0, deepFlush)),
                    TimeUnit.MICROSECONDS.toNanos(Long.parseLong(name.substring(deepFlush + 10, name.length() - 2))),
                    true);
        }
        final int flush = name.indexOf("+flush");
        if (flush > 0 && name.endsWith("us")) {
            return new FlushDelayBackend(
                    backend(name.substring(0, flush)),
                    TimeUnit.MICROSECONDS.toNanos(Long.parseLong(name.substring(flush + 6, name.length() - 2))));
        }
        if (name.startsWith(FFM_URING)) {
            return ffmUring(name);
        }
        return switch (name) {
            case "nio" -> new NioStorageBackend(StorageOptions.BUFFERED);
            case "nio-direct" -> new NioStorageBackend(StorageOptions.DIRECT);
            case "nio-dsync" -> new NioStorageBackend(new StorageOptions(false, true));
            case "nio-direct-dsync" -> new NioStorageBackend(new StorageOptions(true, true));
            case "uring" -> new UringStorageBackend(StorageOptions.BUFFERED);
            case "uring-direct" -> new UringStorageBackend(StorageOptions.DIRECT);
            case "uring-dsync" -> new UringStorageBackend(new StorageOptions(false, true));
            case "uring-direct-dsync" -> new UringStorageBackend(new StorageOptions(true, true));
            default ->
                throw new IllegalArgumentException(
                        "unknown backend '" + name + "'; use nio, nio-direct, nio-dsync, nio-direct-dsync, uring,"
                                + " uring-direct, uring-dsync, uring-direct-dsync, or on JDK 22 and later uring-ffm,"
                                + " uring-ffm-direct, uring-ffm-dsync or uring-ffm-direct-dsync");
        };
    }

    /**
     * Whether the io_uring backend that owns its ring is in this bench (built on JDK 22+) and can run
     * here.
     *
     * @return true if the {@code uring-ffm*} backends can be opened.
     */
    public static boolean ffmUringAvailable() {
        final StorageBackendProvider provider = ffmUringProvider();
        return provider != null && provider.unavailableReason() == null;
    }

    private static StorageBackendProvider ffmUringProvider() {
        for (final StorageBackendProvider provider : ServiceLoader.load(StorageBackendProvider.class)) {
            if (provider.name().equals(FFM_URING)) {
                return provider;
            }
        }
        return null;
    }

    /**
     * The io_uring backend that owns its ring (module wal-uring-ffm, JDK 22 and later), found through
     * its {@link StorageBackendProvider}: this module is compiled for Java 17 and cannot name it.
     */
    private static StorageBackend ffmUring(final String name) {
        final String mode = name.substring(FFM_URING.length());
        final StorageOptions options =
                switch (mode) {
                    case "" -> StorageOptions.BUFFERED;
                    case "-direct" -> StorageOptions.DIRECT;
                    case "-dsync" -> new StorageOptions(false, true);
                    case "-direct-dsync" -> new StorageOptions(true, true);
                    default -> throw new IllegalArgumentException("unknown backend '" + name + "'");
                };
        final StorageBackendProvider provider = ffmUringProvider();
        if (provider != null) {
            final String reason = provider.unavailableReason();
            if (reason != null) {
                throw new IllegalArgumentException("backend '" + name + "' cannot run here: " + reason);
            }
            return provider.create(options);
        }
        throw new IllegalArgumentException("backend '" + name + "' needs JDK 22 or later and a walden-bench built"
                + " on one (module wal-uring-ffm); this is JDK "
                + Runtime.version().feature());
    }

    /**
     * Opens a new log in a fresh directory.
     *
     * @param prefix start of the directory's name.
     * @param backendName the backend, as for {@link #backend(String)}.
     * @return the open log; its directory is {@code wal.config().directory()}.
     */
    static Wal open(final String prefix, final String backendName) {
        final Path directory = BenchFiles.freshDirectory(prefix);
        return Wal.open(WalConfig.builder(directory)
                .backend(backend(backendName))
                .segmentCapacityBytes(SEGMENT_CAPACITY_BYTES)
                .bufferCapacityBytes(BUFFER_CAPACITY_BYTES)
                .build());
    }

    /**
     * Closes a benchmark log and deletes its directory.
     *
     * @param wal the log.
     */
    static void closeAndDelete(final Wal wal) {
        final Path directory = wal.config().directory();
        wal.close();
        BenchFiles.deleteRecursively(directory);
    }
}
