package io.walden.bench.harness;

import java.util.List;

/**
 * The names that appear in the {@code system} column, and which of them run in the harness's own
 * writer loop.
 *
 * <p><b>Threading:</b> constants.
 */
public final class Systems {
    /** Walden itself. */
    public static final String WALDEN = "walden";
    /** fio, run as an external process. */
    public static final String FIO = "fio";
    /** FileChannel write + force(false) per record, under a lock. */
    public static final String FILECHANNEL_FORCE = "filechannel-force";
    /** FileChannel write per record, force(false) every N records, under a lock. */
    public static final String FILECHANNEL_FORCE_EVERY = "filechannel-force-every";
    /** AsynchronousFileChannel write, wait, then force(false), per record. */
    public static final String ASYNCFILECHANNEL_FORCE = "asyncfilechannel-force";
    /** RandomAccessFile write + getFD().sync() per record, under a lock. */
    public static final String RAF_SYNC = "randomaccessfile-sync";
    /** RocksDB put, WriteOptions.sync true (SYNCED) or false (WRITTEN). */
    public static final String ROCKSDB = "rocksdb";
    /** Chronicle Queue append, no sync. */
    public static final String CHRONICLE_QUEUE = "chronicle-queue";

    /** Walden variant: one writer does not wait per record; a thread watches the written position. */
    public static final String VARIANT_ASYNC_ACK = "async-ack";
    /**
     * Walden variant: open loop through {@code AsyncAppender} ({@link AsyncDurableDriver}): {@code
     * writers} producers, each with its own appender of {@value AsyncDurableDriver#CAPACITY} pending
     * acknowledgements, append at the scenario's level without waiting and poll after every append.
     */
    public static final String VARIANT_ASYNC_DURABLE = "async-durable";
    /**
     * Walden variant: a new log's first moments, one writer {@code SYNCED} 128 B on a fresh log in a
     * fresh JVM, measured over {@link Plan#START_UP_MEASURE_MS} after {@link Plan#START_UP_WARMUP_MS}
     * whatever the run's own durations; judged against the steady-state row of the same scenario.
     */
    public static final String VARIANT_START_UP = "start-up";
    /**
     * Walden variant: retention keeps the log at {@link WaldenTarget#RETAINED_SEGMENTS} segments while
     * it is written (a thread calls {@code truncateToSize} every few milliseconds), so that the log
     * runs at a fixed size and its next segments are made from the files retention frees.
     */
    public static final String VARIANT_RETAINED = "retained";
    /**
     * Walden variant: one durable write in flight at a time ({@code durableWritesInFlightMax(1)}), the
     * row a pipelined scenario (an O_DSYNC backend that overlaps writes) is compared with.
     */
    public static final String VARIANT_ONE_WRITE = "one-write";
    /** Walden variant: the recovery scan of a closed log from the page cache. */
    public static final String VARIANT_RECOVERY = "recovery";
    /** AsynchronousFileChannel with the JDK's default (unbounded, cached) thread pool. */
    public static final String AFC_DEFAULT_POOL = "default-pool";
    /** AsynchronousFileChannel with a fixed pool of four threads. */
    public static final String AFC_FIXED_POOL = "fixed-pool-4";

    /** Baselines that run in the harness's writer loop, in report order. */
    public static final List<String> LOOP_BASELINES = List.of(
            FILECHANNEL_FORCE, FILECHANNEL_FORCE_EVERY, ASYNCFILECHANNEL_FORCE, RAF_SYNC, ROCKSDB, CHRONICLE_QUEUE);

    private Systems() {}
}
