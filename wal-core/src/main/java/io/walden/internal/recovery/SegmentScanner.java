package io.walden.internal.recovery;

import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;

import io.walden.format.FrameDecoder;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.recovery.SegmentScan.Gap;
import io.walden.internal.recovery.SegmentScan.Run;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.SegmentWindow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a segment file from its first frame to its end through a {@link SegmentWindow} and reports
 * every valid frame in it as a {@link SegmentScan}. It decides nothing: {@link RecoveryRule} judges
 * what it found. Every frame is judged by {@link FrameDecoder}, with the rules readers apply too.
 *
 * <p>Where a frame does not validate (a zero length included), the scanner looks past it for the next
 * valid frame at every 8-byte aligned offset: a frame validates only at the position and in the log
 * it was written for, so a frame found past a gap was written there, and its durable offset proves
 * what was synced before it. A recycled segment's bytes at or past its write limit read as zeros.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the recovering thread.
 */
public final class SegmentScanner implements AutoCloseable {
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    private final FrameDecoder decoder;
    private final SegmentWindow window;
    // The bound file's readable end: its size, at most the capacity.
    private long fileSize;
    // Offset after the last non-zero byte of the gap findNextValid last searched.
    private long gapNonZeroEnd;

    public SegmentScanner(final long logId, final int maxFrameBytes) {
        this.decoder = new FrameDecoder(logId);
        this.window = new SegmentWindow(Math.max(WINDOW_BYTES, maxFrameBytes * 2));
    }

    /** Scans one segment from its first frame to its capacity, counting records from {@code markOffset} (or -1). */
    public SegmentScan scan(final Path path, final long basePosition, final long capacityBytes, final long markOffset)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            bind(file, capacityBytes);
            final RunBuilder run = new RunBuilder(markOffset);
            final List<Run> runs = new ArrayList<>();
            final List<Gap> gaps = new ArrayList<>();
            long provenDurableOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
            long provingFrameOffset = -1;
            long offset = SegmentHeaderDescriptor.HEADER_LENGTH;
            while (offset < capacityBytes) {
                String problem = validate(offset, basePosition, capacityBytes);
                if (problem == null && run.batchOpen()) {
                    problem = batchProblem();
                }
                if (problem == null) {
                    run.add(offset, decoder);
                    if (decoder.durableOffset() > provenDurableOffset) {
                        provenDurableOffset = decoder.durableOffset();
                        provingFrameOffset = offset;
                    }
                    offset += decoder.alignedLength();
                    continue;
                }
                run.endAt(offset, runs);
                final long gapStart = offset;
                offset = findNextValid(gapStart, basePosition, capacityBytes);
                gaps.add(new Gap(gapStart, offset, problem, gapNonZeroEnd));
            }
            run.endAt(offset, runs);
            return new SegmentScan(
                    List.copyOf(runs), List.copyOf(gaps), provenDurableOffset, provingFrameOffset, markOffset);
        } finally {
            window.unbind();
        }
    }

    private static final class RunBuilder {
        private final long markOffset;
        private long start = -1;
        private long records;
        private long payloadBytes;
        private long openBatch = -1;
        private long openBatchRecords;
        private long discard = -1;
        private long markRecords;

        RunBuilder(final long markOffset) {
            this.markOffset = markOffset;
        }

        boolean batchOpen() {
            return start >= 0 && openBatch >= 0;
        }

        void add(final long offset, final FrameDecoder frame) {
            if (start < 0) {
                start = offset;
                records = 0;
                payloadBytes = 0;
                openBatch = -1;
                openBatchRecords = 0;
                discard = -1;
                markRecords = 0;
            }
            if (frame.frameType() == TYPE_DATA) {
                records++;
                payloadBytes += frame.frameLength() - HEADER_LENGTH;
                if (markOffset >= 0 && offset >= markOffset) {
                    markRecords++;
                }
                if (!frame.batchContinues()) {
                    openBatch = -1;
                } else if (openBatch < 0) {
                    openBatch = offset;
                    openBatchRecords = 1;
                } else {
                    openBatchRecords++;
                }
                discard = -1;
            } else if (frame.frameType() == TYPE_DISCARD) {
                // A truncation kept a batch's records up to here: the batch ends.
                openBatch = -1;
                discard = discard < 0 ? offset : discard;
            }
        }

        void endAt(final long offset, final List<Run> runs) {
            if (start >= 0) {
                runs.add(new Run(
                        start,
                        offset,
                        records,
                        payloadBytes,
                        openBatch,
                        openBatch >= 0 ? openBatchRecords : 0,
                        discard,
                        markRecords));
                start = -1;
                openBatch = -1;
            }
        }
    }

    /**
     * Checks the valid frame just decoded, which follows a frame whose batch goes on: only the batch's
     * next record (a data frame) or a truncation's discard frame may come there. Null if it may.
     */
    private String batchProblem() {
        if (!decoder.hasHeader()) {
            return "a short padding frame where the batch of the frame before it goes on";
        }
        final short type = decoder.frameType();
        return type == TYPE_DATA || type == TYPE_DISCARD
                ? null
                : "a frame of type " + type + " where the batch of the frame before it goes on";
    }

    /** Whether a segment holds anything after its header: a prepared, never used segment is zeros. */
    boolean holdsData(final Path path, final long capacityBytes) throws IOException {
        return dataEnd(path, SegmentHeaderDescriptor.HEADER_LENGTH, capacityBytes)
                > SegmentHeaderDescriptor.HEADER_LENGTH;
    }

    /** Offset after the last non-zero byte of a range of a segment, or {@code fromOffset} if all are zero. */
    long dataEnd(final Path path, final long fromOffset, final long toOffset) throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            bind(file, toOffset);
            return nonZeroEnd(fromOffset, fileSize);
        } finally {
            window.unbind();
        }
    }

    private void bind(final FileChannel file, final long capacityBytes) throws IOException {
        fileSize = Math.min(file.size(), capacityBytes);
        window.bind(file, fileSize, staleFrom(file));
    }

    /**
     * Where a file's stale bytes begin: a recycled segment's write limit, else no offset (also for a
     * header that does not check out, left to the structural checks).
     */
    private static long staleFrom(final FileChannel file) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + Integer.BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
        if (!FileReads.readFully(file, header, 0)
                || header.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET) != SegmentHeaderDescriptor.MAGIC
                || !SegmentHeaderDecoder.checksumMatches(header)
                || !SegmentHeaderDecoder.recycled(header)) {
            return Long.MAX_VALUE;
        }
        final int limit = SegmentHeaderDecoder.writeLimitOffset(header);
        return limit >= SegmentHeaderDescriptor.HEADER_LENGTH ? limit : Long.MAX_VALUE;
    }

    /**
     * Finds the next valid frame after an invalid one at each 8-byte aligned offset (checksumming
     * plausible headers only), else the capacity; notes the gap's non-zero end in {@link
     * #gapNonZeroEnd}.
     */
    private long findNextValid(final long gapStart, final long basePosition, final long capacityBytes)
            throws IOException {
        long lastNonZeroEnd = gapStart;
        for (long offset = gapStart; offset < capacityBytes; offset += FrameDescriptor.FRAME_ALIGNMENT) {
            if (!window.ensure(offset, FrameDescriptor.FRAME_ALIGNMENT)) {
                // The file ends within the next 8 bytes: only non-zero bytes there move the end.
                final long tailEnd = nonZeroEnd(offset, fileSize);
                if (tailEnd > offset) {
                    lastNonZeroEnd = Math.max(lastNonZeroEnd, tailEnd);
                }
                break;
            }
            long word = window.buffer().getLong(window.index(offset));
            if (word == 0) {
                // Skip zeros within the window in a tight loop: most of a segment's tail is zeros.
                final long windowEnd = Math.min(window.filledEnd(), capacityBytes);
                final ByteBuffer held = window.buffer();
                while (word == 0 && offset + 2L * Long.BYTES <= windowEnd) {
                    offset += FrameDescriptor.FRAME_ALIGNMENT;
                    word = held.getLong(window.index(offset));
                }
                if (word == 0) {
                    continue;
                }
            }
            if (offset > gapStart
                    && plausibleHeader(offset, capacityBytes)
                    && validate(offset, basePosition, capacityBytes) == null) {
                gapNonZeroEnd = lastNonZeroEnd;
                return offset;
            }
            // Little-endian: the highest non-zero byte of the word is the last in the file.
            lastNonZeroEnd = offset + Long.BYTES - Long.numberOfLeadingZeros(word) / Byte.SIZE;
        }
        gapNonZeroEnd = lastNonZeroEnd;
        return capacityBytes;
    }

    private boolean plausibleHeader(final long offset, final long capacityBytes) throws IOException {
        return window.ensure(offset, HEADER_LENGTH)
                && decoder.plausibleHeader(
                        window.buffer(), window.index(offset), window.available(offset), offset, capacityBytes)
                && decoder.hasHeader();
    }

    /** Decodes the frame at an offset; null if it is valid, else what is wrong. */
    private String validate(final long offset, final long basePosition, final long capacityBytes) throws IOException {
        if (!window.ensure(offset, SHORT_PADDING_LENGTH)) {
            return "the file ends at " + fileSize + " before its capacity of " + capacityBytes;
        }
        FrameDecoder.Verdict verdict = decode(offset, basePosition, capacityBytes);
        while (verdict == FrameDecoder.Verdict.MORE_BYTES && window.ensure(offset, decoder.bytesNeeded())) {
            verdict = decode(offset, basePosition, capacityBytes);
        }
        if (verdict == FrameDecoder.Verdict.FRAME && decoder.frameType() == TYPE_DISCARD && decoder.hasHeader()) {
            verdict = decoder.judgeDiscardedBytes(nonZeroEnd(offset + HEADER_LENGTH, offset + decoder.alignedLength()));
        }
        return switch (verdict) {
            case FRAME -> null;
            case EMPTY -> "zero frame length (nothing written)";
            case MORE_BYTES -> "frame of " + decoder.frameLength() + " bytes runs past the end of the file";
            case INVALID -> decoder.describe();
        };
    }

    private FrameDecoder.Verdict decode(final long offset, final long basePosition, final long capacityBytes) {
        return decoder.decode(
                window.buffer(), window.index(offset), window.available(offset), basePosition, offset, capacityBytes);
    }

    private long nonZeroEnd(final long fromOffset, final long toOffset) throws IOException {
        long lastNonZeroEnd = fromOffset;
        final long end = Math.min(toOffset, fileSize);
        long offset = fromOffset;
        while (offset < end) {
            final int length = (int) Math.min(window.capacityBytes(), end - offset);
            if (!window.ensure(offset, length)) {
                break;
            }
            final ByteBuffer held = window.buffer();
            final int start = window.index(offset);
            int i = length;
            while (i >= Long.BYTES && held.getLong(start + i - Long.BYTES) == 0) {
                i -= Long.BYTES;
            }
            while (i > 0 && held.get(start + i - 1) == 0) {
                i--;
            }
            if (i > 0) {
                lastNonZeroEnd = offset + i;
            }
            offset += length;
        }
        return lastNonZeroEnd;
    }

    /** The end of the data frame starting at an offset inside a run, or -1 if none starts there. */
    public long dataFrameEnd(final Path path, final Run run, final long offset) throws IOException {
        if (offset < run.startOffset() || offset >= run.endOffset()) {
            return -1;
        }
        final long[] end = {-1};
        forEachFrame(path, run.startOffset(), offset + 1, (frameOffset, frameLength, type, durableOffset) -> {
            if (frameOffset != offset) {
                return true;
            }
            if (type == TYPE_DATA) {
                end[0] = frameOffset + FrameDescriptor.alignedLength(frameLength);
            }
            return false;
        });
        return end[0];
    }

    /** Told each frame {@link #forEachFrame} walks; returns whether to go on. */
    @FunctionalInterface
    interface FrameVisitor {
        boolean visit(long offset, int frameLength, int type, long durableOffset) throws IOException;
    }

    /**
     * Walks the frames of a run from its start while frames start before {@code toOffset}, reading only
     * their headers (a scan validated them).
     */
    void forEachFrame(final Path path, final long runStartOffset, final long toOffset, final FrameVisitor visitor)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            fileSize = file.size();
            window.bind(file, fileSize, staleFrom(file));
            long offset = runStartOffset;
            while (offset < toOffset && ensureHeader(offset) && plausibleAt(offset)) {
                final boolean header = decoder.hasHeader();
                if (!visitor.visit(
                        offset,
                        decoder.frameLength(),
                        header ? decoder.frameType() : -1,
                        header ? decoder.durableOffset() : -1)) {
                    return;
                }
                offset += decoder.alignedLength();
            }
        } finally {
            window.unbind();
        }
    }

    private boolean plausibleAt(final long offset) {
        return decoder.plausibleHeader(
                window.buffer(), window.index(offset), window.available(offset), offset, fileSize);
    }

    private boolean ensureHeader(final long offset) throws IOException {
        return window.ensure(offset, (int) Math.min(HEADER_LENGTH, Math.max(SHORT_PADDING_LENGTH, fileSize - offset)));
    }

    /** Receives the bytes of a range in pieces, each valid only during the call. */
    @FunctionalInterface
    interface RangeSink {
        void accept(ByteBuffer bytes) throws IOException;
    }

    void copyRange(final Path path, final long fromOffset, final long toOffset, final RangeSink sink)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            bind(file, toOffset);
            long offset = fromOffset;
            while (offset < toOffset) {
                final int length = (int) Math.min(window.capacityBytes(), toOffset - offset);
                if (!window.ensure(offset, length)) {
                    throw new IOException(path + " ends before offset " + toOffset);
                }
                final ByteBuffer slice = window.buffer().duplicate();
                slice.clear().position(window.index(offset)).limit(window.index(offset) + length);
                sink.accept(slice);
                offset += length;
            }
        } finally {
            window.unbind();
        }
    }

    @Override
    public void close() {
        window.close();
    }
}
