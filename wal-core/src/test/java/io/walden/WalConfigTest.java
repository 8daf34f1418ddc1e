package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The configuration's derived defaults: the buffer and the largest record follow the segment capacity
 * down unless set, and an invalid value is refused naming the setting the user set.
 */
class WalConfigTest {
    private static final Path DIRECTORY = Path.of("/logs/a");
    private static final int MIB = 1024 * 1024;

    @Test
    void defaultsAreTheDocumentedOnes() {
        final WalConfig config = WalConfig.builder(DIRECTORY).build();
        assertEquals(WalConfig.SEGMENT_CAPACITY_BYTES_DEFAULT, config.segmentCapacityBytes());
        assertEquals(WalConfig.BUFFER_CAPACITY_BYTES_DEFAULT, config.bufferCapacityBytes());
        assertEquals(WalConfig.MAX_RECORD_BYTES_DEFAULT, config.maxRecordBytes());
    }

    @Test
    void aSmallSegmentCapacityAloneIsEnough() {
        final WalConfig config =
                WalConfig.builder(DIRECTORY).segmentCapacityBytes(MIB).build();
        assertEquals(MIB, config.bufferCapacityBytes(), "the buffer follows the segment capacity down");
        // A frame must fit in half the buffer less a segment header.
        assertEquals((MIB - 4096) / 2 - 16, config.maxRecordBytes(), "the largest record follows the buffer down");

        final WalConfig smallest = WalConfig.builder(DIRECTORY)
                .segmentCapacityBytes(WalConfig.SEGMENT_CAPACITY_BYTES_MIN)
                .build();
        assertEquals(WalConfig.SEGMENT_CAPACITY_BYTES_MIN, smallest.bufferCapacityBytes());
    }

    @Test
    void aSetBufferDerivesTheLargestRecordOnly() {
        final WalConfig config =
                WalConfig.builder(DIRECTORY).bufferCapacityBytes(256 * 1024).build();
        assertEquals(WalConfig.SEGMENT_CAPACITY_BYTES_DEFAULT, config.segmentCapacityBytes());
        assertEquals((256 * 1024 - 4096) / 2 - 16, config.maxRecordBytes());
        // A set largest record below the limit is kept as set.
        assertEquals(
                1000,
                WalConfig.builder(DIRECTORY)
                        .segmentCapacityBytes(MIB)
                        .maxRecordBytes(1000)
                        .build()
                        .maxRecordBytes());
    }

    @Test
    void aSetValueThatDoesNotFitIsRefusedNamingIt() {
        final WalException buffer = assertThrows(WalException.class, () -> WalConfig.builder(DIRECTORY)
                .segmentCapacityBytes(MIB)
                .bufferCapacityBytes(8 * MIB)
                .build());
        assertEquals(WalException.ErrorCode.CONFIG, buffer.errorCode());
        assertTrue(buffer.getMessage().contains("bufferCapacityBytes"), buffer.getMessage());

        final WalException record = assertThrows(WalException.class, () -> WalConfig.builder(DIRECTORY)
                .segmentCapacityBytes(MIB)
                .maxRecordBytes(MIB)
                .build());
        assertTrue(record.getMessage().contains("maxRecordBytes"), record.getMessage());
        assertTrue(
                record.getMessage().contains("derived from segmentCapacityBytes=" + MIB),
                "says where the buffer's size came from: " + record.getMessage());
    }

    @Test
    void anExistingLogsCapacityWinsAndWhatWasNotSetFollowsIt() {
        final WalConfig defaults = WalConfig.builder(DIRECTORY).build();
        assertSame(defaults, defaults.forSegmentCapacity(WalConfig.SEGMENT_CAPACITY_BYTES_DEFAULT));
        final WalConfig derived = defaults.forSegmentCapacity(MIB);
        assertEquals(MIB, derived.segmentCapacityBytes());
        assertEquals(MIB, derived.bufferCapacityBytes());
        assertEquals((MIB - 4096) / 2 - 16, derived.maxRecordBytes());

        final WalConfig set =
                WalConfig.builder(DIRECTORY).maxRecordBytes(1000).build().forSegmentCapacity(MIB);
        assertEquals(1000, set.maxRecordBytes(), "a set value is kept");
        final WalConfig tooLarge =
                WalConfig.builder(DIRECTORY).maxRecordBytes(MIB).build();
        assertSame(tooLarge, tooLarge.forSegmentCapacity(MIB), "left for the open to refuse, naming it");
    }
}
