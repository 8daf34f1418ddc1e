package io.walden.tools;

import io.walden.LogInspection;

/**
 * How many segment files a log directory holds, and what they are: the ones in use, from the oldest
 * to the one the log ends in, which {@link io.walden.Wal#inspect} reports; and the ones prepared ahead
 * after it (the writer prepares the next segment before it needs it, zero-filled, holding no record
 * yet). {@code stat} and {@code verify} both print it, so that they count the same files the same way.
 *
 * @param files the {@code .wal} files listed.
 * @param inUse the segments from the oldest to the one the log ends in.
 * @param prepared the files after that one: prepared ahead, empty.
 */
record SegmentCount(int files, int inUse, int prepared) {
    /**
     * Counts the segments of a log.
     *
     * @param log the directory as listed.
     * @param inspection what {@code Wal.inspect} found (for corruption it counts every listed file).
     * @return the count.
     */
    static SegmentCount of(final LogDirectory log, final LogInspection inspection) {
        final int files = log.segments().size();
        final int inUse = inspection.report().segments();
        if (inspection.verdict() == LogInspection.Verdict.CORRUPTION || inUse >= files) {
            return new SegmentCount(files, Math.max(files, inUse), 0);
        }
        return new SegmentCount(files, inUse, files - inUse);
    }

    /**
     * Whether a segment is one of those prepared ahead.
     *
     * @param index its index in the listing, oldest first.
     * @return whether it comes after the segment the log ends in.
     */
    boolean isPrepared(final int index) {
        return index >= inUse;
    }

    /** @return e.g. {@code "2 segment file(s): 1 in use, 1 prepared ahead (empty)"}. */
    String text() {
        return files + " segment file(s): " + inUse + " in use"
                + (prepared == 0 ? "" : ", " + prepared + " prepared ahead (empty)");
    }
}
