package io.walden;

import io.walden.codec.Compression;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Immutable configuration of a {@link Wal}, made with {@link #builder(Path)}. Every setting has a
 * default that needs no tuning; {@link Builder#build()} validates all of them and names the
 * setting and value it refuses.
 *
 * <p>Memory: a log holds {@link #bufferCapacityBytes()} of direct memory for its log buffer, one
 * 16 KiB zero block for segment preparation, and each open reader holds
 * a read buffer of {@code max(256 KiB, 2 * maxRecordBytes)} rounded to a power of two.
 *
 * <p><b>Threading:</b> immutable; the builder is not thread-safe.
 */
public final class WalConfig {
    /** Default segment capacity: 64 MiB. */
    public static final int SEGMENT_CAPACITY_BYTES_DEFAULT = 64 * 1024 * 1024;
    /** Smallest segment capacity: 64 KiB. */
    public static final int SEGMENT_CAPACITY_BYTES_MIN = 64 * 1024;
    /** Largest segment capacity: 1 GiB. */
    public static final int SEGMENT_CAPACITY_BYTES_MAX = 1024 * 1024 * 1024;
    /** Default log buffer capacity: 8 MiB. */
    public static final int BUFFER_CAPACITY_BYTES_DEFAULT = 8 * 1024 * 1024;
    /** Smallest log buffer capacity: 64 KiB. */
    public static final int BUFFER_CAPACITY_BYTES_MIN = 64 * 1024;
    /** Default largest record payload: 1 MiB. */
    public static final int MAX_RECORD_BYTES_DEFAULT = 1024 * 1024;
    /** Default most bytes per write request: 1 MiB. */
    public static final int MAX_BATCH_BYTES_DEFAULT = 1024 * 1024;
    /** Smallest value of the most bytes per write request. */
    public static final int MAX_BATCH_BYTES_MIN = 4096;
    /** Default group window: none; a sync starts as soon as the previous one completes. */
    public static final long GROUP_WINDOW_NS_DEFAULT = 0;
    /** Default interval of the background sync of WRITTEN data: one second. */
    public static final long SYNC_INTERVAL_NS_DEFAULT = TimeUnit.SECONDS.toNanos(1);
    /** Default time an append waits for buffer space: ten seconds. */
    public static final long APPEND_TIMEOUT_NS_DEFAULT = TimeUnit.SECONDS.toNanos(10);
    /** Default {@link Builder#recycledSegmentsMax}: two. */
    public static final int RECYCLED_SEGMENTS_MAX_DEFAULT = 2;
    /** Default {@link Builder#durableWritesInFlightMax}: 16. */
    public static final int DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT = 16;
    /** Largest {@link Builder#durableWritesInFlightMax} allowed. */
    public static final int DURABLE_WRITES_IN_FLIGHT_MAX_LIMIT = 64;
    /** Default time a thread waiting for a durability level yields the processor before it blocks. */
    public static final long WAIT_YIELD_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(500);
    /** Longest time a waiting thread may yield before it blocks: 100 ms. */
    public static final long WAIT_YIELD_NS_MAX = TimeUnit.MILLISECONDS.toNanos(100);

    /** System property that sets the segment capacity in {@link Builder#fromSystemProperties()}. */
    public static final String SEGMENT_CAPACITY_BYTES_PROP_NAME = "walden.segment.capacity.bytes";
    /** System property that sets the buffer capacity. */
    public static final String BUFFER_CAPACITY_BYTES_PROP_NAME = "walden.buffer.capacity.bytes";
    /** System property that sets the largest record payload. */
    public static final String MAX_RECORD_BYTES_PROP_NAME = "walden.max.record.bytes";
    /** System property that sets the most bytes per write request. */
    public static final String MAX_BATCH_BYTES_PROP_NAME = "walden.max.batch.bytes";
    /** System property that sets the group window in nanoseconds. */
    public static final String GROUP_WINDOW_NS_PROP_NAME = "walden.group.window.ns";
    /** System property that sets {@link Builder#groupReturnWait(boolean)} ({@code true} or {@code false}). */
    public static final String GROUP_RETURN_WAIT_PROP_NAME = "walden.group.return.wait";
    /** System property that sets {@link Builder#waitYieldNs(long)} in nanoseconds. */
    public static final String WAIT_YIELD_NS_PROP_NAME = "walden.wait.yield.ns";
    /** System property that sets the background sync interval in nanoseconds. */
    public static final String SYNC_INTERVAL_NS_PROP_NAME = "walden.sync.interval.ns";
    /** System property that sets the append timeout in nanoseconds. */
    public static final String APPEND_TIMEOUT_NS_PROP_NAME = "walden.append.timeout.ns";
    /** System property that sets how many freed segment files retention keeps for reuse. */
    public static final String RECYCLED_SEGMENTS_MAX_PROP_NAME = "walden.recycled.segments.max";
    /** System property that sets how many durable writes may be in flight at once. */
    public static final String DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME = "walden.durable.writes.in.flight.max";
    /** System property that sets {@link Builder#writeDepthMeasured(boolean)} ({@code true} or {@code false}). */
    public static final String WRITE_DEPTH_MEASURED_PROP_NAME = "walden.write.depth.measured";
    /** System property that sets {@link Builder#zeroFillSegments(boolean)} ({@code true} or {@code false}). */
    public static final String ZERO_FILL_SEGMENTS_PROP_NAME = "walden.zero.fill.segments";

    private final Path directory;
    private final StorageBackend backend;
    private final StorageOptions storageOptions;
    private final int segmentCapacityBytes;
    private final int bufferCapacityBytes;
    private final int maxRecordBytes;
    private final int maxBatchBytes;
    private final long groupWindowNs;
    private final boolean groupReturnWait;
    private final long waitYieldNs;
    private final long syncIntervalNs;
    private final long appendTimeoutNs;
    private final int recycledSegmentsMax;
    private final int durableWritesInFlightMax;
    private final boolean writeDepthMeasured;
    private final boolean zeroFillSegments;
    private final RecoveryPolicy recoveryPolicy;
    // Null: records are stored as given.
    private final Compression compression;
    // Whether the two were set, rather than derived from the segment capacity.
    private final boolean bufferCapacitySet;
    private final boolean maxRecordSet;

    private WalConfig(final Builder builder) {
        this.directory = builder.directory;
        this.backend = builder.backend;
        this.storageOptions = builder.storageOptions;
        this.segmentCapacityBytes = builder.segmentCapacityBytes;
        this.bufferCapacityBytes = builder.builtBufferCapacityBytes;
        this.maxRecordBytes = builder.builtMaxRecordBytes;
        this.maxBatchBytes = builder.maxBatchBytes;
        this.groupWindowNs = builder.groupWindowNs;
        this.groupReturnWait = builder.groupReturnWait;
        this.waitYieldNs = builder.waitYieldNs;
        this.syncIntervalNs = builder.syncIntervalNs;
        this.appendTimeoutNs = builder.appendTimeoutNs;
        this.recycledSegmentsMax = builder.recycledSegmentsMax;
        this.durableWritesInFlightMax = builder.durableWritesInFlightMax;
        this.writeDepthMeasured = builder.writeDepthMeasured;
        this.zeroFillSegments = builder.zeroFillSegments;
        this.recoveryPolicy = builder.recoveryPolicy;
        this.compression = builder.compression;
        this.bufferCapacitySet = builder.bufferCapacitySet;
        this.maxRecordSet = builder.maxRecordSet;
    }

    /**
     * The configuration that an existing log whose segments have another capacity opens with: the log's
     * capacity wins, and the buffer capacity and the largest record, where they were not set, are
     * derived from it as {@link Builder#build()} derives them; settings that were set are checked
     * against the log's segments when it opens.
     *
     * @param logSegmentCapacityBytes the capacity of the existing log's segments.
     * @return this configuration if the capacity is the configured one, else the derived one.
     */
    public WalConfig forSegmentCapacity(final int logSegmentCapacityBytes) {
        if (logSegmentCapacityBytes == segmentCapacityBytes) {
            return this;
        }
        final Builder builder = new Builder(directory);
        builder.backend = backend;
        builder.storageOptions = storageOptions;
        builder.segmentCapacityBytes = logSegmentCapacityBytes;
        builder.bufferCapacityBytes = bufferCapacitySet
                ? Math.min(bufferCapacityBytes, logSegmentCapacityBytes)
                : BUFFER_CAPACITY_BYTES_DEFAULT;
        builder.bufferCapacitySet = bufferCapacitySet;
        builder.maxRecordBytes = maxRecordSet ? maxRecordBytes : MAX_RECORD_BYTES_DEFAULT;
        builder.maxRecordSet = maxRecordSet;
        builder.maxBatchBytes = maxBatchBytes;
        builder.groupWindowNs = groupWindowNs;
        builder.groupReturnWait = groupReturnWait;
        builder.waitYieldNs = waitYieldNs;
        builder.syncIntervalNs = syncIntervalNs;
        builder.appendTimeoutNs = appendTimeoutNs;
        builder.recycledSegmentsMax = recycledSegmentsMax;
        builder.durableWritesInFlightMax = durableWritesInFlightMax;
        builder.writeDepthMeasured = writeDepthMeasured;
        builder.zeroFillSegments = zeroFillSegments;
        builder.recoveryPolicy = recoveryPolicy;
        builder.compression = compression;
        if (maxRecordSet) {
            // Checked against the log's segments by the open, which names the log and the setting.
            final int buffer = builder.bufferCapacitySet
                    ? builder.bufferCapacityBytes
                    : Math.min(BUFFER_CAPACITY_BYTES_DEFAULT, logSegmentCapacityBytes);
            final int limit = (buffer - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;
            if (maxRecordBytes > limit) {
                return this;
            }
        }
        return builder.build();
    }

    /**
     * @param directory the log directory, created if missing.
     * @return a builder with every default set.
     */
    public static Builder builder(final Path directory) {
        return new Builder(directory);
    }

    /** @return the log directory. */
    public Path directory() {
        return directory;
    }

    /** @return the backend, or null to choose the best available one when the log opens. */
    public StorageBackend backend() {
        return backend;
    }

    /** @return the I/O options used when the backend is chosen automatically. */
    public StorageOptions storageOptions() {
        return storageOptions;
    }

    /** @return capacity of each segment file, header included. */
    public int segmentCapacityBytes() {
        return segmentCapacityBytes;
    }

    /** @return capacity of the in-memory log buffer. */
    public int bufferCapacityBytes() {
        return bufferCapacityBytes;
    }

    /** @return the largest payload one record may have. */
    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    /** @return the most bytes the I/O thread hands to one write request. */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /** @return how long a sync may wait for more records to cover, once one is requested. */
    public long groupWindowNs() {
        return groupWindowNs;
    }

    /** @return whether a sync waits for a group of waiters to return: {@link Builder#groupReturnWait}. */
    public boolean groupReturnWait() {
        return groupReturnWait;
    }

    /** @return how long a waiting thread yields before it blocks: {@link Builder#waitYieldNs}. */
    public long waitYieldNs() {
        return waitYieldNs;
    }

    /** @return interval of the background sync of WRITTEN data; zero for none. */
    public long syncIntervalNs() {
        return syncIntervalNs;
    }

    /** @return how long an append waits for buffer space before it fails. */
    public long appendTimeoutNs() {
        return appendTimeoutNs;
    }

    /** @return how many segment files freed by retention are kept for reuse as the next segments. */
    public int recycledSegmentsMax() {
        return recycledSegmentsMax;
    }

    /** @return the most durable writes in flight at once: {@link Builder#durableWritesInFlightMax}. */
    public int durableWritesInFlightMax() {
        return durableWritesInFlightMax;
    }

    /** @return whether writes go side by side only while that pays: {@link Builder#writeDepthMeasured}. */
    public boolean writeDepthMeasured() {
        return writeDepthMeasured;
    }

    /** @return whether new segments are zero-filled ahead of need: {@link Builder#zeroFillSegments}. */
    public boolean zeroFillSegments() {
        return zeroFillSegments;
    }

    /** @return what opening does with corruption. */
    public RecoveryPolicy recoveryPolicy() {
        return recoveryPolicy;
    }

    /** @return how appended records are compressed: {@link Builder#compression}; null if they are not. */
    public Compression compression() {
        return compression;
    }

    @Override
    public String toString() {
        return "WalConfig{directory=" + directory + ", backend=" + (backend == null ? "auto" : backend.name())
                + ", segmentCapacityBytes=" + segmentCapacityBytes + ", bufferCapacityBytes=" + bufferCapacityBytes
                + ", maxRecordBytes=" + maxRecordBytes + ", maxBatchBytes=" + maxBatchBytes + ", groupWindowNs="
                + groupWindowNs + ", groupReturnWait=" + groupReturnWait + ", waitYieldNs=" + waitYieldNs
                + ", syncIntervalNs=" + syncIntervalNs
                + ", appendTimeoutNs=" + appendTimeoutNs
                + ", recycledSegmentsMax=" + recycledSegmentsMax
                + ", durableWritesInFlightMax=" + durableWritesInFlightMax + ", writeDepthMeasured="
                + writeDepthMeasured
                + ", zeroFillSegments=" + zeroFillSegments
                + ", recoveryPolicy=" + recoveryPolicy
                + ", compression=" + (compression == null ? "none" : compression) + '}';
    }

    /** Builds a {@link WalConfig}. <b>Threading:</b> not thread-safe; use from one thread. */
    public static final class Builder {
        private final Path directory;
        private StorageBackend backend;
        private StorageOptions storageOptions = StorageOptions.BUFFERED;
        private int segmentCapacityBytes = SEGMENT_CAPACITY_BYTES_DEFAULT;
        private int bufferCapacityBytes = BUFFER_CAPACITY_BYTES_DEFAULT;
        private int maxRecordBytes = MAX_RECORD_BYTES_DEFAULT;
        // Whether the two were set; if not, build() derives them from the segment capacity.
        private boolean bufferCapacitySet;
        private boolean maxRecordSet;
        // What build() settled on, set or derived.
        private int builtBufferCapacityBytes;
        private int builtMaxRecordBytes;
        private int maxBatchBytes = MAX_BATCH_BYTES_DEFAULT;
        private long groupWindowNs = GROUP_WINDOW_NS_DEFAULT;
        private boolean groupReturnWait = true;
        private long waitYieldNs = WAIT_YIELD_NS_DEFAULT;
        private long syncIntervalNs = SYNC_INTERVAL_NS_DEFAULT;
        private long appendTimeoutNs = APPEND_TIMEOUT_NS_DEFAULT;
        private int recycledSegmentsMax = RECYCLED_SEGMENTS_MAX_DEFAULT;
        private int durableWritesInFlightMax = DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT;
        private boolean writeDepthMeasured = true;
        private boolean zeroFillSegments;
        private RecoveryPolicy recoveryPolicy = RecoveryPolicy.FAIL;
        private Compression compression;

        private Builder(final Path directory) {
            this.directory = directory;
        }

        /**
         * Reads every setting that has a {@code *_PROP_NAME} system property set.
         *
         * @return this builder.
         */
        public Builder fromSystemProperties() {
            ConfigProperties.intProperty(SEGMENT_CAPACITY_BYTES_PROP_NAME, this::segmentCapacityBytes);
            ConfigProperties.intProperty(BUFFER_CAPACITY_BYTES_PROP_NAME, this::bufferCapacityBytes);
            ConfigProperties.intProperty(MAX_RECORD_BYTES_PROP_NAME, this::maxRecordBytes);
            ConfigProperties.intProperty(MAX_BATCH_BYTES_PROP_NAME, this::maxBatchBytes);
            ConfigProperties.longProperty(GROUP_WINDOW_NS_PROP_NAME, this::groupWindowNs);
            ConfigProperties.booleanProperty(GROUP_RETURN_WAIT_PROP_NAME, this::groupReturnWait);
            ConfigProperties.longProperty(WAIT_YIELD_NS_PROP_NAME, this::waitYieldNs);
            ConfigProperties.longProperty(SYNC_INTERVAL_NS_PROP_NAME, this::syncIntervalNs);
            ConfigProperties.longProperty(APPEND_TIMEOUT_NS_PROP_NAME, this::appendTimeoutNs);
            ConfigProperties.intProperty(RECYCLED_SEGMENTS_MAX_PROP_NAME, this::recycledSegmentsMax);
            ConfigProperties.intProperty(DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME, this::durableWritesInFlightMax);
            ConfigProperties.booleanProperty(WRITE_DEPTH_MEASURED_PROP_NAME, this::writeDepthMeasured);
            ConfigProperties.booleanProperty(ZERO_FILL_SEGMENTS_PROP_NAME, this::zeroFillSegments);
            return this;
        }

        /**
         * @param backend the backend to use instead of the best available one.
         * @return this builder.
         */
        public Builder backend(final StorageBackend backend) {
            this.backend = backend;
            return this;
        }

        /**
         * @param storageOptions the I/O options used when the backend is chosen automatically.
         * @return this builder.
         */
        public Builder storageOptions(final StorageOptions storageOptions) {
            this.storageOptions = storageOptions;
            return this;
        }

        /**
         * @param segmentCapacityBytes the capacity of each segment file: a power of two from 64 KiB to 1 GiB.
         * @return this builder.
         */
        public Builder segmentCapacityBytes(final int segmentCapacityBytes) {
            this.segmentCapacityBytes = segmentCapacityBytes;
            return this;
        }

        /**
         * Sets the capacity of the log buffer: a power of two from 64 KiB up to the segment capacity.
         * This bounds the memory a log uses for unwritten records; appends wait when it is full. If
         * not set: 8 MiB, or the segment capacity if that is smaller.
         *
         * @param bufferCapacityBytes the capacity.
         * @return this builder.
         */
        public Builder bufferCapacityBytes(final int bufferCapacityBytes) {
            this.bufferCapacityBytes = bufferCapacityBytes;
            this.bufferCapacitySet = true;
            return this;
        }

        /**
         * Sets the largest record payload; a frame of it must fit in half the log buffer. If not set:
         * 1 MiB, or what half the log buffer holds if that is less.
         *
         * @param maxRecordBytes the limit.
         * @return this builder.
         */
        public Builder maxRecordBytes(final int maxRecordBytes) {
            this.maxRecordBytes = maxRecordBytes;
            this.maxRecordSet = true;
            return this;
        }

        /**
         * @param maxBatchBytes the most bytes the I/O thread hands to one write request, at least 4096.
         * @return this builder.
         */
        public Builder maxBatchBytes(final int maxBatchBytes) {
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        /**
         * @param groupWindowNs how long a requested sync may wait for more records before it starts. Zero,
         *     the default, starts each sync as soon as the previous one completes, which batches naturally.
         * @return this builder.
         */
        public Builder groupWindowNs(final long groupWindowNs) {
            this.groupWindowNs = groupWindowNs;
            return this;
        }

        /**
         * Sets whether, with no group window, the sync after one that woke waiters waits (at most as long
         * as the last sync took) for that group to come back, so that one sync covers the whole group
         * (docs/design/how-it-works.md). A lone writer never waits; a positive group window replaces
         * this. Default on.
         *
         * @param groupReturnWait true to wait for the returning group.
         * @return this builder.
         */
        public Builder groupReturnWait(final boolean groupReturnWait) {
            this.groupReturnWait = groupReturnWait;
            return this;
        }

        /**
         * Sets how long a thread waiting for its record to reach a durability level ({@link Wal#await},
         * or an append with {@code WRITTEN} or {@code SYNCED}) yields the processor ({@link
         * Thread#yield()}) before it blocks: it sees the position at once and spares a blocked waiter's
         * wake-up (docs/design/how-it-works.md, "Waiting"), for up to this much processor time per wait.
         * The yield ends early at the timeout, on an interrupt, and when the log fails or closes; a
         * {@code SYNCED} waiter skips it while recent syncs take longer, and, once another waiter
         * blocks, every waiter while other work keeps the processors busy (the log's I/O thread waits
         * 200 µs or more for one). Zero: no yield.
         *
         * @param waitYieldNs the time, from 0 to {@link WalConfig#WAIT_YIELD_NS_MAX}; default 500 µs.
         * @return this builder.
         */
        public Builder waitYieldNs(final long waitYieldNs) {
            this.waitYieldNs = waitYieldNs;
            return this;
        }

        /**
         * @param syncIntervalNs how often WRITTEN data is synced when no append asks for it; zero for never.
         * @return this builder.
         */
        public Builder syncIntervalNs(final long syncIntervalNs) {
            this.syncIntervalNs = syncIntervalNs;
            return this;
        }

        /**
         * @param appendTimeoutNs how long, positive, an append waits for buffer space before it fails with
         *     {@link WalException.ErrorCode#BACK_PRESSURE_TIMEOUT}.
         * @return this builder.
         */
        public Builder appendTimeoutNs(final long appendTimeoutNs) {
            this.appendTimeoutNs = appendTimeoutNs;
            return this;
        }

        /**
         * Sets how many segment files freed by retention are kept, renamed out of the log, to become
         * the next segments instead of new files, whose blocks a sync must first allocate (FORMAT.md,
         * "Recycling"). The kept files still count as the log's disk use. Zero
         * deletes every freed file.
         *
         * @param recycledSegmentsMax the bound, zero or more; default {@value WalConfig#RECYCLED_SEGMENTS_MAX_DEFAULT}.
         * @return this builder.
         */
        public Builder recycledSegmentsMax(final int recycledSegmentsMax) {
            this.recycledSegmentsMax = recycledSegmentsMax;
            return this;
        }

        /**
         * Sets how many writes may be in flight at once, each a group commit of its own, where every
         * write is durable by itself (O_DSYNC) and the backend overlaps writes (io_uring), under load
         * and while measured to pay ({@link #writeDepthMeasured}). The durable position moves only over
         * writes completed without a gap. With fdatasync one write is in flight.
         *
         * @param durableWritesInFlightMax from 1 to {@value WalConfig#DURABLE_WRITES_IN_FLIGHT_MAX_LIMIT};
         *     default {@value WalConfig#DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT}.
         * @return this builder.
         */
        public Builder durableWritesInFlightMax(final int durableWritesInFlightMax) {
            this.durableWritesInFlightMax = durableWritesInFlightMax;
            return this;
        }

        /**
         * Sets whether new segments are zero-filled ahead of need (in the background, stopped when the
         * appenders come near), as PostgreSQL's {@code wal_init_zero} does. By default they are not, and
         * every byte is written once; but a sync that covers a block written for the first time also
         * commits the file system's extent metadata, so a load of {@code SYNCED} records of a block or
         * more, on a log that does not recycle segments, syncs faster with zero-fill (one writer of 4 KiB
         * records: about 1.6x on ext4), at the price of writing every segment twice. Recycled segments
         * are never zero-filled: they are overwrites already.
         *
         * @param zeroFillSegments whether to zero-fill new segments; default false.
         * @return this builder.
         */
        public Builder zeroFillSegments(final boolean zeroFillSegments) {
            this.zeroFillSegments = zeroFillSegments;
            return this;
        }

        /**
         * Sets whether several durable writes go side by side only while the log measures that they pay
         * (a write beside others taking at most 1.4 times as long as one alone), probing again now and
         * then. False keeps up to {@link #durableWritesInFlightMax} in flight whenever writes wait,
         * unmeasured.
         *
         * @param writeDepthMeasured whether to measure; default true.
         * @return this builder.
         */
        public Builder writeDepthMeasured(final boolean writeDepthMeasured) {
            this.writeDepthMeasured = writeDepthMeasured;
            return this;
        }

        /**
         * @param recoveryPolicy what opening does with corruption.
         * @return this builder.
         */
        public Builder recoveryPolicy(final RecoveryPolicy recoveryPolicy) {
            this.recoveryPolicy = recoveryPolicy;
            return this;
        }

        /**
         * Compresses appended records ({@link Compression}). Every reader of the log needs the codec:
         * {@code wal-codecs} on the class path registers lz4 and zstd ({@link java.util.ServiceLoader}).
         *
         * @param compression the codec and its settings, or null to store records as given (the
         *     default).
         * @return this builder.
         */
        public Builder compression(final Compression compression) {
            this.compression = compression;
            return this;
        }

        /**
         * Validates every setting and builds the configuration.
         *
         * @return the configuration.
         * @throws WalException with {@link WalException.ErrorCode#CONFIG}, naming the setting and
         *     value refused and the rule.
         */
        public WalConfig build() {
            ConfigRules.check(directory != null, "directory", null, "must be set");
            Objects.requireNonNull(storageOptions, "storageOptions");
            ConfigRules.check(recoveryPolicy != null, "recoveryPolicy", null, "must be set");
            ConfigRules.checkPowerOfTwoInRange(
                    "segmentCapacityBytes",
                    segmentCapacityBytes,
                    SEGMENT_CAPACITY_BYTES_MIN,
                    SEGMENT_CAPACITY_BYTES_MAX);
            // Unset, the buffer and the largest record follow the segment capacity down, so that setting
            // only a small segment capacity works.
            final int buffer = bufferCapacitySet
                    ? bufferCapacityBytes
                    : Math.min(BUFFER_CAPACITY_BYTES_DEFAULT, segmentCapacityBytes);
            ConfigRules.checkPowerOfTwoInRange(
                    "bufferCapacityBytes", buffer, BUFFER_CAPACITY_BYTES_MIN, segmentCapacityBytes);
            final int maxRecord = ConfigRules.maxRecordBytes(
                    maxRecordSet,
                    maxRecordBytes,
                    MAX_RECORD_BYTES_DEFAULT,
                    buffer,
                    bufferCapacitySet ? -1 : segmentCapacityBytes);
            ConfigRules.check(
                    maxBatchBytes >= MAX_BATCH_BYTES_MIN,
                    "maxBatchBytes",
                    maxBatchBytes,
                    "must be at least " + MAX_BATCH_BYTES_MIN);
            ConfigRules.check(groupWindowNs >= 0, "groupWindowNs", groupWindowNs, "must be zero or positive");
            ConfigRules.check(
                    waitYieldNs >= 0 && waitYieldNs <= WAIT_YIELD_NS_MAX,
                    "waitYieldNs",
                    waitYieldNs,
                    "must be from 0 (no yield) to " + WAIT_YIELD_NS_MAX
                            + " ns; a longer yield only burns processor time that blocking saves");
            ConfigRules.check(
                    syncIntervalNs >= 0,
                    "syncIntervalNs",
                    syncIntervalNs,
                    "must be zero (no background sync) or positive");
            ConfigRules.check(appendTimeoutNs > 0, "appendTimeoutNs", appendTimeoutNs, "must be positive");
            ConfigRules.check(
                    recycledSegmentsMax >= 0,
                    "recycledSegmentsMax",
                    recycledSegmentsMax,
                    "must be zero (delete freed files) or more");
            ConfigRules.check(
                    durableWritesInFlightMax >= 1 && durableWritesInFlightMax <= DURABLE_WRITES_IN_FLIGHT_MAX_LIMIT,
                    "durableWritesInFlightMax",
                    durableWritesInFlightMax,
                    "must be from 1 (one write at a time) to " + DURABLE_WRITES_IN_FLIGHT_MAX_LIMIT);
            builtBufferCapacityBytes = buffer;
            builtMaxRecordBytes = maxRecord;
            return new WalConfig(this);
        }
    }
}
