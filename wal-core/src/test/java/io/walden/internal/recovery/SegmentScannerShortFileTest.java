package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walden.internal.recovery.SegmentScan.Gap;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * In a file shorter than the capacity the scan is given, zeros after the last frame are zeros: the
 * last gap holds no data, as {@link SegmentScanner#dataEnd} says (the scan once took the file's end,
 * rounded up to 8, for the end of non-zero bytes).
 */
class SegmentScannerShortFileTest {
    private static final long LOG_ID = 1L;
    private static final int CAPACITY = 64 * 1024;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(ints = {8, 64, 68, 4096})
    void zerosAfterTheFramesOfAFileShorterThanTheCapacityHoldNoData(final int zerosAfter) throws IOException {
        final SegmentImage image = new SegmentImage(LOG_ID, CAPACITY, 0).data(10);
        final int end = image.offset();
        final Path path = image.writeTo(directory, end + zerosAfter);
        try (SegmentScanner scanner = new SegmentScanner(LOG_ID, 1024)) {
            final SegmentScan scan = scanner.scan(path, 0, CAPACITY, -1);

            assertEquals(end, scanner.dataEnd(path, end, CAPACITY), "the bytes after the frame are zero");
            assertEquals(List.of(new Gap(end, CAPACITY, "zero frame length (nothing written)", end)), scan.gaps());
        }
    }
}
