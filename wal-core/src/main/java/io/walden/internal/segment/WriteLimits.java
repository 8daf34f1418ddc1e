package io.walden.internal.segment;

import io.walden.format.SegmentHeaderDescriptor;

/**
 * The write limit's rules, apart from any I/O: where a session's limit starts, when the writer raises
 * it and to where, and where a log continues after a crash in a segment whose header records one. See
 * {@link SegmentHeaderDescriptor#WRITE_LIMIT_OFFSET}.
 *
 * <p>The limit bounds what a crash gives up: no position of the crashed segment past its last valid
 * frame can be given out again, but nothing at or past the limit was ever written, so the log continues
 * there instead of in the next segment:
 *
 * <pre>
 *   window          = capacity / 16, within [4 KiB, 64 KiB]
 *   initial limit   = start + window, rounded up to 4 KiB                        (at most the capacity)
 *   raise due       when a write would end past  limit - max(window, limit - start) / 2
 *   raised limit    = write end + max(window, 2 * (write end - start)), rounded up to 4 KiB
 *   after a crash   continue at the limit if the header records one, the tail's valid frames end at
 *                   or below it, no byte at or past it is non-zero, and it lies before the capacity;
 *                   else in the next segment
 * </pre>
 *
 * <p>So a crash gives up at most max(window, twice what the session wrote in the segment) plus 4 KiB,
 * never more than the rest of the segment; the limit is raised about log1.5(capacity / window) times per
 * segment and session.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class WriteLimits {
    public static final int ALIGNMENT = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;
    public static final int WINDOW_MAX_BYTES = 64 * 1024;
    /** Continue in the next segment: the crashed segment gives its rest up. */
    public static final long NEXT_SEGMENT = -1;

    private WriteLimits() {}

    /** The least distance between the last write and the limit, for a segment capacity. */
    public static int windowBytes(final int capacityBytes) {
        return Math.max(ALIGNMENT, Math.min(WINDOW_MAX_BYTES, capacityBytes / 16));
    }

    /** The limit a session starts with in its first segment. */
    public static int initialLimit(final long startOffset, final int capacityBytes) {
        return (int) Math.min(capacityBytes, alignUp(startOffset + windowBytes(capacityBytes)));
    }

    /** Whether a write ending at an offset calls for raising the limit now, ahead of the writes. */
    public static boolean raiseDue(
            final long startOffset, final long writeEndOffset, final int limitOffset, final int capacityBytes) {
        if (limitOffset >= capacityBytes) {
            return false;
        }
        final long slack = Math.max(windowBytes(capacityBytes), limitOffset - startOffset) / 2;
        return writeEndOffset > limitOffset - slack;
    }

    public static int raisedLimit(
            final long startOffset, final long writeEndOffset, final int limitOffset, final int capacityBytes) {
        final long window = Math.max(windowBytes(capacityBytes), 2 * (writeEndOffset - startOffset));
        return (int) Math.max(limitOffset, Math.min(capacityBytes, alignUp(writeEndOffset + window)));
    }

    /** Where a log continues after a crash whose tail segment's valid frames end at an offset. */
    public static long continueOffset(
            final long validEndOffset, final long nonZeroEndOffset, final int limitOffset, final int capacityBytes) {
        if (limitOffset == 0
                || limitOffset >= capacityBytes
                || validEndOffset > limitOffset
                || nonZeroEndOffset > limitOffset) {
            return NEXT_SEGMENT;
        }
        return limitOffset;
    }

    private static long alignUp(final long offset) {
        return (offset + ALIGNMENT - 1) & -(long) ALIGNMENT;
    }
}
