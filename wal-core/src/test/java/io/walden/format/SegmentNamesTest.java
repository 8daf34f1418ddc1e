package io.walden.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Segment file names round-trip and sort in log order; anything else is not a segment name. */
class SegmentNamesTest {
    @Test
    void shouldNameSegmentsByBasePositionAsTwentyDigits() {
        assertEquals("00000000000000000000.wal", SegmentNames.segmentName(0));
        assertEquals("00000000000067108864.wal", SegmentNames.segmentName(64L * 1024 * 1024));
        assertEquals("00000000000067108864.wal.tmp", SegmentNames.temporaryName(64L * 1024 * 1024));
        assertEquals(Long.MAX_VALUE, SegmentNames.parseSegmentName(SegmentNames.segmentName(Long.MAX_VALUE)));
    }

    @Test
    void shouldRefuseNamesThatAreNotSegments() {
        assertEquals(-1, SegmentNames.parseSegmentName("walden.lock"));
        assertEquals(-1, SegmentNames.parseSegmentName("00000000000000000000.wal.tmp"));
        assertEquals(-1, SegmentNames.parseSegmentName("0000000000000000000x.wal"));
        assertEquals(-1, SegmentNames.parseSegmentName("0000000000000000000.wal"));
        assertEquals(-1, SegmentNames.parseSegmentName("99999999999999999999.wal"));
    }
}
