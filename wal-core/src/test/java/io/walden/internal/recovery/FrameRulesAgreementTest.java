package io.walden.internal.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalCorruptionException;
import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.read.DirectoryTracker;
import io.walden.internal.read.LogReader;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.state.LogPositions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Recovery's scanner, a reader of the live log and the read-only view take the same frames for valid:
 * a segment holds record A, then a frame X of each kind below, then record C, every frame sealed with
 * the right checksum unless the case says otherwise. Where recovery refuses X, a reader that meets it
 * reports damage at X (it used to skip unknown types and read past bad durable offsets and alignment
 * gaps) and the view shows nothing from X on; where recovery accepts X, both go past it to C.
 */
class FrameRulesAgreementTest {
    private static final int CAPACITY = 64 * 1024;
    private static final long LOG_ID = 0x5EED_0F_F00DL;
    private static final int PAYLOAD_BYTES = 40;
    private static final int A_OFFSET = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int X_OFFSET = A_OFFSET + FrameDescriptor.alignedLength(frameLength(PAYLOAD_BYTES));

    /** The frame between A and C, and what recovery says of it (null: valid). */
    enum Middle {
        PADDING(FrameDescriptor.TYPE_PADDING, 0, 24, 0, true, null),
        UNKNOWN_SKIPPABLE_TYPE((short) 0x8001, 0, 24, 0, true, null),
        UNKNOWN_TYPE((short) 0x42, 0, 24, 0, true, "unknown frame type 66"),
        FLAGS_ON_PADDING(FrameDescriptor.TYPE_PADDING, 1, 24, 0, true, "frame flags 0x1 not allowed"),
        UNKNOWN_FLAG(FrameDescriptor.TYPE_DATA, 2, 24, 0, true, "frame flags 0x2 not allowed"),
        DURABLE_OFFSET_AFTER_ITSELF(FrameDescriptor.TYPE_DATA, 0, 24, X_OFFSET + 8, true, "durable offset"),
        NON_ZERO_ALIGNMENT_GAP(FrameDescriptor.TYPE_DATA, 0, 21, 0, true, "in the alignment gap"),
        BAD_CHECKSUM(FrameDescriptor.TYPE_DATA, 0, 24, 0, false, "checksum mismatch");

        final short type;
        final short flags;
        final int payloadBytes;
        final int durableOffset;
        final boolean checksumRight;
        final String recoverySays;

        Middle(
                final short type,
                final int flags,
                final int payloadBytes,
                final int durableOffset,
                final boolean checksumRight,
                final String recoverySays) {
            this.type = type;
            this.flags = (short) flags;
            this.payloadBytes = payloadBytes;
            this.durableOffset = durableOffset;
            this.checksumRight = checksumRight;
            this.recoverySays = recoverySays;
        }
    }

    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(Middle.class)
    void recoveryReadersAndTheViewApplyTheSameFrameRules(final Middle middle) throws IOException {
        final long cEnd = writeSegment(middle);
        final long cOffset = X_OFFSET + FrameDescriptor.alignedLength(frameLength(middle.payloadBytes));
        final boolean valid = middle.recoverySays == null;

        final SegmentScan scan;
        try (SegmentScanner scanner = new SegmentScanner(LOG_ID, CAPACITY)) {
            scan = scanner.scan(SegmentNames.segmentPath(directory, 0), 0, CAPACITY, -1);
        }
        assertEquals(A_OFFSET, scan.runs().get(0).startOffset());
        final SegmentScan.Gap firstGap = scan.gaps().get(0);
        if (valid) {
            assertEquals(cEnd, scan.runs().get(0).endOffset(), middle + ": recovery reads through X to C");
            assertEquals(2, scan.runs().get(0).records());
        } else {
            assertEquals(X_OFFSET, firstGap.startOffset(), middle + ": recovery refuses X");
            assertTrue(firstGap.problem().contains(middle.recoverySays), firstGap.problem());
        }

        final List<Long> delivered = new ArrayList<>();
        try (LogReader reader = new LogReader(
                new LogReader.Log(directory, LOG_ID, CAPACITY, LogPositions.NO_RANGES, CodecTable.discovered()),
                new Visible(cEnd),
                PAYLOAD_BYTES,
                A_OFFSET,
                Durability.WRITTEN)) {
            if (valid) {
                assertEquals(2, reader.poll((buffer, offset, length, lsn) -> delivered.add(lsn), 10));
                assertEquals(List.of((long) A_OFFSET, cOffset), delivered, middle + ": a reader skips X");
            } else {
                final WalCorruptionException damage = assertThrows(
                        WalCorruptionException.class,
                        () -> reader.poll((buffer, offset, length, lsn) -> delivered.add(lsn), 10),
                        middle + ": a reader reports X, which recovery refuses, as damage");
                assertEquals(List.of((long) A_OFFSET), delivered, middle + ": nothing after X is delivered");
                assertEquals(X_OFFSET, damage.fileOffset());
                assertTrue(damage.getMessage().contains(middle.recoverySays), damage.getMessage());
            }
        }

        try (DirectoryTracker view = DirectoryTracker.open(directory)) {
            assertEquals(
                    valid ? cEnd : X_OFFSET,
                    view.visiblePosition(Durability.WRITTEN),
                    middle + ": the view shows frames up to the first one recovery refuses");
        }
    }

    /**
     * Writes segment 0: A, the middle frame X, C, zeros to the end.
     *
     * @return where C ends.
     */
    private long writeSegment(final Middle middle) throws IOException {
        final ByteBuffer segment = ByteBuffer.allocateDirect(CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
        SegmentHeaders.write(segment, CAPACITY, 0, LOG_ID);
        final FrameChecksum checksum = new FrameChecksum(LOG_ID);
        int offset = A_OFFSET;
        offset = putFrame(segment, checksum, offset, FrameDescriptor.TYPE_DATA, (short) 0, PAYLOAD_BYTES, 0, true);
        offset = putFrame(
                segment,
                checksum,
                offset,
                middle.type,
                middle.flags,
                middle.payloadBytes,
                middle.durableOffset,
                middle.checksumRight);
        if (middle == Middle.NON_ZERO_ALIGNMENT_GAP) {
            segment.put(offset - 1, (byte) 0x7F);
        }
        offset = putFrame(segment, checksum, offset, FrameDescriptor.TYPE_DATA, (short) 0, PAYLOAD_BYTES, 0, true);
        final byte[] bytes = new byte[CAPACITY];
        segment.clear().get(bytes);
        Files.write(SegmentNames.segmentPath(directory, 0), bytes);
        return offset;
    }

    /** Puts a frame at an offset of segment 0 and returns where the next one starts. */
    private static int putFrame(
            final ByteBuffer segment,
            final FrameChecksum checksum,
            final int offset,
            final short type,
            final short flags,
            final int payloadBytes,
            final int durableOffset,
            final boolean checksumRight) {
        final int length = frameLength(payloadBytes);
        segment.putInt(offset + FrameDescriptor.LENGTH_OFFSET, length);
        segment.putShort(offset + FrameDescriptor.TYPE_OFFSET, type);
        segment.putShort(offset + FrameDescriptor.FLAGS_OFFSET, flags);
        segment.putInt(offset + FrameDescriptor.DURABLE_OFFSET_OFFSET, durableOffset > 0 ? durableOffset : offset);
        for (int i = 0; type != FrameDescriptor.TYPE_PADDING && i < payloadBytes; i++) {
            segment.put(offset + FrameDescriptor.HEADER_LENGTH + i, (byte) (offset + i));
        }
        final int sealed = checksum.compute(segment, offset, length, offset);
        segment.putInt(offset + FrameDescriptor.CHECKSUM_OFFSET, checksumRight ? sealed : ~sealed);
        return offset + FrameDescriptor.alignedLength(length);
    }

    private static int frameLength(final int payloadBytes) {
        return FrameDescriptor.frameLength(payloadBytes);
    }

    /** The positions of a live log whose frames up to a position were written. */
    private static final class Visible implements LogPositions {
        private final long visible;

        Visible(final long visible) {
            this.visible = visible;
        }

        @Override
        public long startPosition() {
            return 0;
        }

        @Override
        public long visiblePosition(final Durability visibility) {
            return visible;
        }

        @Override
        public boolean awaitVisible(final long position, final Durability visibility, final long timeoutNs) {
            return position < visible;
        }
    }
}
