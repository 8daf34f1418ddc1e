package io.walden.internal.io;

import static io.walden.internal.io.PagePadding.PAGE_BYTES;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The padded end over every place a write can end in a page and every place the limit can be. */
class PagePaddingTest {
    @Test
    void shouldPadToThePageEndOnlyWithinTheLimit() {
        final long base = 16L * PAGE_BYTES;
        for (int endInPage = 0; endInPage < PAGE_BYTES; endInPage += 8) {
            final long end = base + PAGE_BYTES + endInPage;
            // Starts in an earlier page: the page the frames end in is touched first by this write.
            final long start = base + 100;
            final long pageEnd = endInPage == 0 ? end : base + 2L * PAGE_BYTES;
            for (long limit = end; limit <= base + 3L * PAGE_BYTES; limit += 8) {
                final long expected = pageEnd <= limit ? pageEnd : end;
                assertEquals(expected, PagePadding.paddedEnd(start, end, limit), "end " + end + ", limit " + limit);
            }
        }
    }

    @Test
    void shouldNotPadAWriteWithinThePageTheWriteBeforeTouched() {
        final long base = 16L * PAGE_BYTES;
        final long limit = base + 4L * PAGE_BYTES;
        for (int startInPage = 8; startInPage < PAGE_BYTES; startInPage += 8) {
            for (int endInPage = startInPage + 8; endInPage <= PAGE_BYTES; endInPage += 8) {
                assertEquals(
                        base + endInPage,
                        PagePadding.paddedEnd(base + startInPage, base + endInPage, limit),
                        "[" + startInPage + ", " + endInPage + ")");
            }
        }
    }

    @Test
    void shouldPadAWriteFromAPageStartWithinThatPage() {
        final long base = 16L * PAGE_BYTES;
        assertEquals(base + PAGE_BYTES, PagePadding.paddedEnd(base, base + 100, base + 4L * PAGE_BYTES));
        assertEquals(base + PAGE_BYTES, PagePadding.paddedEnd(base, base + PAGE_BYTES, base + 4L * PAGE_BYTES));
    }
}
