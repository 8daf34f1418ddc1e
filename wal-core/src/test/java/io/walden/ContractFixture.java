package io.walden;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentNames;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageSession;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The backend under test, as one contract test sees it: its temporary directory, the backend and
 * configuration the backend module supplies, and the logs and controllable backends the test opens,
 * all closed and released after the test by {@link #releaseAndCloseEverything()}.
 *
 * <p>{@link WalContractTest} makes one per test and hands it to each topic suite it composes.
 */
public final class ContractFixture {
    /** Segment capacity used by most tests: small, so that tests roll segments cheaply. */
    public static final int SEGMENT_BYTES = 256 * 1024;
    /** Log buffer capacity used by most tests. */
    public static final int BUFFER_BYTES = 64 * 1024;
    /** Largest record used by most tests. */
    public static final int MAX_RECORD_BYTES = 16 * 1024;
    /** Bound of every wait for something that must happen. */
    public static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    private final Supplier<Path> tempDir;
    private final Supplier<StorageBackend> backends;
    private final Function<Path, WalConfig.Builder> configs;
    private final List<Wal> openLogs = new ArrayList<>();
    private final List<ControllableBackend> controllables = new ArrayList<>();
    private Boolean writesDurable;

    /**
     * A fixture over the backend a backend module supplies.
     *
     * @param tempDir the test's fresh directory, asked for when first used (JUnit injects it after
     *     the test instance is made).
     * @param backends creates the backend under test, once per opened log.
     * @param configs a configuration with the backend under test and small sizes.
     */
    public ContractFixture(
            final Supplier<Path> tempDir,
            final Supplier<StorageBackend> backends,
            final Function<Path, WalConfig.Builder> configs) {
        this.tempDir = tempDir;
        this.backends = backends;
        this.configs = configs;
    }

    /** @return a fresh directory of this test. */
    public Path tempDir() {
        return tempDir.get();
    }

    /** @return a new backend under test. */
    public StorageBackend newBackend() {
        return backends.get();
    }

    /**
     * A configuration with the backend under test and small sizes.
     *
     * @param directory the log directory.
     * @return the builder, for tests to adjust.
     */
    public WalConfig.Builder config(final Path directory) {
        return configs.apply(directory);
    }

    /**
     * Opens a log that is closed after the test.
     *
     * @param config the configuration.
     * @return the open log.
     */
    public Wal open(final WalConfig config) {
        final Wal wal = Wal.open(config);
        closeAfterTheTest(wal);
        return wal;
    }

    /** Closes a log the test opened itself after the test. */
    void closeAfterTheTest(final Wal wal) {
        openLogs.add(wal);
    }

    /**
     * A controllable wrapper of the backend under test, released after the test.
     *
     * @return the wrapper.
     */
    public ControllableBackend controllable() {
        final ControllableBackend backend = new ControllableBackend(newBackend());
        controllables.add(backend);
        return backend;
    }

    /** @return a log directory that does not exist yet. */
    public Path logDirectory() {
        return tempDir().resolve("log");
    }

    /**
     * Creates a log and removes the empty next segment its first session prepared, so that the next
     * open has to prepare that segment again (with a {@link ControllableBackend}, under the test's
     * control).
     *
     * @return the log's directory.
     * @throws IOException if the segment cannot be removed.
     */
    public Path logWithoutItsNextSegment() throws IOException {
        final Path directory = logDirectory();
        try (Wal wal = open(config(directory).build())) {
            assertTrue(wal.recoveryReport().newLog());
        }
        Files.deleteIfExists(SegmentNames.segmentPath(directory, SEGMENT_BYTES));
        return directory;
    }

    /**
     * Whether the backend's writes are durable on completion (O_DSYNC), in which case no sync is
     * needed and written records are durable at once.
     *
     * @return true for such backends.
     * @throws IOException if a probe session cannot be opened.
     */
    public boolean writesDurable() throws IOException {
        if (writesDurable == null) {
            final Path probe = Files.createDirectories(tempDir().resolve("probe"));
            try (StorageSession session = newBackend().open(probe, () -> {})) {
                writesDurable = session.capabilities().writesDurable();
            }
        }
        return writesDurable;
    }

    /** Appends SYNCED records of 8 KiB (several segments' worth), closes the log, returns their LSNs. */
    long[] closedLogOf(final Path directory, final int count) {
        final long[] lsns = new long[count];
        try (Wal wal = Wal.open(config(directory).build())) {
            for (int i = 0; i < count; i++) {
                lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
            }
        }
        return lsns;
    }

    /**
     * Releases every controllable backend and closes every log the test opened, on another thread, so
     * that a log that cannot close fails the test instead of hanging the build.
     *
     * @throws InterruptedException if interrupted while waiting for the logs to close.
     */
    public void releaseAndCloseEverything() throws InterruptedException {
        controllables.forEach(ControllableBackend::releaseAll);
        final Thread closer = new Thread(
                () -> {
                    for (final Wal wal : openLogs) {
                        try {
                            wal.close();
                        } catch (final WalException ignored) {
                            // A failed log may refuse to close cleanly; its test checked what it needed.
                        }
                    }
                },
                "contract-cleanup");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        if (closer.isAlive()) {
            final AssertionError error =
                    new AssertionError("a log did not close within " + WAIT_NS / 1_000_000 + " ms");
            error.setStackTrace(closer.getStackTrace());
            throw error;
        }
    }
}
