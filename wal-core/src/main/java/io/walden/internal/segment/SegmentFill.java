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
     * Size of each zero-fill write, and of the zero block a log holds for it: small, because Linux
     * sizes the page-cache folio by the write and later small writes into a large folio cost more
     * (docs/design/how-it-works.md, "Segments"). Where writes run on the submitting thread, preparation
     * writes {@code SegmentPreparer.INLINE_WRITE_BYTES}.
     */
    public static final int PREPARE_WRITE_BYTES = 16 * 1024;

    private SegmentFill() {}
}
