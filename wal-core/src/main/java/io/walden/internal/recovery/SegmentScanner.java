package io.walden.internal.recovery;

import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;

import io.walden.format.FrameDecoder;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.segment.FileReads;
import io.walden.internal.state.AlignedBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a segment file from its first frame to its end and finds every valid frame in it, through a
 * window of direct memory filled with large positional reads. It decides nothing: it reports what is
 * there, and {@link RecoveryRule} judges it. Every frame is judged by {@link FrameDecoder}, with the
 * format's rules that readers apply too.
 *
 * <pre>
 *   4096                                                              capacity
 *   | run (valid frames) | gap (invalid) | run | gap ............ (zeros) |
 * </pre>
 *
 * <p>The segment is read as alternating <em>runs</em> of consecutive valid frames and <em>gaps</em>:
 * where a frame does not validate (including a zero length), the scanner looks past it for the next
 * valid frame at every 8-byte aligned offset. A frame validates only at the position and in the log
 * it was written for, so a frame found past a gap is proof that it was written there, and its durable
 * offset proves what was synced before it. The highest durable offset of any valid frame in the
 * segment is reported with the frame that carries it.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the recovering thread.
 */
public final class SegmentScanner implements AutoCloseable {
    /**
     * Consecutive valid frames.
     *
     * @param startOffset offset of the first frame.
     * @param endOffset offset after the last frame's aligned end.
     * @param records data frames.
     * @param payloadBytes their payload bytes.
     * @param openBatchOffset where the batch that the run's last data frame leaves open starts (its
     *     frames run to the run's end and its last frame is missing), or -1 if no batch is open there.
     * @param discardOffset where the first discard frame after the run's last data frame starts (a
     *     range an earlier recovery or truncation gave up), or -1 if none follows it.
     */
    public record Run(
            long startOffset,
            long endOffset,
            long records,
            long payloadBytes,
            long openBatchOffset,
            long discardOffset) {
        /** @return where the run's complete batches end: the open batch's start, or the run's end. */
        long completeEndOffset() {
            return openBatchOffset >= 0 ? openBatchOffset : endOffset;
        }
    }

    /**
     * Bytes where no valid frame starts, up to the next run or the segment's end.
     *
     * @param startOffset where a frame was expected and none validated.
     * @param endOffset the next run's start, or the segment's capacity.
     * @param problem what is wrong at {@code startOffset}.
     * @param nonZeroEndOffset offset after the last non-zero byte of the gap; {@code startOffset} if the
     *     gap is all zeros.
     */
    record Gap(long startOffset, long endOffset, String problem, long nonZeroEndOffset) {
        /** @return whether any byte of the gap is non-zero. */
        boolean holdsData() {
            return nonZeroEndOffset > startOffset;
        }
    }

    /**
     * What a scan found.
     *
     * @param runs the runs of valid frames, in offset order.
     * @param gaps the gaps, in offset order; runs and gaps alternate and cover the segment from its
     *     first frame offset to its capacity.
     * @param provenDurableOffset the highest durable offset any valid frame carries; the first frame
     *     offset if none proves more.
     * @param provingFrameOffset the offset of the frame that carries it, or -1.
     */
    public record Result(List<Run> runs, List<Gap> gaps, long provenDurableOffset, long provingFrameOffset) {
        /** @return whether valid frames fill the segment to its capacity. */
        boolean complete() {
            return gaps.isEmpty();
        }

        /** @return whether the segment holds anything after its header: a frame or a non-zero byte. */
        boolean holdsData() {
            return !runs.isEmpty() || gaps.stream().anyMatch(Gap::holdsData);
        }

        /** @return the offset where the first run starting at the first frame offset ends. */
        long prefixEndOffset() {
            return runs.isEmpty() || runs.get(0).startOffset() != SegmentHeaderDescriptor.HEADER_LENGTH
                    ? SegmentHeaderDescriptor.HEADER_LENGTH
                    : runs.get(0).endOffset();
        }

        /**
         * @return where the batch left open at the end of the first run (from the first frame offset)
         *     starts, or -1 if that run ends after a complete batch or there is no such run.
         */
        long prefixOpenBatchOffset() {
            return runs.isEmpty() || runs.get(0).startOffset() != SegmentHeaderDescriptor.HEADER_LENGTH
                    ? -1
                    : runs.get(0).openBatchOffset();
        }
    }

    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    private final FrameDecoder decoder;
    private AlignedBuffer windowMemory;
    private ByteBuffer window;
    private FileChannel channel;
    private long windowFileOffset;
    private int windowLength;
    private long fileSize;
    // Where the open file's stale bytes begin (a recycled segment's write limit), else Long.MAX_VALUE.
    private long staleFromOffset = Long.MAX_VALUE;

    public SegmentScanner(final long logId, final int maxFrameBytes) {
        this.decoder = new FrameDecoder(logId);
        this.windowMemory = new AlignedBuffer(Math.max(WINDOW_BYTES, maxFrameBytes * 2));
        this.window = windowMemory.buffer();
    }

    /**
     * Scans one segment from its first frame to its capacity.
     *
     * @param path the segment file.
     * @param basePosition its base position.
     * @param capacityBytes its capacity.
     * @return what it holds.
     * @throws IOException if the file cannot be read.
     */
    public Result scan(final Path path, final long basePosition, final long capacityBytes) throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            open(file, capacityBytes);
            final List<Run> runs = new ArrayList<>();
            final List<Gap> gaps = new ArrayList<>();
            long provenDurableOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
            long provingFrameOffset = -1;
            long offset = SegmentHeaderDescriptor.HEADER_LENGTH;
            long runStart = -1;
            long records = 0;
            long payloadBytes = 0;
            long openBatch = -1;
            long discard = -1;
            while (offset < capacityBytes) {
                String problem = validate(offset, basePosition, capacityBytes);
                if (problem == null && runStart >= 0 && openBatch >= 0) {
                    problem = batchProblem();
                }
                if (problem == null) {
                    if (runStart < 0) {
                        runStart = offset;
                        records = 0;
                        payloadBytes = 0;
                        openBatch = -1;
                        discard = -1;
                    }
                    if (decoder.frameType() == TYPE_DATA) {
                        records++;
                        payloadBytes += decoder.frameLength() - HEADER_LENGTH;
                        openBatch = decoder.batchContinues() ? (openBatch < 0 ? offset : openBatch) : -1;
                        discard = -1;
                    } else if (decoder.frameType() == TYPE_DISCARD) {
                        // A truncation kept a batch's records up to here: the batch ends.
                        openBatch = -1;
                        discard = discard < 0 ? offset : discard;
                    }
                    if (decoder.durableOffset() > provenDurableOffset) {
                        provenDurableOffset = decoder.durableOffset();
                        provingFrameOffset = offset;
                    }
                    offset += decoder.alignedLength();
                    continue;
                }
                if (runStart >= 0) {
                    runs.add(new Run(runStart, offset, records, payloadBytes, openBatch, discard));
                    runStart = -1;
                    openBatch = -1;
                    discard = -1;
                }
                final long gapStart = offset;
                offset = findNextValid(gapStart, basePosition, capacityBytes);
                gaps.add(new Gap(gapStart, offset, problem, gapNonZeroEnd));
            }
            if (runStart >= 0) {
                runs.add(new Run(runStart, offset, records, payloadBytes, openBatch, discard));
            }
            return new Result(List.copyOf(runs), List.copyOf(gaps), provenDurableOffset, provingFrameOffset);
        } finally {
            channel = null;
        }
    }

    /**
     * Checks the valid frame just decoded, which follows a frame whose batch goes on: only the batch's
     * next record (a data frame) or a truncation's discard frame may come there.
     *
     * @return null if the frame may follow, else what is wrong.
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

    /**
     * Whether a segment holds anything after its header: a prepared, never used segment is zeros.
     *
     * @param path the segment file.
     * @param capacityBytes its capacity.
     * @return true if any byte after the header is non-zero.
     * @throws IOException if the file cannot be read.
     */
    boolean holdsData(final Path path, final long capacityBytes) throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            open(file, capacityBytes);
            return nonZeroEnd(SegmentHeaderDescriptor.HEADER_LENGTH, fileSize) > SegmentHeaderDescriptor.HEADER_LENGTH;
        } finally {
            channel = null;
        }
    }

    /**
     * Where the non-zero bytes of a range of a segment end.
     *
     * @param path the segment file.
     * @param fromOffset start of the range.
     * @param toOffset end of the range.
     * @return offset after the last non-zero byte, or {@code fromOffset} if all are zero.
     * @throws IOException if the file cannot be read.
     */
    long dataEnd(final Path path, final long fromOffset, final long toOffset) throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            open(file, toOffset);
            return nonZeroEnd(fromOffset, fileSize);
        } finally {
            channel = null;
        }
    }

    private void open(final FileChannel file, final long capacityBytes) throws IOException {
        channel = file;
        fileSize = Math.min(file.size(), capacityBytes);
        windowLength = 0;
        windowFileOffset = 0;
        staleFromOffset = staleFrom(file);
    }

    /**
     * Where a segment file's stale bytes begin: the write limit of a recycled segment, whose bytes
     * from there on are its earlier life's and read as zeros here ({@link
     * SegmentHeaderDescriptor#FLAG_RECYCLED}); no offset for any other file, or a header that does
     * not check out (left to the structural checks).
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

    // Offset after the last non-zero byte of the gap findNextValid last searched.
    private long gapNonZeroEnd;

    /**
     * Looks for the next valid frame after an invalid one, at every 8-byte aligned offset, and notes
     * where the gap's non-zero bytes end in {@link #gapNonZeroEnd}. Offsets are tried only where the
     * header is plausible (length, type, flags and durable offset), so a checksum is computed rarely.
     *
     * @return the offset of the next valid frame, or the capacity if there is none.
     */
    private long findNextValid(final long gapStart, final long basePosition, final long capacityBytes)
            throws IOException {
        long lastNonZeroEnd = gapStart;
        for (long offset = gapStart; offset < capacityBytes; offset += FrameDescriptor.FRAME_ALIGNMENT) {
            if (!ensure(offset, FrameDescriptor.FRAME_ALIGNMENT)) {
                lastNonZeroEnd = Math.max(lastNonZeroEnd, nonZeroEnd(offset, fileSize));
                break;
            }
            long word = window.getLong(index(offset));
            if (word == 0) {
                // Skip zeros within the window in a tight loop: most of a segment's tail is zeros.
                final long windowEnd = Math.min(windowFileOffset + windowLength, capacityBytes) - Long.BYTES;
                while (word == 0 && offset < windowEnd) {
                    offset += FrameDescriptor.FRAME_ALIGNMENT;
                    word = window.getLong(index(offset));
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
        return ensure(offset, HEADER_LENGTH)
                && decoder.plausibleHeader(window, index(offset), available(offset), offset, capacityBytes)
                && decoder.hasHeader();
    }

    /**
     * Validates the frame at an offset with {@link FrameDecoder}, which then describes it; a discard
     * frame's covered range is read to the frame's end and must be zero.
     *
     * @return null if valid, else what is wrong.
     */
    private String validate(final long offset, final long basePosition, final long capacityBytes) throws IOException {
        if (!ensure(offset, SHORT_PADDING_LENGTH)) {
            return "the file ends at " + fileSize + " before its capacity of " + capacityBytes;
        }
        FrameDecoder.Verdict verdict = decode(offset, basePosition, capacityBytes);
        while (verdict == FrameDecoder.Verdict.MORE_BYTES && ensure(offset, decoder.bytesNeeded())) {
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

    /** Decodes the frame at an offset from the bytes the window holds. */
    private FrameDecoder.Verdict decode(final long offset, final long basePosition, final long capacityBytes) {
        return decoder.decode(window, index(offset), available(offset), basePosition, offset, capacityBytes);
    }

    /**
     * Finds where non-zero bytes end in a range of the open file.
     *
     * @return offset after the last non-zero byte, or {@code fromOffset} if all are zero.
     */
    private long nonZeroEnd(final long fromOffset, final long toOffset) throws IOException {
        long lastNonZeroEnd = fromOffset;
        final long end = Math.min(toOffset, fileSize);
        long offset = fromOffset;
        while (offset < end) {
            final int length = (int) Math.min(window.capacity(), end - offset);
            if (!ensure(offset, length)) {
                break;
            }
            final int start = index(offset);
            int i = length;
            while (i >= Long.BYTES && window.getLong(start + i - Long.BYTES) == 0) {
                i -= Long.BYTES;
            }
            while (i > 0 && window.get(start + i - 1) == 0) {
                i--;
            }
            if (i > 0) {
                lastNonZeroEnd = offset + i;
            }
            offset += length;
        }
        return lastNonZeroEnd;
    }

    /**
     * The end of the data frame that starts at an offset, walking the valid frames of the run that
     * holds it from the run's start.
     *
     * @param path the segment file.
     * @param run the run, from {@link #scan}.
     * @param offset where the frame must start.
     * @return the aligned end offset of the data frame that starts exactly at {@code offset}, or -1 if
     *     the run holds none there (the offset falls inside a frame, or on padding).
     * @throws IOException if the file cannot be read.
     */
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

    /** What a walk over a run's frames does with each one. */
    @FunctionalInterface
    interface FrameVisitor {
        /**
         * Visits a frame.
         *
         * @param offset where it starts in the segment.
         * @param frameLength its length.
         * @param type its type, or -1 for a short padding frame (no full header).
         * @param durableOffset the durable offset it carries, or -1 for a short padding frame.
         * @return false to stop the walk.
         * @throws IOException if the visitor fails.
         */
        boolean visit(long offset, int frameLength, int type, long durableOffset) throws IOException;
    }

    /**
     * Walks the frames of a run from its start, one frame header at a time, while frames start before
     * {@code toOffset}; stops at a header that is not plausible (a zero length). Cold path: the frames
     * were validated by {@link #scan}.
     *
     * @param path the segment file.
     * @param runStartOffset the run's first frame.
     * @param toOffset frames that start before this are visited.
     * @param visitor what to do with each.
     * @throws IOException if the file cannot be read or the visitor fails.
     */
    void forEachFrame(final Path path, final long runStartOffset, final long toOffset, final FrameVisitor visitor)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            open(file, Long.MAX_VALUE);
            long offset = runStartOffset;
            while (offset < toOffset
                    && ensureHeader(offset)
                    && decoder.plausibleHeader(window, index(offset), available(offset), offset, fileSize)) {
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
            channel = null;
        }
    }

    /**
     * Copies a range of a segment file into a buffer, for evidence of what a cut removes.
     *
     * @param path the segment file.
     * @param fromOffset start of the range.
     * @param toOffset end of the range.
     * @param sink receives the bytes, a window at a time; the buffer is valid only during the call.
     * @throws IOException if the file cannot be read or the sink fails.
     */
    void copyRange(final Path path, final long fromOffset, final long toOffset, final RangeSink sink)
            throws IOException {
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            open(file, toOffset);
            long offset = fromOffset;
            while (offset < toOffset) {
                final int length = (int) Math.min(window.capacity(), toOffset - offset);
                if (!ensure(offset, length)) {
                    throw new IOException(path + " ends before offset " + toOffset);
                }
                final ByteBuffer slice = window.duplicate();
                slice.clear().position(index(offset)).limit(index(offset) + length);
                sink.accept(slice);
                offset += length;
            }
        } finally {
            channel = null;
        }
    }

    /** Receives bytes copied by {@link #copyRange}. */
    @FunctionalInterface
    interface RangeSink {
        /**
         * Takes a chunk.
         *
         * @param bytes the chunk, from position to limit.
         * @throws IOException if it cannot be kept.
         */
        void accept(ByteBuffer bytes) throws IOException;
    }

    private int index(final long offset) {
        return (int) (offset - windowFileOffset);
    }

    /** How many bytes from an offset the window holds. */
    private int available(final long offset) {
        return (int) (windowFileOffset + windowLength - offset);
    }

    /** Makes the frame header at an offset readable, as much of it as the file holds; false under 8 bytes. */
    private boolean ensureHeader(final long offset) throws IOException {
        return ensure(offset, (int) Math.min(HEADER_LENGTH, Math.max(SHORT_PADDING_LENGTH, fileSize - offset)));
    }

    /** Makes [offset, offset + length) readable in the window; false if the file is shorter. */
    private boolean ensure(final long offset, final int length) throws IOException {
        if (offset + length > fileSize) {
            return false;
        }
        if (offset >= windowFileOffset && offset + length <= windowFileOffset + windowLength) {
            return true;
        }
        if (length > window.capacity()) {
            windowMemory.close();
            windowMemory = new AlignedBuffer(Integer.highestOneBit(length) * 2);
            window = windowMemory.buffer();
        }
        window.clear();
        final long readLength = Math.min(window.capacity(), fileSize - offset);
        window.limit((int) readLength);
        long position = offset;
        while (window.hasRemaining()) {
            final int read = channel.read(window, position);
            if (read < 0) {
                break;
            }
            position += read;
        }
        windowFileOffset = offset;
        windowLength = window.position();
        // A recycled segment's stale bytes read as zeros: they were never written in this life.
        if (staleFromOffset < offset + windowLength) {
            int i = index(Math.max(staleFromOffset, offset));
            for (; i < windowLength && (i & (Long.BYTES - 1)) != 0; i++) {
                window.put(i, (byte) 0);
            }
            for (; i + Long.BYTES <= windowLength; i += Long.BYTES) {
                window.putLong(i, 0);
            }
            for (; i < windowLength; i++) {
                window.put(i, (byte) 0);
            }
        }
        return offset + length <= windowFileOffset + windowLength;
    }

    @Override
    public void close() {
        windowMemory.close();
    }
}
