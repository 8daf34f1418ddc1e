package io.walden.internal.io;

/**
 * Where a buffered write ends: at the end of the page its last frame ends in, so that the page cache
 * never holds a partly written page (docs/design/how-it-works.md, "Whole pages"). A pure function.
 *
 * <pre>
 *   frames: |====== write ====|              the write's last page is partly covered
 *   bytes:  |====== write ====000000000|     padded to the page; the next write rewrites the rest
 * </pre>
 */
final class PagePadding {
    // The smallest page of the page cache on Linux.
    static final int PAGE_BYTES = 4096;

    private PagePadding() {}

    /**
     * The end of the bytes to write for frames [start, end): the end of the page the frames end in,
     * within the limit, when this write is the first to touch that page; else end. A write that starts
     * inside a page and ends in it touches a page the write before padded or filled.
     */
    static long paddedEnd(final long start, final long end, final long limit) {
        final long lastPage = (end - 1) & -PAGE_BYTES;
        if (lastPage == (start & -PAGE_BYTES) && (start & (PAGE_BYTES - 1)) != 0) {
            return end;
        }
        final long pageEnd = lastPage + PAGE_BYTES;
        return pageEnd <= limit ? pageEnd : end;
    }
}
