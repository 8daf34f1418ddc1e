package io.walden.internal.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SuffixTruncationDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The suffix-truncation record: what it writes reads back, and every kind of damage is refused. */
class SuffixTruncationRecordTest {
    private static final long CAPACITY = 64 * 1024;
    private static final SuffixTruncationRecord RECORD = new SuffixTruncationRecord(0x1234L, 70_000, 5 * CAPACITY);

    private static ByteBuffer written() {
        final ByteBuffer block = ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH);
        // Garbage first: writing must set every byte.
        for (int i = 0; i < block.capacity(); i++) {
            block.put(i, (byte) 0x5A);
        }
        RECORD.write(block);
        return block;
    }

    @Test
    void shouldReadBackWhatItWrites() {
        assertEquals(RECORD, SuffixTruncationRecord.read(written(), CAPACITY));
        assertEquals(
                SuffixTruncationDescriptor.MAGIC,
                written().order(ByteOrder.LITTLE_ENDIAN).getLong(SuffixTruncationDescriptor.MAGIC_OFFSET));
    }

    @Test
    void shouldRefuseEveryFlippedByte() {
        for (int offset = 0; offset < SuffixTruncationDescriptor.LENGTH; offset++) {
            final ByteBuffer block = written();
            block.put(offset, (byte) (block.get(offset) ^ 0x01));
            final int at = offset;
            final IllegalArgumentException refused = assertThrows(
                    IllegalArgumentException.class,
                    () -> SuffixTruncationRecord.read(block, CAPACITY),
                    "a flip at byte " + at + " was read as a valid record");
            assertTrue(refused.getMessage().startsWith("its ")
                    || refused.getMessage().startsWith("byte "));
        }
    }

    @Test
    void shouldRefuseAShortRecordAndImpossiblePositions() {
        assertThrows(
                IllegalArgumentException.class, () -> SuffixTruncationRecord.read(ByteBuffer.allocate(64), CAPACITY));
        for (final SuffixTruncationRecord impossible : new SuffixTruncationRecord[] {
            new SuffixTruncationRecord(1, 0, CAPACITY),
            new SuffixTruncationRecord(1, 70_000, 70_000),
            new SuffixTruncationRecord(1, 70_000, 5 * CAPACITY + 8),
            new SuffixTruncationRecord(1, 70_001, 5 * CAPACITY)
        }) {
            final ByteBuffer block = ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH);
            impossible.write(block);
            final IllegalArgumentException refused =
                    assertThrows(IllegalArgumentException.class, () -> SuffixTruncationRecord.read(block, CAPACITY));
            assertTrue(refused.getMessage().contains("impossible"), refused.getMessage());
        }
    }
}
