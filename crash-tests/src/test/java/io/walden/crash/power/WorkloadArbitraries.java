package io.walden.crash.power;

import io.walden.Durability;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestRecords;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The jqwik generators of {@link WorkloadSpec}: sizes from a tag to {@link WorkloadSpec#MAX_RECORD_BYTES}
 * (most small, many crossing a 4 KiB page, some a large part of a 64 KiB segment), every durability
 * level, one to four appender threads, one to three sessions, truncations, and a power failure in the
 * last session more often than not.
 *
 * <p><b>Threading:</b> stateless.
 */
final class WorkloadArbitraries {
    private static final int STEPS_PER_THREAD_MAX = 24;
    private static final int THREADS_MAX = 4;
    private static final int PHASES_MAX = 3;
    private static final int FREEZE_AFTER_EVENTS_MAX = 300;

    private WorkloadArbitraries() {}

    /** @return workloads. */
    static Arbitrary<WorkloadSpec> workloads() {
        final Arbitrary<StorageOptions> storage = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(StorageOptions.BUFFERED)),
                Tuple.of(3, Arbitraries.just(StorageOptions.DIRECT)),
                Tuple.of(1, Arbitraries.just(new StorageOptions(false, true))),
                Tuple.of(1, Arbitraries.just(new StorageOptions(true, true))));
        final Arbitrary<Integer> segmentCapacityBytes = Arbitraries.of(64 * 1024, 64 * 1024, 128 * 1024);
        final Arbitrary<Integer> maxBatchBytes = Arbitraries.of(4096, 8192, 16 * 1024, 64 * 1024);
        final Arbitrary<Long> syncIntervalNs = Arbitraries.of(0L, 200_000L, 2_000_000L);
        final Arbitrary<Long> groupWindowNs = Arbitraries.of(0L, 0L, 50_000L);
        final Arbitrary<Integer> freezeAfterEvents = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(-1)),
                Tuple.of(3, Arbitraries.integers().between(0, FREEZE_AFTER_EVENTS_MAX)));
        return Combinators.combine(
                        storage,
                        segmentCapacityBytes,
                        maxBatchBytes,
                        syncIntervalNs,
                        groupWindowNs,
                        phase().list().ofMinSize(1).ofMaxSize(PHASES_MAX),
                        freezeAfterEvents,
                        Arbitraries.longs())
                .as(WorkloadSpec::new);
    }

    private static Arbitrary<WorkloadSpec.Phase> phase() {
        return Combinators.combine(
                        step().list()
                                .ofMinSize(1)
                                .ofMaxSize(STEPS_PER_THREAD_MAX)
                                .list()
                                .ofMinSize(1)
                                .ofMaxSize(THREADS_MAX),
                        Arbitraries.integers().between(0, 3).map(draw -> draw == 0))
                .as(WorkloadSpec.Phase::new);
    }

    private static Arbitrary<WorkloadSpec.Step> step() {
        final int min = TestRecords.TAG_LENGTH;
        final Arbitrary<Integer> sizes = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.integers().between(min, 256)),
                Tuple.of(3, Arbitraries.integers().between(min, 5000)),
                Tuple.of(2, Arbitraries.integers().between(min, WorkloadSpec.MAX_RECORD_BYTES)));
        final Arbitrary<Durability> durability = Arbitraries.of(Durability.class);
        final Arbitrary<Boolean> syncAfter =
                Arbitraries.integers().between(0, 15).map(draw -> draw == 0);
        return Combinators.combine(sizes, durability, syncAfter).as(WorkloadSpec.Step::new);
    }
}
