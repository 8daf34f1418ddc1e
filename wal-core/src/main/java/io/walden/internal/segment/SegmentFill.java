package io.walden.internal.segment;

/**
 * The sizes of a segment's zero-fill, by segment preparation and by recovery.
 *
 * <p><b>Threading:</b> constants only.
 */
public final class SegmentFill {
    /** How much of a segment preparation zero-fills between two syncs. */
    public static final int PREPARE_CHUNK_BYTES = 1024 * 1024;

    /**
     * Size of each zero-fill write, and of the zero block a log holds for it. Small on purpose: the
     * Linux page cache sizes the folio it creates for a write by the write's length (large folios,
     * ext4 on kernel 6.x), and every later small write into a large folio walks all of its blocks.
     * Used where the backend completes operations on its own thread (io_uring); where writes run on
     * the submitting thread (FileChannel), preparation writes {@code SegmentPreparer.INLINE_WRITE_BYTES}.
     */
    public static final int PREPARE_WRITE_BYTES = 16 * 1024;

    private SegmentFill() {}
}
