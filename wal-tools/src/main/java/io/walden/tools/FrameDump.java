package io.walden.tools;

import static io.walden.format.FrameDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.FrameDescriptor.DURABLE_OFFSET_OFFSET;
import static io.walden.format.FrameDescriptor.FLAGS_OFFSET;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.LENGTH_OFFSET;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;
import static io.walden.format.FrameDescriptor.TYPE_SKIPPABLE_MASK;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Walks the frames of a log's segment files in position order and prints one line per frame, a line
 * per segment header, and a line for each run of bytes that is not a valid frame. It validates every
 * frame as FORMAT.md defines it (length, CRC32C over the binding block and the frame, type, flags,
 * durable offset, zero alignment gap, discard frames), written again here from the public layout, so
 * that it shows what is on disk even where recovery would refuse the log.
 *
 * <p>Where a segment holds bytes that are not a valid frame, the dump says what is wrong at which file
 * and offset and continues with the next segment: it never loops and never stops at damage. On a live
 * log the writer may fill the segment and roll to the next one while the dump reads it; an anomaly
 * with data in a later segment is therefore read again once before it is reported.
 *
 * <p>Reads with positional reads of a few MiB into one reused direct buffer, files opened read-only.
 *
 * <p><b>Threading:</b> not thread-safe; one dump at a time.
 */
final class FrameDump {
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    private final LineWriter out;
    private final PayloadOptions.Printer printer;
    private final long fromPosition;
    private final long limit;

    private final ByteBuffer window = ByteBuffer.allocateDirect(WINDOW_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private long windowStart = -1;
    private int windowLength;
    private final CRC32C crc = new CRC32C();
    private final byte[] binding = new byte[FrameDescriptor.BINDING_LENGTH];
    private final ByteBuffer bindingView = ByteBuffer.wrap(binding).order(ByteOrder.LITTLE_ENDIAN);

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
     */
    FrameDump(final LineWriter out, final PayloadOptions.Printer printer, final long fromPosition, final long limit) {
        this.out = out;
        this.printer = printer;
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
        out.text("summary frames=")
                .number(frames)
                .text(" records=")
                .number(records)
                .text(" segments=")
                .number(segmentsShown)
                .text(" invalid=")
                .number(damaged + newestSegmentAnomalies)
                .text(frames >= limit ? " (stopped at --limit)" : "")
                .newline();
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
            out.text("segment ")
                    .text(segment.name())
                    .text(" was deleted since the listing (the writer's retention removes old segments); skipped")
                    .newline();
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
            out.text("segment ")
                    .text(segment.name())
                    .text(" base=")
                    .number(segment.base())
                    .text(" capacity=")
                    .number(header.capacity())
                    .text(" log-id=")
                    .hex(header.logId(), 16)
                    .text(" version=")
                    .number(header.version())
                    .text(" closed-cleanly=")
                    .text(header.closedCleanly() ? "yes" : "no")
                    .text(" header-durable-position=")
                    .number(header.durablePosition())
                    .text(" header-checksum=")
                    .text(header.checksumOk() ? "ok" : "BAD")
                    .text(" size=")
                    .number(size)
                    .newline();
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
                reportDamage(
                        segment,
                        offset,
                        "the file ends at offset " + (windowStart + windowLength) + ", before its capacity of "
                                + segmentCapacity,
                        "the rest of the segment is skipped",
                        true);
                return;
            }
            int at = (int) (offset - windowStart);
            final int length = window.getInt(at + LENGTH_OFFSET);
            if (length == 0) {
                final boolean laterData = laterSegmentHoldsData(index);
                if (laterData && !reread) {
                    reread = true; // the writer may have rolled meanwhile: read this offset again
                    windowStart = -1;
                    continue;
                }
                if (laterData || header.closedCleanly() && base + offset != header.durablePosition()) {
                    reportDamage(
                            segment,
                            offset,
                            "no frame here (zero length) although "
                                    + (laterData
                                            ? "a later segment holds data, and a segment is full before the next one"
                                                    + " gets a byte"
                                            : "the header records a clean close at position "
                                                    + header.durablePosition()),
                            "the rest of the segment is skipped",
                            true);
                    return;
                }
                endLine(
                        segment,
                        base,
                        offset,
                        segmentFrames,
                        segmentRecords,
                        ": nothing written after this (zero length)");
                return;
            }
            final boolean impossible =
                    length != SHORT_PADDING_LENGTH && (length < HEADER_LENGTH || length > segmentCapacity - offset);
            short type = TYPE_PADDING;
            int flags = 0;
            int durableOffset = 0;
            boolean checksumOk = false;
            String problem;
            if (impossible) {
                problem = "frame length " + length
                        + (length < HEADER_LENGTH
                                ? " is impossible (a frame is 8 or at least 16 bytes long)"
                                : " runs past the segment's end (" + (segmentCapacity - offset) + " bytes left)");
            } else {
                if (length >= HEADER_LENGTH) {
                    type = window.getShort(at + TYPE_OFFSET);
                    flags = window.getShort(at + FLAGS_OFFSET) & 0xFFFF;
                    durableOffset = window.getInt(at + DURABLE_OFFSET_OFFSET);
                }
                final int stored = window.getInt(at + CHECKSUM_OFFSET);
                final int computed = checksum(channel, base + offset, offset, length, type);
                checksumOk = stored == computed;
                problem = checksumOk
                        ? frameProblem(channel, offset, length, type, flags, durableOffset, segmentCapacity)
                        : String.format("checksum mismatch (stored %08x, computed %08x)", stored, computed);
            }
            if (problem != null && !reread && laterSegmentHoldsData(index)) {
                reread = true;
                windowStart = -1;
                continue;
            }
            if (base + offset >= fromPosition && !impossible) {
                frameLine(channel, base + offset, offset, length, type, flags, durableOffset, checksumOk);
                frames++;
                segmentFrames++;
                if (length >= HEADER_LENGTH && type == TYPE_DATA) {
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
            offset += FrameDescriptor.alignedLength(length);
            reread = false;
        }
        endLine(segment, base, offset, segmentFrames, segmentRecords, ": the segment is full");
    }

    /** The line that ends a segment's frames: where, how many, and why there. */
    private void endLine(
            final LogDirectory.Segment segment,
            final long base,
            final long offset,
            final long segmentFrames,
            final long segmentRecords,
            final String why) {
        out.text("end ")
                .text(segment.name())
                .text(" offset=")
                .number(offset)
                .text(" position=")
                .number(base + offset)
                .text(" frames=")
                .number(segmentFrames)
                .text(" records=")
                .number(segmentRecords)
                .text(why)
                .newline();
    }

    /** Checks the fields of a frame whose checksum matched; null if it is valid. */
    private String frameProblem(
            final FileChannel channel,
            final long offset,
            final int length,
            final short type,
            final int flags,
            final int durableOffset,
            final int segmentCapacity)
            throws IOException {
        if (length >= HEADER_LENGTH) {
            if (type != TYPE_DATA
                    && type != TYPE_PADDING
                    && type != TYPE_DISCARD
                    && (type & TYPE_SKIPPABLE_MASK) == 0) {
                return "unknown frame type " + type + ", which readers may not skip";
            }
            if (!FrameDescriptor.validFlags(type, (short) flags)) {
                return "frame flags 0x" + Integer.toHexString(flags) + " not allowed on a frame of type " + type;
            }
            if (durableOffset < SegmentHeaderDescriptor.HEADER_LENGTH || durableOffset > offset) {
                return "durable offset " + durableOffset + " outside [" + SegmentHeaderDescriptor.HEADER_LENGTH + ", "
                        + offset + "]: a frame can only prove what was synced before it";
            }
            if (type == TYPE_DISCARD) {
                if (offset + length != segmentCapacity) {
                    return "discard frame of " + length + " bytes ends before the segment's end";
                }
                final long nonZero = firstNonZero(channel, offset + HEADER_LENGTH, segmentCapacity);
                if (nonZero >= 0) {
                    return "non-zero byte at offset " + nonZero + " in the range the discard frame covers,"
                            + " which recovery leaves zero";
                }
            }
        }
        final int aligned = FrameDescriptor.alignedLength(length);
        if (aligned != length) {
            final long nonZero = firstNonZero(channel, offset + length, offset + aligned);
            if (nonZero >= 0) {
                return "non-zero byte at offset " + nonZero + " in the alignment gap after the frame, which the"
                        + " writer leaves zero";
            }
        }
        return null;
    }

    private void frameLine(
            final FileChannel channel,
            final long position,
            final long offset,
            final int length,
            final short type,
            final int flags,
            final int durableOffset,
            final boolean checksumOk)
            throws IOException {
        out.text("position=").number(position).text(" length=").number(length).text(" type=");
        if (length == SHORT_PADDING_LENGTH) {
            out.text("PADDING flags=- durable-offset=-");
        } else {
            if (type == TYPE_DATA) {
                out.text("DATA");
            } else if (type == TYPE_PADDING) {
                out.text("PADDING");
            } else if (type == TYPE_DISCARD) {
                out.text("DISCARD");
            } else {
                out.text("unknown(0x").hex(type, 4).character(')');
            }
            out.text(" flags=").number(flags).text(" durable-offset=").number(durableOffset);
        }
        out.text(" checksum=").text(checksumOk ? "ok" : "BAD");
        if (printer.showsPayloads() && length >= HEADER_LENGTH && type == TYPE_DATA) {
            final int total = length - HEADER_LENGTH;
            final int shown = printer.shownBytes(total);
            if (shown > 0) {
                load(channel, offset + HEADER_LENGTH, shown);
                window.get((int) (offset + HEADER_LENGTH - windowStart), printer.scratch(), 0, shown);
            }
            printer.append(out, total);
        }
        out.newline();
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
        out.text("INVALID ").text(segment.name());
        if (offset >= 0) {
            out.text(" offset=").number(offset).text(" position=").number(segment.base() + offset);
        }
        out.text(": ")
                .text(problem)
                .text("; ")
                .text(consequence)
                .text(
                        corruption
                                ? ""
                                : " (the newest segment holding data: a torn tail, or a write in progress on a"
                                        + " live log; `walden verify` judges)")
                .newline();
        if (firstProblem == null) {
            firstProblem = segment.path() + (offset >= 0 ? " at offset " + offset : "") + ": " + problem;
        }
    }

    /**
     * Whether a segment after the given one holds a frame (its first frame slot is not zero). By the
     * roll fence, the given segment must then be full of valid frames.
     */
    private boolean laterSegmentHoldsData(final int index) throws IOException {
        final ByteBuffer slot = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
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
            if (!slot.hasRemaining() && slot.getInt(0) != 0) {
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
        window.clear();
        final long end = Math.min(channel.size(), offset + WINDOW_BYTES);
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
        window.clear();
        return windowLength;
    }

    /** CRC32C of a frame as FORMAT.md defines it, streamed through the window for frames larger than it. */
    private int checksum(
            final FileChannel channel, final long position, final long offset, final int length, final short type)
            throws IOException {
        crc.reset();
        bindingView.putLong(0, position).putLong(8, logId).putInt(16, length);
        crc.update(binding, 0, binding.length);
        final int covered = FrameDescriptor.checksummedLength(length, type);
        long at = offset + TYPE_OFFSET;
        final long end = offset + covered;
        while (at < end) {
            final int wanted = (int) Math.min(WINDOW_BYTES, end - at);
            final int available = load(channel, at, wanted);
            if (available <= 0) {
                break; // the file ends early: the checksum cannot match
            }
            final int take = Math.min(available, wanted);
            final int index = (int) (at - windowStart);
            window.position(index).limit(index + take);
            crc.update(window);
            window.clear();
            at += take;
        }
        return (int) crc.getValue();
    }

    /** @return the offset of the first non-zero byte in [from, to) of the segment, or -1. */
    private long firstNonZero(final FileChannel channel, final long from, final long to) throws IOException {
        long at = from;
        while (at < to) {
            final int wanted = (int) Math.min(WINDOW_BYTES, to - at);
            final int available = load(channel, at, wanted);
            if (available <= 0) {
                return -1;
            }
            final int take = Math.min(available, wanted);
            final int index = (int) (at - windowStart);
            for (int i = 0; i < take; i++) {
                if (window.get(index + i) != 0) {
                    return at + i;
                }
            }
            at += take;
        }
        return -1;
    }
}
