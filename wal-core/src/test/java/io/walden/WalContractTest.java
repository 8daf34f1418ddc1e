package io.walden;

import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.MAX_RECORD_BYTES;
import static io.walden.ContractFixture.SEGMENT_BYTES;

import io.walden.spi.StorageBackend;
import io.walden.testing.ControllableBackend;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every storage backend must satisfy, run against a real {@link Wal}. A backend module
 * extends this class and implements {@link #newBackend()}; every topic of the suite then runs against
 * that backend.
 *
 * <p>Tests that need a stalling or failing device wrap the backend in a {@link ControllableBackend},
 * which holds completions back or fails operations on command, so no test depends on timing except
 * through bounded waits.
 *
 * <p>The suite is composed, not inherited: each topic is an abstract class of its own ({@link
 * AppendContractTest}, {@link BatchContractTest}, ...) that is given the test's {@link
 * ContractFixture} (the backend, its configuration, the logs a test opens) and the shared checks of
 * {@link ContractChecks}; this class runs each topic as a JUnit {@code @Nested} class over one
 * fixture per test, and closes what the test opened. To run one topic's tests with Maven, name the
 * backend class and the nested one, for example {@code
 * -Dtest='NioBufferedContractTest,WalContractTest$ReaderContract#shouldRefuse*'}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class WalContractTest {
    /** A fresh directory per test. */
    @TempDir
    Path tempDir;

    private final ContractFixture fixture = new ContractFixture(() -> tempDir, this::newBackend, this::config);

    /**
     * Creates the backend under test. Called once per opened log.
     *
     * @return a new backend.
     */
    protected abstract StorageBackend newBackend();

    /**
     * A configuration with the backend under test and small sizes.
     *
     * @param directory the log directory.
     * @return the builder, for tests to adjust.
     */
    protected WalConfig.Builder config(final Path directory) {
        return WalConfig.builder(directory)
                .backend(newBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(BUFFER_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES);
    }

    @AfterEach
    void releaseAndCloseEverything() throws InterruptedException {
        fixture.releaseAndCloseEverything();
    }

    /** {@link ConcurrentAppendContractTest}, appends from many threads at once, on the backend under test. */
    @Nested
    class ConcurrentAppendContract extends ConcurrentAppendContractTest {
        ConcurrentAppendContract() {
            super(fixture);
        }
    }

    /** {@link AsyncAppenderContractTest}, appends acknowledged without waiting, on the backend under test. */
    @Nested
    class AsyncAppenderContract extends AsyncAppenderContractTest {
        AsyncAppenderContract() {
            super(fixture);
        }
    }

    /** {@link OpenRefusalContractTest}, opens refused for a lock, a configuration or corruption, on the backend under test. */
    @Nested
    class OpenRefusalContract extends OpenRefusalContractTest {
        OpenRefusalContract() {
            super(fixture);
        }
    }

    /** {@link CompressionContractTest}, records stored encoded, on the backend under test. */
    @Nested
    class CompressionContract extends CompressionContractTest {
        CompressionContract() {
            super(fixture);
        }
    }

    /** {@link BatchContractTest}, atomic batches, on the backend under test. */
    @Nested
    class BatchContract extends BatchContractTest {
        BatchContract() {
            super(fixture);
        }
    }

    /** {@link AppendContractTest}, appends from every source, on the backend under test. */
    @Nested
    class AppendContract extends AppendContractTest {
        AppendContract() {
            super(fixture);
        }
    }

    /** {@link DurabilityContractTest}, each durability level, awaits and syncs, on the backend under test. */
    @Nested
    class DurabilityContract extends DurabilityContractTest {
        DurabilityContract() {
            super(fixture);
        }
    }

    /** {@link ObservabilityContractTest}, stats, MBean, flight recorder events and messages, on the backend under test. */
    @Nested
    class ObservabilityContract extends ObservabilityContractTest {
        ObservabilityContract() {
            super(fixture);
        }
    }

    /** {@link SegmentContractTest}, segment rolls, preparation and reopening, on the backend under test. */
    @Nested
    class SegmentContract extends SegmentContractTest {
        SegmentContract() {
            super(fixture);
        }
    }

    /** {@link RecyclingContractTest}, freed segments recycled as new ones, on the backend under test. */
    @Nested
    class RecyclingContract extends RecyclingContractTest {
        RecyclingContract() {
            super(fixture);
        }
    }

    /** {@link CloseContractTest}, close, on the backend under test. */
    @Nested
    class CloseContract extends CloseContractTest {
        CloseContract() {
            super(fixture);
        }
    }

    /** {@link ReaderContractTest}, readers of a live log and of a read-only view, on the backend under test. */
    @Nested
    class ReaderContract extends ReaderContractTest {
        ReaderContract() {
            super(fixture);
        }
    }

    /** {@link RetentionContractTest}, retention by position, size and age, on the backend under test. */
    @Nested
    class RetentionContract extends RetentionContractTest {
        RetentionContract() {
            super(fixture);
        }
    }

    /** {@link FailStopContractTest}, fail-stop on a failed write or sync, on the backend under test. */
    @Nested
    class FailStopContract extends FailStopContractTest {
        FailStopContract() {
            super(fixture);
        }
    }

    /** {@link ConfigContractTest}, configuration, on the backend under test. */
    @Nested
    class ConfigContract extends ConfigContractTest {
        ConfigContract() {
            super(fixture);
        }
    }

    /** {@link TruncateAfterContractTest}, suffix truncation, closed and online, on the backend under test. */
    @Nested
    class TruncateAfterContract extends TruncateAfterContractTest {
        TruncateAfterContract() {
            super(fixture);
        }
    }
}
