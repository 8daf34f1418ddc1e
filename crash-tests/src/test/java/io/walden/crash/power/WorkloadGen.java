package io.walden.crash.power;

import io.walden.Durability;
import io.walden.format.FrameDescriptor;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestRecords;
import io.walden.testing.property.Gen;
import io.walden.testing.property.Shrink;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The generator of {@link WorkloadSpec}s and their shrinker: sizes from a tag to {@link
 * WorkloadSpec#MAX_RECORD_BYTES} (most small, many crossing a 4 KiB page, some a large part of a 64 KiB
 * segment), every durability level, one to four appender threads, one to three sessions,
 * truncations, and a power failure in the last session more often than not. About 30% of the
 * appends (35% of the appends that have two records or more to group) append an atomic batch of 2 to 12 records instead of one record: small batches within a page,
 * batches whose frames cross several 4 KiB pages, and batches up to the most a batch may take (what one
 * record of {@link WorkloadSpec#MAX_RECORD_BYTES} takes), which the log often has to move past the end
 * of a 64 KiB segment (it pads the segment and rolls). One appender thread in three is an open-loop
 * producer: its single records go through an {@link io.walden.AsyncAppender} without waiting.
 *
 * <p><b>Threading:</b> stateless.
 */
final class WorkloadGen {
    private static final int RECORDS_PER_THREAD_MAX = 24;
    private static final int THREADS_MAX = 4;
    private static final int PHASES_MAX = 3;
    private static final int FREEZE_AFTER_EVENTS_MAX = 300;
    /** Of the appends, the share (in percent) that append a batch rather than one record. */
    private static final int BATCH_PERCENT = 35;

    private static final int BATCH_RECORDS_MAX = 12;
    private static final int FULL_BATCH_ONE_IN = 8;
    /** One appender thread in this many is an open-loop producer. */
    private static final int OPEN_LOOP_ONE_IN = 3;

    private WorkloadGen() {}

    /** @return the generator of workloads. */
    static Gen<WorkloadSpec> workloads() {
        final Gen<StorageOptions> storage = Gen.frequency(List.of(
                Gen.weighted(4, Gen.just(StorageOptions.BUFFERED)),
                Gen.weighted(3, Gen.just(StorageOptions.DIRECT)),
                Gen.weighted(2, Gen.just(new StorageOptions(false, true))),
                Gen.weighted(2, Gen.just(new StorageOptions(true, true)))));
        final Gen<Integer> segmentCapacityBytes = Gen.oneOf(List.of(64 * 1024, 64 * 1024, 128 * 1024));
        final Gen<Integer> maxBatchBytes = Gen.oneOf(List.of(4096, 8192, 16 * 1024, 64 * 1024));
        final Gen<Long> syncIntervalNs = Gen.oneOf(List.of(0L, 200_000L, 2_000_000L));
        final Gen<Long> groupWindowNs = Gen.oneOf(List.of(0L, 0L, 50_000L));
        final Gen<Integer> freezeAfterEvents = Gen.frequency(
                List.of(Gen.weighted(2, Gen.just(-1)), Gen.weighted(3, Gen.between(0, FREEZE_AFTER_EVENTS_MAX))));
        final Gen<List<WorkloadSpec.Phase>> phases = phase().listOf(Gen.skewed(1, PHASES_MAX));
        // Freed segments kept for reuse: none (every segment zero-filled), or up to a few.
        final Gen<Integer> recycledSegmentsMax = Gen.oneOf(List.of(0, 2, 2, 4));
        // Group writes in flight with O_DSYNC: one at a time, or pipelined (completed in any order).
        final Gen<Integer> durableWritesInFlightMax = Gen.oneOf(List.of(1, 2, 16, 16));
        // One workload in three compresses its records (their frames then hold encodings).
        final Gen<Boolean> compressed = Gen.between(0, 3).map(draw -> draw == 0);
        return random -> new WorkloadSpec(
                storage.draw(random),
                segmentCapacityBytes.draw(random),
                maxBatchBytes.draw(random),
                syncIntervalNs.draw(random),
                groupWindowNs.draw(random),
                phases.draw(random),
                freezeAfterEvents.draw(random),
                random.nextLong(),
                recycledSegmentsMax.draw(random),
                durableWritesInFlightMax.draw(random),
                compressed.draw(random));
    }

    private static Gen<WorkloadSpec.Phase> phase() {
        final Gen<List<List<WorkloadSpec.Step>>> threads = threadSteps().listOf(Gen.skewed(1, THREADS_MAX));
        final Gen<Boolean> truncate = Gen.between(0, 3).map(draw -> draw == 0);
        return random -> new WorkloadSpec.Phase(threads.draw(random), truncate.draw(random));
    }

    /**
     * The steps of one appender thread: as many records as before batches existed (up to {@value
     * #RECORDS_PER_THREAD_MAX}), of which runs of 2 to {@value #BATCH_RECORDS_MAX} go into one batch at
     * {@value #BATCH_PERCENT}% of the appends, so that batches replace single appends rather than add
     * to the work.
     */
    private static Gen<List<WorkloadSpec.Step>> threadSteps() {
        final Gen<Integer> recordCount = Gen.skewed(1, RECORDS_PER_THREAD_MAX);
        final Gen<Integer> sizes = recordSizes();
        final Gen<Integer> batchRecords = Gen.skewed(2, BATCH_RECORDS_MAX);
        final Gen<Durability> durability = Gen.oneOf(List.of(Durability.values()));
        final Gen<Boolean> syncAfter = Gen.between(0, 15).map(draw -> draw == 0);
        return random -> {
            final int records = recordCount.draw(random);
            // An open-loop producer appends its single records through an AsyncAppender, without waiting.
            final boolean openLoop = random.nextInt(OPEN_LOOP_ONE_IN) == 0;
            final List<WorkloadSpec.Step> steps = new ArrayList<>();
            int left = records;
            while (left > 0) {
                final List<Integer> stepSizes = left >= 2 && random.nextInt(100) < BATCH_PERCENT
                        ? batchSizes(Math.min(left, batchRecords.draw(random)), sizes, random)
                        : List.of(sizes.draw(random));
                left -= stepSizes.size();
                steps.add(new WorkloadSpec.Step(
                        stepSizes, durability.draw(random), syncAfter.draw(random), openLoop && stepSizes.size() == 1));
            }
            return steps;
        };
    }

    private static Gen<Integer> recordSizes() {
        final int min = TestRecords.TAG_LENGTH;
        return Gen.frequency(List.of(
                Gen.weighted(5, Gen.skewed(min, 256)),
                Gen.weighted(3, Gen.skewed(min, 5000)),
                Gen.weighted(2, Gen.skewed(min, WorkloadSpec.MAX_RECORD_BYTES))));
    }

    /**
     * The sizes of a batch's records, drawn like single records' and then fitted into {@link
     * WorkloadSpec#BATCH_FRAMED_BYTES_MAX}: a record that does not fit is cut to what is left, and the
     * batch ends there (at two records at least). One batch in {@value #FULL_BATCH_ONE_IN} is then
     * stretched to take exactly the most a batch may take.
     */
    private static List<Integer> batchSizes(final int count, final Gen<Integer> sizes, final SplittableRandom random) {
        final int min = TestRecords.TAG_LENGTH;
        final int minFramed = framed(min);
        final List<Integer> batch = new ArrayList<>();
        int framedLeft = WorkloadSpec.BATCH_FRAMED_BYTES_MAX;
        for (int i = 0; i < count; i++) {
            // Keep room for the records that must still come to make two.
            final int reserve = i == 0 ? minFramed : 0;
            int size = sizes.draw(random);
            if (framed(size) > framedLeft - reserve) {
                size = framedLeft - reserve - FrameDescriptor.HEADER_LENGTH;
                size -= size % FrameDescriptor.FRAME_ALIGNMENT;
            }
            batch.add(size);
            framedLeft -= framed(size);
            if (framedLeft < minFramed && i >= 1) {
                break;
            }
        }
        if (random.nextInt(FULL_BATCH_ONE_IN) == 0) {
            // The last record grows into everything left; its length need not be a multiple of 8.
            final int last = batch.size() - 1;
            batch.set(
                    last,
                    Math.max(
                            min,
                            framed(batch.get(last))
                                    + framedLeft
                                    - FrameDescriptor.HEADER_LENGTH
                                    - random.nextInt(FrameDescriptor.FRAME_ALIGNMENT)));
        }
        return batch;
    }

    private static int framed(final int size) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(size));
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
                spec.backendSeed(),
                spec.recycledSegmentsMax(),
                spec.durableWritesInFlightMax(),
                spec.compressed());
    }
}
