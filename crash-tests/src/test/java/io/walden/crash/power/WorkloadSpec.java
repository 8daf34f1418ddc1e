package io.walden.crash.power;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.codec.Compression;
import io.walden.format.FrameDescriptor;
import io.walden.spi.StorageOptions;
import io.walden.testing.RunLengthCodec;
import io.walden.testkit.SimulatedStorage;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A random workload for one try, drawn by {@link WorkloadGen} (and shrunk by it): how the simulated storage
 * behaves, the log's sizes, and phases, each one {@link Wal} session with several appender threads,
 * ending in a clean close (and a reopen for the next phase). The last phase may lose power after a
 * number of disk events.
 *
 * @param storage buffered, O_DIRECT and/or O_DSYNC semantics.
 * @param segmentCapacityBytes small, so that records roll segments.
 * @param maxBatchBytes most bytes per write.
 * @param syncIntervalNs background sync interval, 0 for none.
 * @param groupWindowNs group commit window.
 * @param phases the sessions, in order.
 * @param freezeAfterEvents in the last phase, the power fails after this many more disk events; -1 for a
 *     clean end.
 * @param backendSeed seeds completion delays and order.
 * @param recycledSegmentsMax freed segment files kept for reuse.
 * @param durableWritesInFlightMax group writes in flight at once with O_DSYNC, whenever writes wait
 *     (unmeasured: see {@code WalConfig.Builder.writeDepthMeasured}).
 * @param compressed whether the log compresses its records (a run-length test codec: the tagged
 *     payloads' content comes in runs, so most records are stored encoded).
 */
record WorkloadSpec(
        StorageOptions storage,
        int segmentCapacityBytes,
        int maxBatchBytes,
        long syncIntervalNs,
        long groupWindowNs,
        List<Phase> phases,
        int freezeAfterEvents,
        long backendSeed,
        int recycledSegmentsMax,
        int durableWritesInFlightMax,
        boolean compressed) {
    /** The log buffer: the smallest allowed, so the buffer laps often. */
    static final int BUFFER_CAPACITY_BYTES = WalConfig.BUFFER_CAPACITY_BYTES_MIN;
    /** Largest record: a frame must fit in half the buffer (less a segment header). */
    static final int MAX_RECORD_BYTES = 24 * 1024;
    /** The most log space the frames of one batch may take: what one record of the largest size takes. */
    static final int BATCH_FRAMED_BYTES_MAX =
            FrameDescriptor.alignedLength(FrameDescriptor.frameLength(MAX_RECORD_BYTES));

    /**
     * One session.
     *
     * @param threads the steps of each appender thread.
     * @param truncate whether to truncate below the newest record once half the steps are done.
     */
    record Phase(List<List<Step>> threads, boolean truncate) {
        int stepCount() {
            return threads.stream().mapToInt(List::size).sum();
        }
    }

    /**
     * One append: of a single record, or of an atomic batch of several ({@link
     * Wal#append(io.walden.WalBatch, Durability)}).
     *
     * @param sizes the payload size of each record, each at least the tag length; two or more make a
     *     batch, whose frames together take at most {@link #BATCH_FRAMED_BYTES_MAX}.
     * @param durability the level waited for (for a batch, by its last record, and so the whole batch).
     * @param syncAfter whether to call {@link Wal#sync()} afterwards.
     * @param openLoop whether the record goes through the thread's {@link io.walden.AsyncAppender}: appended
     *     without waiting, its acknowledgement noted when a later poll delivers it (single records only).
     */
    record Step(List<Integer> sizes, Durability durability, boolean syncAfter, boolean openLoop) {
        Step {
            sizes = List.copyOf(sizes);
            if (sizes.isEmpty()) {
                throw new IllegalArgumentException("a step appends at least one record");
            }
            if (openLoop && sizes.size() > 1) {
                throw new IllegalArgumentException("an open-loop step appends one record");
            }
        }

        /**
         * An append that waits for its level.
         *
         * @param sizes the payload size of each record.
         * @param durability the level waited for.
         * @param syncAfter whether to call {@link Wal#sync()} afterwards.
         */
        Step(final List<Integer> sizes, final Durability durability, final boolean syncAfter) {
            this(sizes, durability, syncAfter, false);
        }

        /**
         * The append of a single record.
         *
         * @param sizeBytes the payload size, at least the tag length.
         * @param durability the level waited for.
         * @param syncAfter whether to call {@link Wal#sync()} afterwards.
         */
        Step(final int sizeBytes, final Durability durability, final boolean syncAfter) {
            this(List.of(sizeBytes), durability, syncAfter);
        }

        /** @return whether the step appends a batch. */
        boolean batch() {
            return sizes.size() > 1;
        }

        @Override
        public String toString() {
            final String records = batch()
                    ? "batch" + sizes.stream().map(String::valueOf).collect(Collectors.joining("+", "[", "]B"))
                    : sizes.get(0) + "B";
            return records + "/" + durability.name().charAt(0) + (openLoop ? "~async" : "")
                    + (syncAfter ? "+sync" : "");
        }
    }

    /** A workload whose log stores its records as given. */
    WorkloadSpec(
            final StorageOptions storage,
            final int segmentCapacityBytes,
            final int maxBatchBytes,
            final long syncIntervalNs,
            final long groupWindowNs,
            final List<Phase> phases,
            final int freezeAfterEvents,
            final long backendSeed,
            final int recycledSegmentsMax,
            final int durableWritesInFlightMax) {
        this(
                storage,
                segmentCapacityBytes,
                maxBatchBytes,
                syncIntervalNs,
                groupWindowNs,
                phases,
                freezeAfterEvents,
                backendSeed,
                recycledSegmentsMax,
                durableWritesInFlightMax,
                false);
    }

    /**
     * The configuration of a log in a directory on a backend.
     *
     * @param directory the log directory.
     * @param backend the simulated backend.
     * @return the configuration.
     */
    WalConfig config(final Path directory, final SimulatedStorage backend) {
        return WalConfig.builder(directory)
                .backend(backend)
                .segmentCapacityBytes(segmentCapacityBytes)
                .bufferCapacityBytes(BUFFER_CAPACITY_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .maxBatchBytes(maxBatchBytes)
                .syncIntervalNs(syncIntervalNs)
                .groupWindowNs(groupWindowNs)
                .recycledSegmentsMax(recycledSegmentsMax)
                .durableWritesInFlightMax(durableWritesInFlightMax)
                // Depth whenever writes wait, unmeasured: a short workload ends before the log's first
                // probe of whether depth pays (WriteDepthPolicy has its own tests).
                .writeDepthMeasured(false)
                .compression(
                        compressed
                                ? Compression.with(new RunLengthCodec())
                                        .thresholdBytes(64)
                                        .encoders(2)
                                : null)
                .build();
    }

    @Override
    public String toString() {
        return "WorkloadSpec{storage=" + (storage.directIo() ? "direct" : "buffered")
                + (storage.dsync() ? "+dsync" : "")
                + ", segment=" + segmentCapacityBytes + ", maxBatch=" + maxBatchBytes + ", syncInterval="
                + syncIntervalNs + "ns, groupWindow=" + groupWindowNs + "ns, freezeAfterEvents=" + freezeAfterEvents
                + ", backendSeed=" + backendSeed + ", recycledSegmentsMax=" + recycledSegmentsMax
                + ", durableWritesInFlightMax="
                + durableWritesInFlightMax + (compressed ? ", compressed" : "") + ", phases="
                + phases + "}";
    }
}
