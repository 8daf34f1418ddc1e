package io.walden;

import io.walden.testing.ControllableBackend;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every storage backend must satisfy, run against a real {@link Wal}. A backend module
 * extends this class and implements {@link #newBackend()}; every test, including the concurrency
 * tests inherited from {@link ConcurrentAppendContractTest}, then runs against that backend.
 *
 * <p>Tests that need a stalling or failing device wrap the backend in a {@link ControllableBackend},
 * which holds completions back or fails operations on command, so no test depends on timing except
 * through bounded waits.
 *
 * <p>The suite is split by topic into a chain of abstract classes, each adding its tests to the one
 * before: {@link ConcurrentAppendContractTest}, {@link OpenRefusalContractTest}, {@link
 * BatchContractTest}, {@link ContractSupport} (what the rest share), {@link AppendContractTest},
 * {@link DurabilityContractTest}, {@link ObservabilityContractTest}, {@link SegmentContractTest}, {@link RecyclingContractTest},
 * {@link CloseContractTest}, {@link ReaderContractTest}, {@link RetentionContractTest}, {@link
 * FailStopContractTest}, {@link ConfigContractTest}, {@link TruncateAfterContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class WalContractTest extends TruncateAfterContractTest {}
