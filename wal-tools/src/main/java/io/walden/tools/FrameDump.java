package io.walden.tools;

import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;

import io.walden.format.FrameDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Walks the frames of a log's segment files in position order and prints, through {@link DumpLines}
 * (text or JSON), one line per frame, a line per segment header, and a line for each run of bytes
 * that is not a valid frame. It judges every frame with {@link FrameDecoder}, by the rules and in the
 * words of recovery (length, CRC32C over the binding block and the frame, type, flags, durable offset,
 * zero alignment gap, discard frames), and shows what is on disk even where recovery would refuse the
 * log.
 *
 * <p>Where a segment holds bytes that are not a valid frame, the dump says what is wrong at which file
 * and offset and continues with the next segment: it never loops and never stops at damage. It does
 * not look for valid frames later in the damaged segment. The format would allow it (a frame is bound
 * to its position and its log, so one that validates there is genuine; recovery looks past damage
 * that way for durable offsets), but on garbage it means decoding at every 8-byte offset of the rest
 * of the segment, and the dump's job is to show where the damage is.
 *
 * <p>On a live log the writer may fill the segment and roll to the next one while the dump reads it;
 * an anomaly with data in a later segment is therefore read again once before it is reported.
 *
 * <p>Reads with positional reads of a few MiB into one reused direct buffer, files opened read-only.
 *
 * <p><b>Threading:</b> not thread-safe; one dump at a time.
 */
final class FrameDump {
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    private final DumpLines out;
    private final PayloadOptions.Printer printer;
    private final long fromPosition;
    private final long limit;
    private final boolean raw;
    private final StoredPayloads stored = new StoredPayloads();

    // Where the segment being dumped stops being its own: a recycled one's write limit, else none.
    private long staleFromOffset = Long.MAX_VALUE;
    // Grown, rarely, for a frame larger than it (a padding frame may be as long as a buffer lap).
    private ByteBuffer window = ByteBuffer.allocateDirect(WINDOW_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private long windowStart = -1;
    private int windowLength;
    private FrameDecoder decoder;

    private List<LogDirectory.Segment> segments;
    private boolean identityKnown;
    private long logId;
    private long capacity;

    private long frames;
    private long records;
    private int segmentsShown;
    private int damaged;
    private int newestSegmentAnomalies;
    private String firstProblem;
    private boolean stopped;

    /**
     * Creates a dump.
     *
     * @param out where lines go.
     * @param printer how payloads show.
     * @param fromPosition frames before this position are validated but not shown.
     * @param limit the most frames to show.
     * @param raw whether payloads stored encoded show as stored.
     */
    FrameDump(
            final DumpLines out,
            final PayloadOptions.Printer printer,
            final long fromPosition,
            final long limit,
            final boolean raw) {
        this.out = out;
        this.printer = printer;
        this.raw = raw;
        this.fromPosition = fromPosition;
        this.limit = limit;
    }

    /**
     * Dumps the segments of a log directory.
     *
     * @param log the directory as listed.
     * @throws IOException if a file cannot be read.
     */
    void dump(final LogDirectory log) throws IOException {
        segments = log.segments();
        long expectedBase = -1;
        for (int i = 0; i < segments.size() && !done(); i++) {
            final LogDirectory.Segment segment = segments.get(i);
            if (expectedBase >= 0 && segment.base() != expectedBase && segment.base() > fromPosition) {
                reportDamage(
                        segment,
                        -1,
                        "missing segment(s) from position " + expectedBase + " to " + segment.base() + " (expected "
                                + SegmentNames.segmentName(expectedBase) + ")",
                        "the segments of a log are contiguous",
                        true);
            }
            expectedBase = dumpSegment(i, segment);
        }
        out.summary(this, frames >= limit);
    }

    /** @return how many segments were shown. */
    int segmentsShown() {
        return segmentsShown;
    }

    /** @return how many frames were shown. */
    long frames() {
        return frames;
    }

    /** @return how many data records were shown. */
    long records() {
        return records;
    }

    /** @return invalid regions where a later segment holds data, or structural ones: corruption. */
    int damaged() {
        return damaged;
    }

    /**
     * @return invalid regions at the end of the newest segment holding data: a torn tail, or a write
     *     in progress on a live log.
     */
    int newestSegmentAnomalies() {
        return newestSegmentAnomalies;
    }

    /** @return the first invalid region, as a sentence naming file and offset; null if none. */
    String firstProblem() {
        return firstProblem;
    }

    private boolean done() {
        return stopped || frames >= limit || out.failed();
    }

    /** @return the base the next segment should have, or -1 if unknown. */
    private long dumpSegment(final int index, final LogDirectory.Segment segment) throws IOException {
        final FileChannel channel;
        try {
            channel = FileChannel.open(segment.path(), StandardOpenOption.READ);
        } catch (final NoSuchFileException ex) {
            out.deleted(segment);
            return identityKnown ? segment.base() + capacity : -1;
        }
        try (channel) {
            windowStart = -1;
            final SegmentHeader header = SegmentHeader.read(channel, segment.base());
            String problem = header.problem();
            if (problem == null && !identityKnown) {
                identityKnown = true;
                logId = header.logId();
                capacity = header.capacity();
                decoder = new FrameDecoder(logId);
            } else if (problem == null && header.logId() != logId) {
                problem = String.format(
                        "segment belongs to another log (identity %016x, this log is %016x)", header.logId(), logId);
            } else if (problem == null && header.capacity() != capacity) {
                problem = "segment capacity " + header.capacity() + " differs from the log's " + capacity;
            }
            final long size = channel.size();
            if (problem == null && size != header.capacity()) {
                problem = "file size " + size + " differs from the segment capacity " + header.capacity();
            }
            if (problem == null && segment.base() + capacity <= fromPosition) {
                return segment.base() + capacity; // wholly before --from
            }
            segmentsShown++;
            out.segment(segment, header, size);
            if (problem != null) {
                reportDamage(segment, 0, problem, "the segment is skipped", true);
                return identityKnown ? segment.base() + capacity : -1;
            }
            dumpFrames(index, segment, channel, header);
            return segment.base() + capacity;
        }
    }

    private void dumpFrames(
            final int index, final LogDirectory.Segment segment, final FileChannel channel, final SegmentHeader header)
            throws IOException {
        final long base = segment.base();
        final int segmentCapacity = (int) capacity;
        // A recycled segment's bytes at or past its write limit are its earlier life's: read as zeros,
        // as recovery reads them (FORMAT.md, "Recycling").
        staleFromOffset = (header.flags() & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0 && header.writeLimitOffset() > 0
                ? header.writeLimitOffset()
                : Long.MAX_VALUE;
        long offset = SegmentHeaderDescriptor.HEADER_LENGTH;
        boolean reread = false;
        long segmentFrames = 0;
        long segmentRecords = 0;
        while (offset < segmentCapacity) {
            if (done()) {
                stopped = true;
                return;
            }
            final int available = load(channel, offset, HEADER_LENGTH);
            if (available < SHORT_PADDING_LENGTH) {
                reportShortFile(segment, offset, segmentCapacity);
                return;
            }
            final FrameDecoder.Verdict verdict = decode(channel, base, offset);
            if (verdict == FrameDecoder.Verdict.EMPTY) {
                final boolean laterData = laterSegmentHoldsData(index);
                if (laterData && !reread) {
                    reread = true; // the writer may have rolled meanwhile: read this offset again
                    windowStart = -1;
                    continue;
                }
                endAtZeroLength(segment, header, offset, laterData, segmentFrames, segmentRecords);
                return;
            }
            final boolean impossible = decoder.problem() == FrameDecoder.Problem.IMPOSSIBLE_LENGTH;
            final String problem = problem(channel, verdict, offset, segmentCapacity);
            if (problem != null && !reread && laterSegmentHoldsData(index)) {
                reread = true;
                windowStart = -1;
                continue;
            }
            if (base + offset >= fromPosition && !impossible) {
                final boolean data = decoder.hasHeader() && decoder.frameType() == TYPE_DATA;
                frameLine(channel, base + offset, offset);
                frames++;
                segmentFrames++;
                if (data) {
                    records++;
                    segmentRecords++;
                }
            }
            if (problem != null) {
                final boolean laterData = laterSegmentHoldsData(index);
                reportDamage(
                        segment,
                        offset,
                        problem,
                        "the rest of the segment is skipped",
                        laterData || header.closedCleanly());
                return;
            }
            offset += decoder.alignedLength();
            reread = false;
        }
        out.end(segment, offset, segmentFrames, segmentRecords, "the segment is full");
    }

    /** Reports a segment file that ends before its capacity, at a frame's offset. */
    private void reportShortFile(final LogDirectory.Segment segment, final long offset, final int segmentCapacity) {
        reportDamage(
                segment,
                offset,
                "the file ends at offset " + (windowStart + windowLength) + ", before its capacity of "
                        + segmentCapacity,
                "the rest of the segment is skipped",
                true);
    }

    /**
     * Ends a segment at a frame of zero length: its end, or damage where a later segment holds data or
     * the header records a clean close elsewhere.
     */
    private void endAtZeroLength(
            final LogDirectory.Segment segment,
            final SegmentHeader header,
            final long offset,
            final boolean laterData,
            final long segmentFrames,
            final long segmentRecords) {
        if (laterData || header.closedCleanly() && segment.base() + offset != header.durablePosition()) {
            reportDamage(
                    segment,
                    offset,
                    "no frame here (zero length) although "
                            + (laterData
                                    ? "a later segment holds data, and a segment is full before the next one"
                                            + " gets a byte"
                                    : "the header records a clean close at position " + header.durablePosition()),
                    "the rest of the segment is skipped",
                    true);
            return;
        }
        out.end(segment, offset, segmentFrames, segmentRecords, "nothing written after this (zero length)");
    }

    /**
     * Decodes the frame at an offset of the segment, loading as much of it as the decoder asks for.
     *
     * @return the verdict; {@link FrameDecoder.Verdict#MORE_BYTES} if the file ends first.
     */
    private FrameDecoder.Verdict decode(final FileChannel channel, final long base, final long offset)
            throws IOException {
        while (true) {
            final int at = (int) (offset - windowStart);
            final FrameDecoder.Verdict verdict = decoder.decode(window, at, windowLength - at, base, offset, capacity);
            if (verdict != FrameDecoder.Verdict.MORE_BYTES
                    || load(channel, offset, decoder.bytesNeeded()) < decoder.bytesNeeded()) {
                return verdict;
            }
        }
    }

    /**
     * What is wrong with the frame just decoded, in recovery's words; for a discard frame, with the
     * bytes it covers.
     *
     * @return the problem, or null if the frame is valid.
     */
    private String problem(
            final FileChannel channel, final FrameDecoder.Verdict verdict, final long offset, final int segmentCapacity)
            throws IOException {
        FrameDecoder.Verdict judged = verdict;
        if (judged == FrameDecoder.Verdict.FRAME && decoder.hasHeader() && decoder.frameType() == TYPE_DISCARD) {
            judged = decoder.judgeDiscardedBytes(nonZeroEnd(
                    channel, offset + HEADER_LENGTH, Math.min(segmentCapacity, offset + decoder.alignedLength())));
        }
        return switch (judged) {
            case FRAME -> null;
            case INVALID -> decoder.describe();
            default -> "frame of " + decoder.frameLength() + " bytes runs past the end of the file";
        };
    }

    /**
     * The line of the frame just decoded, whether it is valid or not, with its payload if shown: a
     * payload stored encoded is shown decoded, unless the dump shows payloads as stored ({@code --raw}).
     */
    private void frameLine(final FileChannel channel, final long position, final long offset) throws IOException {
        final boolean data = decoder.hasHeader() && decoder.frameType() == TYPE_DATA;
        final int codecId = data ? decoder.codecId() : 0;
        final String codec = codecId == 0 ? null : stored.name(codecId);
        if (!printer.showsPayloads() || !data) {
            out.frame(position, decoder, codec, null);
            return;
        }
        // A frame that runs past the end of the file shows what the file holds of its payload.
        final int payloadBytes = Math.max(0, decoder.frameLength() - HEADER_LENGTH);
        final int available = Math.max(0, load(channel, offset + HEADER_LENGTH, payloadBytes));
        final int index = (int) (offset + HEADER_LENGTH - windowStart);
        if (codecId == 0 || raw) {
            printer.load(position, window, index, Math.min(payloadBytes, available));
        } else if (available < payloadBytes) {
            printer.failed("the stored payload runs past the end of the file; --raw shows what there is");
        } else {
            final int decodedLength = stored.decode(codecId, window, index, payloadBytes);
            if (decodedLength < 0) {
                printer.failed(stored.problem());
            } else {
                printer.load(position, stored.decoded(), 0, decodedLength);
            }
        }
        out.frame(position, decoder, codec, printer);
    }

    private void reportDamage(
            final LogDirectory.Segment segment,
            final long offset,
            final String problem,
            final String consequence,
            final boolean corruption) {
        if (corruption) {
            damaged++;
        } else {
            newestSegmentAnomalies++;
        }
        out.invalid(segment, offset, problem, consequence, corruption);
        if (firstProblem == null) {
            firstProblem = segment.path() + (offset >= 0 ? " at offset " + offset : "") + ": " + problem;
        }
    }

    /**
     * Whether a segment after the given one holds a frame (its first frame slot is not zero). By the
     * roll fence, the given segment must then be full of valid frames.
     */
    private boolean laterSegmentHoldsData(final int index) throws IOException {
        final ByteBuffer slot = ByteBuffer.allocate(SHORT_PADDING_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int j = index + 1; j < segments.size(); j++) {
            slot.clear();
            try (FileChannel channel = FileChannel.open(segments.get(j).path(), StandardOpenOption.READ)) {
                while (slot.hasRemaining()
                        && channel.read(slot, SegmentHeaderDescriptor.HEADER_LENGTH + slot.position()) > 0) {
                    // Fill.
                }
            } catch (final NoSuchFileException ex) {
                continue;
            }
            if (!slot.hasRemaining() && FrameDecoder.slotWritten(slot, 0)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes {@code [offset, offset + wanted)} of the segment readable in the window, reading from
     * {@code offset} if it is not.
     *
     * @return how many bytes from {@code offset} the window holds (less than wanted at the file's end).
     */
    private int load(final FileChannel channel, final long offset, final int wanted) throws IOException {
        if (windowStart >= 0 && offset >= windowStart && offset + wanted <= windowStart + windowLength) {
            return (int) (windowStart + windowLength - offset);
        }
        if (wanted > window.capacity()) {
            window =
                    ByteBuffer.allocateDirect(Integer.highestOneBit(wanted) * 2).order(ByteOrder.LITTLE_ENDIAN);
        }
        window.clear();
        final long end = Math.min(channel.size(), offset + window.capacity());
        if (end > offset) {
            window.limit((int) (end - offset));
        } else {
            window.limit(0);
        }
        long at = offset;
        while (window.hasRemaining()) {
            final int read = channel.read(window, at);
            if (read < 0) {
                break;
            }
            at += read;
        }
        windowStart = offset;
        windowLength = window.position();
        for (long stale = Math.max(staleFromOffset, offset); stale < offset + windowLength; stale++) {
            window.put((int) (stale - offset), (byte) 0);
        }
        window.clear();
        return windowLength;
    }

    /** @return the offset after the last non-zero byte in [from, to) of the segment, or {@code from}. */
    private long nonZeroEnd(final FileChannel channel, final long from, final long to) throws IOException {
        long end = from;
        long at = from;
        while (at < to) {
            final int wanted = (int) Math.min(WINDOW_BYTES, to - at);
            final int available = load(channel, at, wanted);
            if (available <= 0) {
                return end;
            }
            final int take = Math.min(available, wanted);
            final int index = (int) (at - windowStart);
            for (int i = 0; i < take; i++) {
                if (window.get(index + i) != 0) {
                    end = at + i + 1;
                }
            }
            at += take;
        }
        return end;
    }
}
