package io.walden.bench.harness;

import java.util.Locale;

/**
 * The per-group sizes of the stores that keep one log per group, chosen from the number of groups so
 * that many groups fit in memory, and the Walden backend. Defaults: a Walden log per group gets a
 * segment of {@code 512 MiB / groups} and a buffer of {@code 64 MiB / groups} (powers of two, segment 1
 * to 64 MiB, buffer 64 KiB to 8 MiB: Walden's defaults up to 8 groups); a RocksDB per group gets a write
 * buffer of {@code 512 MiB / groups} (a power of two, 1 to 128 MiB: jraft's own, 128 MiB, up to 4 groups).
 *
 * @param backend the Walden backend of both Walden stores, e.g. {@code nio}.
 * @param separateSegmentBytes segment capacity of each Walden log of {@code walden-separate}.
 * @param separateBufferBytes log buffer capacity of each of them.
 * @param separateConcurrent whether {@code walden-separate} appends a batch's groups first and then
 *     waits for all of them (their logs sync at once), rather than one durable append after the other.
 * @param rocksDbWriteBufferBytes write buffer of each RocksDB of {@code rocksdb-per-group}.
 */
record GroupStoreSettings(
        String backend,
        int separateSegmentBytes,
        int separateBufferBytes,
        boolean separateConcurrent,
        long rocksDbWriteBufferBytes) {

    private static final int MIB = 1024 * 1024;
    private static final int KIB = 1024;

    /**
     * The defaults for a number of groups, with any size the user gave instead.
     *
     * @param groups the groups.
     * @param backend the Walden backend.
     * @param separateConcurrent see {@link #separateConcurrent()}.
     * @param segmentKib the user's segment capacity in KiB, or 0 for the default.
     * @param bufferKib the user's buffer capacity in KiB, or 0 for the default.
     * @param writeBufferKib the user's RocksDB write buffer in KiB, or 0 for the default.
     * @return the settings.
     */
    static GroupStoreSettings of(
            final int groups,
            final String backend,
            final boolean separateConcurrent,
            final int segmentKib,
            final int bufferKib,
            final int writeBufferKib) {
        final int segmentBytes = segmentKib > 0 ? segmentKib * KIB : share(512L * MIB, groups, MIB, 64 * MIB);
        final int bufferBytes = bufferKib > 0 ? bufferKib * KIB : share(64L * MIB, groups, 64 * KIB, 8 * MIB);
        final long writeBufferBytes =
                writeBufferKib > 0 ? (long) writeBufferKib * KIB : share(512L * MIB, groups, MIB, 128 * MIB);
        return new GroupStoreSettings(
                backend, segmentBytes, Math.min(bufferBytes, segmentBytes), separateConcurrent, writeBufferBytes);
    }

    /** A power of two near {@code totalBytes / groups}, at most it, within bounds. */
    static int share(final long totalBytes, final int groups, final int minBytes, final int maxBytes) {
        final long each = Math.max(1, totalBytes / groups);
        final long power = Long.highestOneBit(each);
        return (int) Math.max(minBytes, Math.min(maxBytes, power));
    }

    /**
     * Bytes as KiB or MiB.
     *
     * @param bytes the size.
     * @return the text, e.g. {@code 64 KiB}.
     */
    static String size(final long bytes) {
        return bytes >= MIB && bytes % MIB == 0
                ? String.format(Locale.ROOT, "%d MiB", bytes / MIB)
                : String.format(Locale.ROOT, "%d KiB", bytes / KIB);
    }
}
