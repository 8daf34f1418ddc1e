package io.walden;

import java.util.Arrays;

/**
 * A snapshot of a latency distribution in fixed log-linear buckets: each power of two from 8 ns to
 * 2<sup>40</sup> ns (about 18 minutes) is split into {@value #SUB_BUCKETS} equal buckets, so a
 * reported value is within 12.5% above the true one; values from 0 to 7 ns have a bucket each, and
 * anything longer than the last bucket is counted in it.
 *
 * <pre>
 *   value v (ns)            bucket index
 *   0 .. 7                  v
 *   2^m .. 2^(m+1)-1, m>=3  (m - 2) * 8 + ((v >> (m - 3)) &amp; 7)
 * </pre>
 *
 * <p>A fixed {@value #BUCKET_COUNT}-slot array; nothing is allocated when a value is recorded.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class LatencyHistogram {
    /** Buckets per power of two. */
    public static final int SUB_BUCKETS = 8;

    private static final int SUB_BUCKET_BITS = 3;

    /** Largest power of two with buckets of its own; longer values count in the last bucket. */
    private static final int MAX_EXPONENT = 40;

    /** Number of buckets. */
    public static final int BUCKET_COUNT = (MAX_EXPONENT - SUB_BUCKET_BITS + 2) * SUB_BUCKETS;

    private static final LatencyHistogram EMPTY = new LatencyHistogram(new long[BUCKET_COUNT], 0, 0);

    private final long[] counts;
    private final long totalCount;
    private final long maxNs;

    private LatencyHistogram(final long[] counts, final long totalCount, final long maxNs) {
        this.counts = counts;
        this.totalCount = totalCount;
        this.maxNs = maxNs;
    }

    /**
     * @param counts one count per bucket, {@link #BUCKET_COUNT} of them; copied.
     * @param maxNs the largest value recorded, or 0.
     * @return the histogram of those counts.
     */
    public static LatencyHistogram of(final long[] counts, final long maxNs) {
        if (counts.length != BUCKET_COUNT) {
            throw new IllegalArgumentException(
                    "a latency histogram has " + BUCKET_COUNT + " buckets, not " + counts.length);
        }
        long total = 0;
        for (final long count : counts) {
            if (count < 0) {
                throw new IllegalArgumentException("negative bucket count " + count);
            }
            total += count;
        }
        return new LatencyHistogram(counts.clone(), total, maxNs);
    }

    /** @return a histogram with nothing recorded. */
    public static LatencyHistogram empty() {
        return EMPTY;
    }

    /**
     * @param valueNs the value; negative values count as zero.
     * @return the index of the bucket it counts in, from 0 to {@link #BUCKET_COUNT} - 1.
     */
    public static int bucketIndex(final long valueNs) {
        if (valueNs < SUB_BUCKETS) {
            return (int) Math.max(0, valueNs);
        }
        final int exponent = 63 - Long.numberOfLeadingZeros(valueNs);
        if (exponent > MAX_EXPONENT) {
            return BUCKET_COUNT - 1;
        }
        final int subBucket = (int) (valueNs >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
        return (exponent - SUB_BUCKET_BITS + 1) * SUB_BUCKETS + subBucket;
    }

    /**
     * @param index the bucket.
     * @return the smallest value it counts, in nanoseconds.
     */
    public static long bucketLowerBoundNs(final int index) {
        checkIndex(index);
        if (index < SUB_BUCKETS) {
            return index;
        }
        final int exponent = index / SUB_BUCKETS + SUB_BUCKET_BITS - 1;
        final long subBucket = index % SUB_BUCKETS;
        return (SUB_BUCKETS + subBucket) << (exponent - SUB_BUCKET_BITS);
    }

    /**
     * @param index the bucket.
     * @return the largest value it counts, in nanoseconds (the last bucket counts everything longer).
     */
    public static long bucketUpperBoundNs(final int index) {
        checkIndex(index);
        return index == BUCKET_COUNT - 1 ? Long.MAX_VALUE : bucketLowerBoundNs(index + 1) - 1;
    }

    private static void checkIndex(final int index) {
        if (index < 0 || index >= BUCKET_COUNT) {
            throw new IllegalArgumentException("bucket index " + index + " outside [0, " + BUCKET_COUNT + ")");
        }
    }

    /** @return values recorded. */
    public long count() {
        return totalCount;
    }

    /**
     * @param index the bucket.
     * @return the values recorded in it.
     */
    public long count(final int index) {
        checkIndex(index);
        return counts[index];
    }

    /** @return the largest value recorded, in nanoseconds, or 0 if none. */
    public long maxNs() {
        return maxNs;
    }

    /**
     * The value below or at which a share of the recorded values lie: the upper bound of the bucket
     * holding that rank, but never above the largest value recorded.
     *
     * @param percentile from 0 (exclusive) to 100 (inclusive), e.g. 99.9.
     * @return the value in nanoseconds, or 0 if nothing was recorded.
     */
    public long percentileNs(final double percentile) {
        if (!(percentile > 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile " + percentile + " outside (0, 100]");
        }
        if (totalCount == 0) {
            return 0;
        }
        final long rank = Math.max(1, (long) Math.ceil(totalCount * percentile / 100.0));
        long seen = 0;
        for (int i = 0; i < BUCKET_COUNT; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(bucketUpperBoundNs(i), maxNs);
            }
        }
        throw new IllegalStateException("counts sum to " + seen + ", below " + totalCount);
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof LatencyHistogram that
                && totalCount == that.totalCount
                && maxNs == that.maxNs
                && Arrays.equals(counts, that.counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts) * 31 + Long.hashCode(maxNs);
    }

    @Override
    public String toString() {
        return totalCount == 0
                ? "no values"
                : String.format(
                        "%d values: p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us",
                        totalCount,
                        percentileNs(50) / 1e3,
                        percentileNs(90) / 1e3,
                        percentileNs(99) / 1e3,
                        percentileNs(99.9) / 1e3,
                        maxNs / 1e3);
    }
}
