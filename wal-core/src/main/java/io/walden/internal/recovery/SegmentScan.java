package io.walden.internal.recovery;

import io.walden.format.SegmentHeaderDescriptor;
import java.util.List;

/**
 * What {@link SegmentScanner} found in one segment: alternating <em>runs</em> of consecutive valid
 * frames and <em>gaps</em> where no frame validates, from the first frame offset to the capacity, with
 * the records counted where recovery may cut, so that nothing has to be read twice.
 *
 * <pre>
 *   4096                                                              capacity
 *   | run (valid frames) | gap (invalid) | run | gap ............ (zeros) |
 * </pre>
 */
public record SegmentScan(
        List<Run> runs, List<Gap> gaps, long provenDurableOffset, long provingFrameOffset, long markOffset) {
    public record Run(
            long startOffset,
            long endOffset,
            long records,
            long payloadBytes,
            long openBatchOffset,
            long openBatchRecords,
            long discardOffset,
            long markRecords) {
        /** Where the run's complete batches end: the open batch's start, or the run's end. */
        long completeEndOffset() {
            return openBatchOffset >= 0 ? openBatchOffset : endOffset;
        }
    }

    public record Gap(long startOffset, long endOffset, String problem, long nonZeroEndOffset) {
        boolean holdsData() {
            return nonZeroEndOffset > startOffset;
        }
    }

    boolean complete() {
        return gaps.isEmpty();
    }

    /** Whether the segment holds anything after its header: a frame or a non-zero byte. */
    boolean holdsData() {
        return !runs.isEmpty() || gaps.stream().anyMatch(Gap::holdsData);
    }

    /** The first run if it starts at the first frame offset, else null. */
    Run prefix() {
        return runs.isEmpty() || runs.get(0).startOffset() != SegmentHeaderDescriptor.HEADER_LENGTH
                ? null
                : runs.get(0);
    }

    /** Where the run from the first frame offset ends; the first frame offset if there is none. */
    long prefixEndOffset() {
        final Run prefix = prefix();
        return prefix == null ? SegmentHeaderDescriptor.HEADER_LENGTH : prefix.endOffset();
    }

    Gap gapAt(final long offset) {
        for (final Gap gap : gaps) {
            if (gap.startOffset() == offset) {
                return gap;
            }
        }
        throw new IllegalStateException("no gap at offset " + offset);
    }

    /**
     * The data frames at or after an offset where recovery may cut: a run's end or start, a gap, the
     * open batch of a run, or the mark. Counted by the scan, never read again.
     */
    long recordsFrom(final long offset) {
        long count = 0;
        for (final Run run : runs) {
            if (run.startOffset() >= offset) {
                count += run.records();
            } else if (run.endOffset() > offset) {
                if (offset == run.openBatchOffset()) {
                    count += run.openBatchRecords();
                } else if (offset == markOffset) {
                    count += run.markRecords();
                } else {
                    throw new IllegalStateException("no count of the records of the run at offset " + run.startOffset()
                            + " from offset " + offset);
                }
            }
        }
        return count;
    }

    /** The data frames in {@code [fromOffset, toOffset)}, where both are offsets {@link #recordsFrom} counts. */
    long recordsBetween(final long fromOffset, final long toOffset) {
        return recordsFrom(fromOffset) - recordsFrom(toOffset);
    }
}
