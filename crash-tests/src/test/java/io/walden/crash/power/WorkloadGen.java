package io.walden.crash.power;

import io.walden.Durability;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestRecords;
import io.walden.testing.property.Gen;
import io.walden.testing.property.Shrink;
import java.util.ArrayList;
import java.util.List;

/**
 * The generator of {@link WorkloadSpec}s and their shrinker: sizes from a tag to {@link
 * WorkloadSpec#MAX_RECORD_BYTES} (most small, many crossing a 4 KiB page, some a large part of a 64 KiB
 * segment), every durability level, one to four appender threads, one to three sessions,
 * truncations, and a power failure in the last session more often than not.
 *
 * <p><b>Threading:</b> stateless.
 */
final class WorkloadGen {
    private static final int STEPS_PER_THREAD_MAX = 24;
    private static final int THREADS_MAX = 4;
    private static final int PHASES_MAX = 3;
    private static final int FREEZE_AFTER_EVENTS_MAX = 300;

    private WorkloadGen() {}

    /** @return the generator of workloads. */
    static Gen<WorkloadSpec> workloads() {
        final Gen<StorageOptions> storage = Gen.frequency(List.of(
                Gen.weighted(4, Gen.just(StorageOptions.BUFFERED)),
                Gen.weighted(3, Gen.just(StorageOptions.DIRECT)),
                Gen.weighted(1, Gen.just(new StorageOptions(false, true))),
                Gen.weighted(1, Gen.just(new StorageOptions(true, true)))));
        final Gen<Integer> segmentCapacityBytes = Gen.oneOf(List.of(64 * 1024, 64 * 1024, 128 * 1024));
        final Gen<Integer> maxBatchBytes = Gen.oneOf(List.of(4096, 8192, 16 * 1024, 64 * 1024));
        final Gen<Long> syncIntervalNs = Gen.oneOf(List.of(0L, 200_000L, 2_000_000L));
        final Gen<Long> groupWindowNs = Gen.oneOf(List.of(0L, 0L, 50_000L));
        final Gen<Integer> freezeAfterEvents = Gen.frequency(
                List.of(Gen.weighted(2, Gen.just(-1)), Gen.weighted(3, Gen.between(0, FREEZE_AFTER_EVENTS_MAX))));
        final Gen<List<WorkloadSpec.Phase>> phases = phase().listOf(Gen.skewed(1, PHASES_MAX));
        return random -> new WorkloadSpec(
                storage.draw(random),
                segmentCapacityBytes.draw(random),
                maxBatchBytes.draw(random),
                syncIntervalNs.draw(random),
                groupWindowNs.draw(random),
                phases.draw(random),
                freezeAfterEvents.draw(random),
                random.nextLong());
    }

    private static Gen<WorkloadSpec.Phase> phase() {
        final Gen<List<List<WorkloadSpec.Step>>> threads =
                step().listOf(Gen.skewed(1, STEPS_PER_THREAD_MAX)).listOf(Gen.skewed(1, THREADS_MAX));
        final Gen<Boolean> truncate = Gen.between(0, 3).map(draw -> draw == 0);
        return random -> new WorkloadSpec.Phase(threads.draw(random), truncate.draw(random));
    }

    private static Gen<WorkloadSpec.Step> step() {
        final int min = TestRecords.TAG_LENGTH;
        final Gen<Integer> sizes = Gen.frequency(List.of(
                Gen.weighted(5, Gen.skewed(min, 256)),
                Gen.weighted(3, Gen.skewed(min, 5000)),
                Gen.weighted(2, Gen.skewed(min, WorkloadSpec.MAX_RECORD_BYTES))));
        final Gen<Durability> durability = Gen.oneOf(List.of(Durability.values()));
        final Gen<Boolean> syncAfter = Gen.between(0, 15).map(draw -> draw == 0);
        return random -> new WorkloadSpec.Step(sizes.draw(random), durability.draw(random), syncAfter.draw(random));
    }

    /**
     * Smaller workloads to try for a failing one, by deleting operations: a whole session, a whole
     * appender thread, then runs of steps of one thread (halves first, down to single steps).
     *
     * @param spec the failing workload.
     * @return the candidates, the largest deletions first.
     */
    static List<WorkloadSpec> shrink(final WorkloadSpec spec) {
        final List<WorkloadSpec> candidates = new ArrayList<>();
        final List<WorkloadSpec.Phase> phases = spec.phases();
        for (final List<WorkloadSpec.Phase> fewer : Shrink.deletions(phases)) {
            if (!fewer.isEmpty()) {
                candidates.add(with(spec, fewer));
            }
        }
        for (int p = 0; p < phases.size(); p++) {
            final WorkloadSpec.Phase phase = phases.get(p);
            for (final List<List<WorkloadSpec.Step>> threads : Shrink.deletions(phase.threads())) {
                if (!threads.isEmpty()) {
                    candidates.add(with(spec, replace(phases, p, new WorkloadSpec.Phase(threads, phase.truncate()))));
                }
            }
            for (int t = 0; t < phase.threads().size(); t++) {
                for (final List<WorkloadSpec.Step> steps :
                        Shrink.deletions(phase.threads().get(t))) {
                    if (!steps.isEmpty()) {
                        final List<List<WorkloadSpec.Step>> threads = replace(phase.threads(), t, steps);
                        candidates.add(
                                with(spec, replace(phases, p, new WorkloadSpec.Phase(threads, phase.truncate()))));
                    }
                }
            }
        }
        return candidates;
    }

    private static <T> List<T> replace(final List<T> list, final int index, final T element) {
        final List<T> copy = new ArrayList<>(list);
        copy.set(index, element);
        return copy;
    }

    private static WorkloadSpec with(final WorkloadSpec spec, final List<WorkloadSpec.Phase> phases) {
        return new WorkloadSpec(
                spec.storage(),
                spec.segmentCapacityBytes(),
                spec.maxBatchBytes(),
                spec.syncIntervalNs(),
                spec.groupWindowNs(),
                phases,
                spec.freezeAfterEvents(),
                spec.backendSeed());
    }
}
