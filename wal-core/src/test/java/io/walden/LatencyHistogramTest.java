package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.internal.state.LatencyRecorder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void shouldGiveEveryBucketContiguousBoundsThatItsValuesMapBackTo() {
        assertEquals(0, LatencyHistogram.bucketLowerBoundNs(0));
        for (int i = 0; i < LatencyHistogram.BUCKET_COUNT; i++) {
            final long lower = LatencyHistogram.bucketLowerBoundNs(i);
            final long upper = LatencyHistogram.bucketUpperBoundNs(i);
            assertTrue(lower <= upper, "bucket " + i);
            assertEquals(i, LatencyHistogram.bucketIndex(lower), "lower bound of bucket " + i);
            assertEquals(i, LatencyHistogram.bucketIndex(upper), "upper bound of bucket " + i);
            if (i + 1 < LatencyHistogram.BUCKET_COUNT) {
                assertEquals(upper + 1, LatencyHistogram.bucketLowerBoundNs(i + 1), "gap after bucket " + i);
                // A value is reported as its bucket's upper bound: at most 12.5% above it.
                assertTrue(upper - lower <= Math.max(0, lower / LatencyHistogram.SUB_BUCKETS), "width of " + i);
            }
        }
        assertEquals(Long.MAX_VALUE, LatencyHistogram.bucketUpperBoundNs(LatencyHistogram.BUCKET_COUNT - 1));
    }

    @Test
    void shouldMapEveryValueIntoTheBucketWhoseBoundsHoldIt() {
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            final long value = random.nextLong(1L << random.nextInt(1, 63));
            final int index = LatencyHistogram.bucketIndex(value);
            assertTrue(value >= LatencyHistogram.bucketLowerBoundNs(index), value + " in " + index);
            assertTrue(value <= LatencyHistogram.bucketUpperBoundNs(index), value + " in " + index);
        }
        assertEquals(0, LatencyHistogram.bucketIndex(-5));
        assertEquals(LatencyHistogram.BUCKET_COUNT - 1, LatencyHistogram.bucketIndex(Long.MAX_VALUE));
    }

    @Test
    void shouldReportPercentilesWithinOneBucketOfTheExactOnes() {
        final SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 50; round++) {
            final int count = random.nextInt(1, 5_000);
            final long[] values = new long[count];
            final LatencyRecorder recorder = new LatencyRecorder();
            for (int i = 0; i < count; i++) {
                // Log-uniform, from nanoseconds to seconds, like sync latencies on different devices.
                values[i] = (long) Math.pow(10, random.nextDouble(0, 9.5));
                recorder.record(values[i]);
            }
            Arrays.sort(values);
            final LatencyHistogram histogram = recorder.snapshot();
            assertEquals(count, histogram.count());
            assertEquals(values[count - 1], histogram.maxNs());
            for (final double percentile : new double[] {1, 25, 50, 90, 99, 99.9, 100}) {
                final long exact = values[(int) Math.ceil(count * percentile / 100.0) - 1];
                final long reported = histogram.percentileNs(percentile);
                assertTrue(reported >= exact, percentile + ": " + reported + " < exact " + exact);
                assertTrue(
                        reported <= LatencyHistogram.bucketUpperBoundNs(LatencyHistogram.bucketIndex(exact)),
                        percentile + ": " + reported + " beyond the bucket of exact " + exact);
            }
        }
    }

    @Test
    void shouldReportNothingForAnEmptyHistogramAndRefuseNonsense() {
        assertEquals(0, LatencyHistogram.empty().count());
        assertEquals(0, LatencyHistogram.empty().percentileNs(99));
        assertEquals("no values", LatencyHistogram.empty().toString());
        assertThrows(
                IllegalArgumentException.class, () -> LatencyHistogram.empty().percentileNs(0));
        assertThrows(
                IllegalArgumentException.class, () -> LatencyHistogram.empty().percentileNs(100.5));
        assertThrows(IllegalArgumentException.class, () -> LatencyHistogram.of(new long[3], 0));
        assertThrows(IllegalArgumentException.class, () -> LatencyHistogram.bucketLowerBoundNs(-1));
        assertThrows(
                IllegalArgumentException.class,
                () -> LatencyHistogram.bucketUpperBoundNs(LatencyHistogram.BUCKET_COUNT));
        final long[] negative = new long[LatencyHistogram.BUCKET_COUNT];
        negative[3] = -1;
        assertThrows(IllegalArgumentException.class, () -> LatencyHistogram.of(negative, 0));
    }
}
