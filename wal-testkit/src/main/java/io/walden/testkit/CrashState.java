package io.walden.testkit;

import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.SortedMap;

/**
 * A directory as a simulated power failure left it ({@link DiskHistory#crash}), and the report of what
 * the crash kept. Open a log in it to check what recovery makes of it; open it on {@link #newStorage}
 * to simulate that recovery too, and crash it again.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CrashState {
    private final Path directory;
    private final SortedMap<String, byte[]> files;
    private final CrashReport report;

    CrashState(final Path directory, final SortedMap<String, byte[]> files, final CrashReport report) {
        this.directory = directory;
        this.files = files;
        this.report = report;
    }

    /** @return the post-crash directory. */
    public Path directory() {
        return directory;
    }

    /** @return how many events of the history happened before the power failed. */
    public int eventCount() {
        return report.eventCount();
    }

    /** @return what the crash kept, lost and tore. */
    public CrashReport report() {
        return report;
    }

    /**
     * A new simulated storage over the post-crash directory, in which every file is durable: a log
     * opened on it records its recovery as a new history.
     *
     * @param options buffered, O_DIRECT and/or O_DSYNC semantics.
     * @param seed seeds the simulated completions.
     * @return the storage.
     */
    public SimulatedStorage newStorage(final StorageOptions options, final long seed) {
        return SimulatedStorage.onKnownFiles(directory, files, options, seed);
    }

    /**
     * {@link #newStorage(StorageOptions, long)} with buffered writes made durable by fdatasync.
     *
     * @param seed seeds the simulated completions.
     * @return the storage.
     */
    public SimulatedStorage newStorage(final long seed) {
        return newStorage(StorageOptions.BUFFERED, seed);
    }

    @Override
    public String toString() {
        return directory + ": " + report;
    }
}
