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
     * ext4 on kernel 6.x), and every later small write into a large folio walks all of its blocks. On
     * the development machine (kernel 6.18, ext4) a 144-byte pwrite into a region zero-filled with 1
     * MiB writes took 1.96 us, against 0.67 us after 4 to 16 KiB writes and 0.73 us at the end of a
     * growing file. This is the size with a backend whose operations complete on its own thread
     * (io_uring); where writes run on the thread that submits them (FileChannel), segment preparation
     * writes 4 KiB at a time instead ({@code SegmentPreparer.INLINE_WRITE_BYTES}, for the reason
     * given there).
     */
    public static final int PREPARE_WRITE_BYTES = 16 * 1024;

    private SegmentFill() {}
}
