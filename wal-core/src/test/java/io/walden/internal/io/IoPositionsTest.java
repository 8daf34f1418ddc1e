package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walden.format.SegmentHeaderDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The positions of the I/O path move only in order: released &lt;= written, durable &lt;= written &lt;=
 * submitted, forward, within the active segment; every mover refuses a move that breaks it (the
 * checks are on in tests: {@code walden.checks} is not set to false).
 */
class IoPositionsTest {
    private static final long SEGMENT = 64 * 1024;
    private static final long FIRST = SegmentHeaderDescriptor.HEADER_LENGTH;

    private final IoPositions positions = new IoPositions(SEGMENT, 0, 7, FIRST, FIRST);

    @Test
    void movesThroughAWriteASyncAndARoll() {
        positions.submitted(8192);
        positions.written(8192, 3, 8192);
        positions.durable(8192, 3, 42);
        assertEquals(8192, positions.durable());
        assertEquals(42, positions.durableSinceNs());
        positions.submitted(SEGMENT);
        positions.written(SEGMENT, 9, SEGMENT);
        positions.durableAtWritten(43);
        positions.rolled(SEGMENT, 8);
        assertEquals(SEGMENT, positions.activeBase());
        assertEquals(8, positions.activeHandle());
        assertEquals(SEGMENT + FIRST, positions.written());
        assertEquals(SEGMENT + FIRST, positions.durable());
        assertEquals(2 * SEGMENT, positions.activeEnd());
    }

    @Test
    void refusesADurablePositionPastTheWrittenOne() {
        positions.submitted(8192);
        positions.written(8192, 3, 8192);
        assertThrows(AssertionError.class, () -> positions.durable(8200, 4, 1));
    }

    @Test
    void refusesAWrittenPositionPastTheSubmittedOne() {
        positions.submitted(8192);
        assertThrows(AssertionError.class, () -> positions.written(8200, 3, 8192));
    }

    @Test
    void refusesAReleasedPositionPastTheWrittenOne() {
        positions.submitted(8192);
        assertThrows(AssertionError.class, () -> positions.written(8000, 2, 8192));
    }

    @Test
    void refusesPositionsThatMoveBack() {
        positions.submitted(8192);
        positions.written(8192, 3, 8192);
        positions.durable(8192, 3, 1);
        assertThrows(AssertionError.class, () -> positions.submitted(8192));
        assertThrows(AssertionError.class, () -> positions.written(4200, 3, 4096));
        assertThrows(AssertionError.class, () -> positions.durable(4200, 1, 2));
    }

    @Test
    void refusesASubmissionPastTheActiveSegment() {
        assertThrows(AssertionError.class, () -> positions.submitted(SEGMENT + 8));
    }

    @Test
    void refusesARollBeforeTheSegmentIsDurableOrToAnotherThanTheNext() {
        positions.submitted(SEGMENT);
        positions.written(SEGMENT, 9, SEGMENT);
        assertThrows(AssertionError.class, () -> positions.rolled(SEGMENT, 8), "not durable yet");
        positions.durableAtWritten(1);
        assertThrows(AssertionError.class, () -> positions.rolled(2 * SEGMENT, 8), "not the next segment");
    }
}
