package io.walden.bench.harness;

/**
 * Something the writer loop appends to: Walden or a baseline, opened for one scenario. Each writer
 * thread gets its own {@link Appender}; {@link Appender#append()} returns when the record is
 * acknowledged as the scenario's durability level says.
 *
 * <p><b>Threading:</b> {@link #appender} is called once by each writer thread; {@link #syncs()}
 * from the measuring thread at any time; {@link #close()} after every writer stopped.
 */
public interface Target extends AutoCloseable {
    /**
     * Creates the appender of one writer thread, with its own payload.
     *
     * @param writerIndex 0 to writers - 1.
     * @return the appender.
     * @throws Exception if the target cannot serve another writer.
     */
    Appender appender(int writerIndex) throws Exception;

    /**
     * Data syncs (fdatasync, force, fsync) completed so far, or -1 if the target does not say.
     *
     * @return the count.
     */
    long syncs();

    /**
     * Records covered by syncs so far, for records per sync, or -1 to use acknowledged records.
     *
     * @return the count.
     */
    default double recordsCoveredBySyncs() {
        return -1;
    }

    /**
     * Releases files and threads.
     *
     * @throws java.io.IOException if closing fails.
     */
    @Override
    void close() throws java.io.IOException;

    /** Appends one record per call for one writer thread. */
    @FunctionalInterface
    interface Appender {
        /**
         * Appends one record and returns once it is acknowledged.
         *
         * @throws Exception if the append fails; the writer stops.
         */
        void append() throws Exception;
    }
}
