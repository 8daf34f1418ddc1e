package io.walden.bench.harness;

/**
 * A store the {@code groups} command appends to: many Raft groups' logs, in one Walden group log, in
 * a Walden log per group, in a RocksDB per group or in one shared RocksDB. Each writer thread gets its
 * own {@link Writer}; {@link Writer#append} returns once the whole batch is durable.
 *
 * <p><b>Threading:</b> {@link #writer} once per writer thread; {@link #close()} after every writer
 * stopped; the other methods from the main thread while no writer runs.
 */
interface GroupStore extends AutoCloseable {
    /**
     * The appender of one writer thread.
     *
     * @param writerIndex 0 to writers - 1.
     * @return the writer.
     */
    Writer writer(int writerIndex);

    /**
     * What the open took beyond its time, e.g. the bytes a scan read; empty if nothing to say.
     *
     * @return the text.
     */
    default String openDetail() {
        return "";
    }

    /**
     * What the store says about itself after the run: the I/O it did since it was opened (syncs, bytes
     * written, files), for reading the device bytes, and memory it holds; empty if nothing.
     *
     * @return the text.
     */
    default String runDetail() {
        return "";
    }

    /**
     * The bytes of log a reopen scanned, or -1 if the store does not say.
     *
     * @return bytes.
     */
    default long openScannedBytes() {
        return -1;
    }

    /**
     * How long the scan of the open took, or -1 if the store does not say.
     *
     * @return nanoseconds.
     */
    default long openScanNs() {
        return -1;
    }

    /**
     * A group's last index as the store holds it, to check a reopened store.
     *
     * @param groupId the group.
     * @return its last index, 0 if it holds none, or -1 if this store cannot tell cheaply.
     * @throws Exception if the store fails.
     */
    default long lastIndex(final long groupId) throws Exception {
        return -1;
    }

    @Override
    void close();

    /** Appends the batches of one writer thread. */
    @FunctionalInterface
    interface Writer {
        /**
         * Appends a batch and returns once all of it is durable.
         *
         * @param batch the batch.
         * @throws Exception if the append fails; the writer stops.
         */
        void append(GroupsBatchPlan batch) throws Exception;
    }
}
