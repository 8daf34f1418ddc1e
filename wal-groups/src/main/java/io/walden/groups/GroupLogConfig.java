package io.walden.groups;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.util.Objects;

/**
 * The settings of a {@link GroupLog}: the one Walden log under it ({@link WalConfig}) and the group
 * layer's own few. Immutable; build one with {@link #builder(WalConfig)}.
 */
public final class GroupLogConfig {
    /** Default {@link #readers()}. */
    public static final int READERS_DEFAULT = 4;
    /** Default {@link #relocateAfterRounds()}. */
    public static final int RELOCATE_AFTER_ROUNDS_DEFAULT = 3;
    /** Default {@link #maxValueBytes()}. */
    public static final int MAX_VALUE_BYTES_DEFAULT = 64 * 1024;
    /** Default {@link #pinningGroupsReported()}. */
    public static final int PINNING_GROUPS_REPORTED_DEFAULT = 16;
    /** The directory, inside the group log's, of the default {@link #relocationWalConfig()}. */
    public static final String RELOCATION_DIRECTORY_NAME = "relocated";

    private final WalConfig walConfig;
    private final int readers;
    private final int relocateAfterRounds;
    private final int maxValueBytes;
    private final int pinningGroupsReported;
    private final WalConfig relocationWalConfig;

    private GroupLogConfig(final Builder builder) {
        this.walConfig = builder.walConfig;
        this.readers = builder.readers;
        this.relocateAfterRounds = builder.relocateAfterRounds;
        this.maxValueBytes = builder.maxValueBytes;
        this.pinningGroupsReported = builder.pinningGroupsReported;
        this.relocationWalConfig =
                builder.relocationWalConfig != null ? builder.relocationWalConfig : deriveRelocation(walConfig);
    }

    /**
     * @param walConfig the Walden log that holds every group.
     * @return a builder with every other setting at its default.
     */
    public static Builder builder(final WalConfig walConfig) {
        return new Builder(walConfig);
    }

    /**
     * The relocation log's default: in {@value #RELOCATION_DIRECTORY_NAME} inside the group log's
     * directory, the same backend and durability settings, segments a quarter of the main log's (it
     * grows only as fast as purge relocates), no recycled segments kept, and a buffer large enough for
     * the main log's largest record plus the relocation header.
     */
    private static WalConfig deriveRelocation(final WalConfig main) {
        final int maxRecordBytes = main.maxRecordBytes() + RelocatedRecordDescriptor.HEADER_LENGTH;
        int bufferBytes = main.bufferCapacityBytes();
        while ((bufferBytes - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH
                        < maxRecordBytes
                && bufferBytes < WalConfig.SEGMENT_CAPACITY_BYTES_MAX) {
            bufferBytes *= 2;
        }
        final int segmentBytes =
                Math.max(Math.max(WalConfig.SEGMENT_CAPACITY_BYTES_MIN, bufferBytes), main.segmentCapacityBytes() / 4);
        final WalConfig.Builder builder = WalConfig.builder(main.directory().resolve(RELOCATION_DIRECTORY_NAME))
                .storageOptions(main.storageOptions())
                .segmentCapacityBytes(segmentBytes)
                .bufferCapacityBytes(bufferBytes)
                .maxRecordBytes(maxRecordBytes)
                .recycledSegmentsMax(0)
                .appendTimeoutNs(main.appendTimeoutNs())
                .recoveryPolicy(main.recoveryPolicy());
        if (main.backend() != null) {
            builder.backend(main.backend());
        }
        return builder.build();
    }

    /** @return the Walden log that holds every group. */
    public WalConfig walConfig() {
        return walConfig;
    }

    /**
     * @return the Walden log that relocated entries go to ({@link GroupLog#purge()}): by default the
     *     directory {@value #RELOCATION_DIRECTORY_NAME} inside the group log's, on the same
     *     backend, with segments a quarter of the main log's, no recycled segments, and records {@value
     *     RelocatedRecordDescriptor#HEADER_LENGTH} bytes longer. Created at the first relocation.
     */
    public WalConfig relocationWalConfig() {
        return relocationWalConfig;
    }

    /**
     * @return how many readers entry reads share; each holds a window of the log (256 KiB or more), so
     *     this bounds the memory reads take, and how many threads read files at once.
     */
    public int readers() {
        return readers;
    }

    /**
     * @return after how many {@link GroupLog#purge()} rounds in a row a group that pins the oldest segment
     *     has its live records there copied to the head of the log, so the segment can be freed; 0 never
     *     relocates (the caller must then truncate the groups the purge report names).
     */
    public int relocateAfterRounds() {
        return relocateAfterRounds;
    }

    /** @return the largest value of a group's key-value, held in memory. */
    public int maxValueBytes() {
        return maxValueBytes;
    }

    /** @return how many of the groups that pin the oldest segment a purge report names. */
    public int pinningGroupsReported() {
        return pinningGroupsReported;
    }

    @Override
    public String toString() {
        return "GroupLogConfig{" + walConfig + ", readers=" + readers + ", relocateAfterRounds=" + relocateAfterRounds
                + ", maxValueBytes=" + maxValueBytes + ", pinningGroupsReported=" + pinningGroupsReported + '}';
    }

    /** Builds a {@link GroupLogConfig}; each setting is checked when set. */
    public static final class Builder {
        private final WalConfig walConfig;
        private int readers = READERS_DEFAULT;
        private int relocateAfterRounds = RELOCATE_AFTER_ROUNDS_DEFAULT;
        private int maxValueBytes = MAX_VALUE_BYTES_DEFAULT;
        private int pinningGroupsReported = PINNING_GROUPS_REPORTED_DEFAULT;

        private WalConfig relocationWalConfig;

        private Builder(final WalConfig walConfig) {
            this.walConfig = Objects.requireNonNull(walConfig, "walConfig");
        }

        /** @param readers see {@link GroupLogConfig#readers()}; 1 to 64. @return this builder. */
        public Builder readers(final int readers) {
            this.readers = check("readers", readers, 1, 64);
            return this;
        }

        /** @param rounds see {@link GroupLogConfig#relocateAfterRounds()}; 0 or more. @return this builder. */
        /**
         * @param config see {@link GroupLogConfig#relocationWalConfig()}: a directory of its own (never the
         *     group log's), whose records take {@value RelocatedRecordDescriptor#HEADER_LENGTH} bytes
         *     more than the group log's largest.
         * @return this builder.
         */
        public Builder relocationWalConfig(final WalConfig config) {
            this.relocationWalConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /** @param rounds see {@link GroupLogConfig#relocateAfterRounds()}; 0 or more. @return this builder. */
        public Builder relocateAfterRounds(final int rounds) {
            this.relocateAfterRounds = check("relocateAfterRounds", rounds, 0, Integer.MAX_VALUE);
            return this;
        }

        /** @param bytes see {@link GroupLogConfig#maxValueBytes()}; 0 to 16 MiB. @return this builder. */
        public Builder maxValueBytes(final int bytes) {
            this.maxValueBytes = check("maxValueBytes", bytes, 0, 16 * 1024 * 1024);
            return this;
        }

        /** @param groups see {@link GroupLogConfig#pinningGroupsReported()}; 0 to 65536. @return this builder. */
        public Builder pinningGroupsReported(final int groups) {
            this.pinningGroupsReported = check("pinningGroupsReported", groups, 0, 65536);
            return this;
        }

        /** @return the configuration. */
        public GroupLogConfig build() {
            final GroupLogConfig config = new GroupLogConfig(this);
            final WalConfig relocation = config.relocationWalConfig;
            if (relocation
                    .directory()
                    .toAbsolutePath()
                    .equals(walConfig.directory().toAbsolutePath())) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "relocationWalConfig names the group log's own directory " + walConfig.directory()
                                + ": give the relocation log a directory of its own");
            }
            if (relocation.maxRecordBytes() < walConfig.maxRecordBytes() + RelocatedRecordDescriptor.HEADER_LENGTH) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "relocationWalConfig.maxRecordBytes=" + relocation.maxRecordBytes() + " cannot hold a"
                                + " relocated copy of the group log's largest record (maxRecordBytes="
                                + walConfig.maxRecordBytes() + " plus " + RelocatedRecordDescriptor.HEADER_LENGTH
                                + " bytes): raise it");
            }
            return config;
        }

        private static int check(final String name, final int value, final int min, final int max) {
            if (value < min || value > max) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "GroupLogConfig." + name + " must be " + min + " to " + max + ", not " + value);
            }
            return value;
        }
    }
}
