package io.walden.internal.read;

import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;

import io.walden.ControlledRecordHandler;
import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.format.FrameDecoder;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.codec.PayloadDecoding;
import io.walden.internal.segment.SegmentWindow;
import io.walden.internal.state.LogPositions;
import io.walden.spi.IoErrors;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads frames from segment files into a direct buffer and hands out views of it. See {@link
 * WalReader}.
 *
 * <pre>
 *   buffer:  [bufferPosition ........ validEnd)     one read of a segment region
 *   frames:   position -> frame -> frame -> ...      delivered while below the visible position
 * </pre>
 *
 * <p>Every frame is judged by {@link FrameDecoder}, with recovery's rules: a frame recovery would
 * refuse is damage here too, never skipped; padding, discard frames and unknown types marked skippable
 * are skipped. A record stored encoded is decoded ({@link PayloadDecoding}, made at the first such
 * record) and handed out from the decoding's buffer instead.
 *
 * <p><b>Threading:</b> owned by the thread that polls it.
 */
public final class LogReader implements WalReader {
    private static final int BUFFER_BYTES_MIN = 256 * 1024;

    private final Path directory;
    private final LogPositions positions;
    private final long segmentCapacityBytes;
    private final long segmentMask;
    private final Durability visibility;
    private final long[] skippedRanges;
    private final FrameDecoder decoder;
    private final CodecTable codecs;
    private final int maxRecordBytes;
    // Made (cold) at the first record stored encoded.
    private PayloadDecoding decoding;
    // Grown (rarely, cold) when a frame is larger than the configuration suggested: a log reopened with a
    // smaller maxRecordBytes still holds its larger records.
    private final SegmentWindow window;
    // The window's memory as the handler sees it (rewrapped by the window when it grows).
    private final UnsafeBuffer buffer;

    private long position;
    private boolean verifiedStart;
    // The batch whose frames the reader found complete, [start, end): frames in it are delivered
    // without looking ahead again, after a seek into it too. A batch's records are delivered only once
    // all of its frames are visible.
    private long checkedBatchStart = -1;
    private long checkedBatchEnd = -1;
    // Where the frames of a batch held back stop being visible: a waiting poll waits for this one.
    private long heldBatchPosition = -1;
    // The position of the last record delivered (-1: none since the reader began or last seeked), to
    // tell a reader that delivered records truncateAfter then discarded from one that only passed them.
    private long lastDeliveredPosition = -1;
    // The discarded ranges last read from the positions, and the lowest cut this reader may reach.
    private long[] discarded = LogPositions.NO_RANGES;
    private long nextCut = Long.MAX_VALUE;
    private FileChannel channel;
    private long channelBase = -1;
    private long bufferPosition;
    private long validEnd;
    private boolean closed;

    /** The log a reader reads; {@code skippedRanges}: what recovery skipped (SKIP), stepped over. */
    public record Log(Path directory, long logId, long segmentCapacityBytes, long[] skippedRanges, CodecTable codecs) {}

    public LogReader(
            final Log log,
            final LogPositions positions,
            final int maxRecordBytes,
            final long fromPosition,
            final Durability visibility) {
        final Path directory = log.directory();
        final long segmentCapacityBytes = log.segmentCapacityBytes();
        final long logId = log.logId();
        final long[] skippedRanges = log.skippedRanges();

        if (visibility == Durability.BUFFERED) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "readers see WRITTEN or SYNCED records; BUFFERED ones are not in files yet");
        }
        if (fromPosition < positions.startPosition()) {
            throw truncated(fromPosition, positions.startPosition());
        }
        this.directory = directory;
        this.positions = positions;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.segmentMask = segmentCapacityBytes - 1;
        this.visibility = visibility;
        this.skippedRanges = skippedRanges;
        this.decoder = new FrameDecoder(logId);
        this.codecs = log.codecs();
        this.maxRecordBytes = maxRecordBytes;
        final int bufferBytes =
                Math.max(BUFFER_BYTES_MIN, Integer.highestOneBit(FrameDescriptor.frameLength(maxRecordBytes)) * 4);
        this.window = new SegmentWindow(bufferBytes);
        this.buffer = window.view();
        this.position = fromPosition;
        checkNotDiscarded(fromPosition);
    }

    @Override
    public int poll(final RecordHandler handler, final int limit) {
        return poll(handler, null, limit);
    }

    @Override
    public int controlledPoll(final ControlledRecordHandler handler, final int limit) {
        return poll(null, handler, limit);
    }

    @Override
    public int poll(final RecordHandler handler, final int limit, final long timeoutNs) {
        int count = poll(handler, null, limit);
        if (count > 0 || timeoutNs <= 0) {
            return count;
        }
        final long deadlineNs = System.nanoTime() + timeoutNs;
        long remainingNs = timeoutNs;
        while (count == 0 && remainingNs > 0) {
            if (!positions.awaitVisible(Math.max(position, heldBatchPosition), visibility, remainingNs)) {
                return 0;
            }
            count = poll(handler, null, limit);
            remainingNs = deadlineNs - System.nanoTime();
        }
        return count;
    }

    /** Delivers records to one of the two handlers; the other is null. */
    private int poll(final RecordHandler handler, final ControlledRecordHandler controlled, final int limit) {
        checkOpen();
        final long visible = positions.visiblePosition(visibility);
        if (positions.discardedRanges() != discarded) {
            refreshDiscarded();
        }
        int count = 0;
        while (count < limit && position < visible) {
            if (position >= nextCut) {
                passDiscarded();
                continue;
            }
            final long offsetInSegment = position & segmentMask;
            if (offsetInSegment < SegmentHeaderDescriptor.HEADER_LENGTH) {
                position += SegmentHeaderDescriptor.HEADER_LENGTH - offsetInSegment;
                continue;
            }
            final FrameDecoder.Verdict verdict = decodeFrame(visible);
            if (verdict != FrameDecoder.Verdict.FRAME) {
                final long skipEnd = skipEnd(position);
                if (skipEnd < 0 && positions.discardedRanges() != discarded) {
                    // truncateAfter began while this poll read the files it changes: look again.
                    refreshDiscarded();
                    continue;
                }
                if (skipEnd < 0) {
                    throw invalidFrame(verdict);
                }
                position = skipEnd;
                continue;
            }
            verifiedStart = true;
            final int frameLength = decoder.frameLength();
            final int alignedLength = decoder.alignedLength();
            // Taken before checkBatch, which decodes the batch's later frames with the same decoder.
            final int codecId = decoder.codecId();
            if (decoder.frameType() == TYPE_DATA) {
                if ((position >= checkedBatchEnd || position < checkedBatchStart)
                        && decoder.batchContinues()
                        && !checkBatch(visible, alignedLength)) {
                    break;
                }
                final ControlledRecordHandler.Action action = deliver(handler, controlled, codecId, frameLength);
                if (action == ControlledRecordHandler.Action.ABORT) {
                    break;
                }
                count++;
                if (action == ControlledRecordHandler.Action.BREAK) {
                    position += alignedLength;
                    break;
                }
            }
            position += alignedLength;
        }
        if (count == 0 && position >= visible) {
            final WalException damage = positions.damageAt(position);
            if (damage != null) {
                throw damage;
            }
        }
        return count;
    }

    /**
     * Hands the data frame at the position to the handler (decoded, if it is stored encoded); what a
     * controlled handler answered, {@code CONTINUE} for the other.
     */
    private ControlledRecordHandler.Action deliver(
            final RecordHandler handler,
            final ControlledRecordHandler controlled,
            final int codecId,
            final int frameLength) {
        int payloadLength = frameLength - HEADER_LENGTH;
        int payloadIndex = (int) (position - bufferPosition) + HEADER_LENGTH;
        DirectBuffer payload = buffer;
        if (codecId != 0) {
            payloadLength = decode(codecId, payloadIndex, payloadLength);
            payloadIndex = 0;
            payload = decoding.buffer();
        }
        if (controlled == null) {
            lastDeliveredPosition = position;
            handler.onRecord(payload, payloadIndex, payloadLength, position);
            return ControlledRecordHandler.Action.CONTINUE;
        }
        final ControlledRecordHandler.Action action =
                controlled.onRecord(payload, payloadIndex, payloadLength, position);
        if (action != ControlledRecordHandler.Action.ABORT) {
            lastDeliveredPosition = position;
        }
        return action;
    }

    @Override
    public void seek(final long lsn) {
        checkOpen();
        if (lsn < positions.startPosition()) {
            throw truncated(lsn, positions.startPosition());
        }
        checkNotDiscarded(lsn);
        position = lsn;
        verifiedStart = false;
        lastDeliveredPosition = -1;
        heldBatchPosition = -1;
        findNextCut();
    }

    @Override
    public long replay(final RecordHandler handler) {
        final long visible = positions.visiblePosition(visibility);
        long total = 0;
        while (position < visible) {
            final long before = position;
            total += poll(handler, Integer.MAX_VALUE);
            if (position == before) {
                break;
            }
        }
        return total;
    }

    @Override
    public long position() {
        return position;
    }

    /**
     * Checks that every frame of the batch whose record is at {@link #position} is visible, so that its
     * records may be delivered: the batch ends at its first data frame without {@link
     * FrameDescriptor#FLAG_BATCH_CONTINUES}, where a truncation cut it, or where the SKIP policy skips
     * damage. Reads frame headers only ({@link FrameDecoder#plausibleHeader}); each checksum is checked
     * as its frame is delivered. Leaves the buffer holding the frame at {@link #position}.
     */
    private boolean checkBatch(final long visible, final int firstAlignedLength) {
        final long segmentEnd = (position | segmentMask) + 1;
        long frame = position + firstAlignedLength;
        while (true) {
            if (frame >= nextCut || skipEnd(frame) >= 0) {
                return batchComplete(frame);
            }
            if (frame >= visible || frame + HEADER_LENGTH > segmentEnd) {
                heldBatchPosition = frame;
                return false;
            }
            if (frame + HEADER_LENGTH > validEnd) {
                refillFromPosition(frame + HEADER_LENGTH, visible);
            }
            final boolean plausible = frame + HEADER_LENGTH <= validEnd
                    && decoder.plausibleHeader(
                            window.buffer(),
                            (int) (frame - bufferPosition),
                            (int) (validEnd - frame),
                            frame & segmentMask,
                            segmentCapacityBytes)
                    && decoder.hasHeader();
            final short type = decoder.frameType();
            if (!plausible || (type != TYPE_DATA && type != TYPE_DISCARD)) {
                if (position < positions.startPosition()) {
                    throw truncated(position, positions.startPosition());
                }
                throw new WalCorruptionException(
                        SegmentNames.segmentPath(directory, frame & ~segmentMask),
                        frame & segmentMask,
                        "the batch that starts at position " + position + " goes on at position " + frame
                                + ", where no record or discard frame is (length field " + decoder.frameLength()
                                + ")");
            }
            if (type != TYPE_DATA || !decoder.batchContinues()) {
                // A data frame without the flag ends the batch; so does a discard frame.
                return batchComplete(frame + decoder.alignedLength());
            }
            frame += decoder.alignedLength();
        }
    }

    private boolean batchComplete(final long batchEnd) {
        checkedBatchStart = position;
        checkedBatchEnd = batchEnd;
        heldBatchPosition = -1;
        return true;
    }

    private void refillFromPosition(final long end, final long visible) {
        if (end - position > window.capacityBytes()) {
            grow((int) Math.min(end - position, segmentCapacityBytes));
        }
        fill(visible);
    }

    /** Decodes the frame at {@link #position}, reading what it needs up to the visible position. */
    private FrameDecoder.Verdict decodeFrame(final long visible) {
        if (position < bufferPosition || position + HEADER_LENGTH > validEnd) {
            fill(visible);
        }
        FrameDecoder.Verdict verdict = decodeBuffered();
        while (verdict == FrameDecoder.Verdict.MORE_BYTES) {
            final int needed = decoder.bytesNeeded();
            if (position + needed > Math.min(visible, (position | segmentMask) + 1)) {
                return verdict;
            }
            if (needed > window.capacityBytes()) {
                grow(needed);
            }
            fill(visible);
            if (position + needed > validEnd) {
                return verdict;
            }
            verdict = decodeBuffered();
        }
        return verdict;
    }

    private FrameDecoder.Verdict decodeBuffered() {
        return decoder.decode(
                window.buffer(),
                (int) (position - bufferPosition),
                (int) (validEnd - position),
                position & ~segmentMask,
                position & segmentMask,
                segmentCapacityBytes);
    }

    private void grow(final int frameBytes) {
        if ((long) frameBytes > segmentCapacityBytes) {
            return;
        }
        window.grow(frameBytes);
        bufferPosition = 0;
        validEnd = 0;
    }

    private void fill(final long visible) {
        final long base = position & ~segmentMask;
        if (position < positions.startPosition()) {
            throw truncated(position, positions.startPosition());
        }
        try {
            if (channelBase != base) {
                closeChannel();
                channel = FileChannel.open(SegmentNames.segmentPath(directory, base), StandardOpenOption.READ);
                channelBase = base;
                window.bind(channel, segmentCapacityBytes, Long.MAX_VALUE);
            }
            final long readEnd =
                    Math.min(base + segmentCapacityBytes, Math.min(visible, position + window.capacityBytes()));
            window.fill(position - base, readEnd - base);
            bufferPosition = position;
            validEnd = base + window.filledEnd();
        } catch (final NoSuchFileException ex) {
            if (position < positions.startPosition()) {
                throw truncated(position, positions.startPosition());
            }
            throw new WalCorruptionException(
                    SegmentNames.segmentPath(directory, base), -1, "segment file is missing while the log holds it");
        } catch (final IOException ex) {
            throw new WalException(
                    WalException.ErrorCode.IO,
                    "cannot read " + SegmentNames.segmentPath(directory, base) + ": " + IoErrors.reason(ex)
                            + (ex instanceof java.nio.channels.ClosedByInterruptException
                                    ? " (the reading thread was interrupted)"
                                    : ""),
                    ex);
        }
    }

    private void refreshDiscarded() {
        discarded = positions.discardedRanges();
        findNextCut();
    }

    private void findNextCut() {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < discarded.length; i += 2) {
            if (discarded[i + 1] > position) {
                next = Math.min(next, discarded[i]);
            }
        }
        nextCut = next;
    }

    /**
     * Moves the reader past the discarded ranges its position lies in, to where the log continues;
     * or, if it had delivered a record that a range discarded, tells it so. Cold.
     */
    private void passDiscarded() {
        boolean moved;
        do {
            moved = false;
            for (int i = 0; i < discarded.length; i += 2) {
                final long cut = discarded[i];
                final long continueAt = discarded[i + 1];
                if (cut <= position && position < continueAt) {
                    if (lastDeliveredPosition >= cut && lastDeliveredPosition < continueAt) {
                        throw new WalException(
                                WalException.ErrorCode.POSITION,
                                "this reader delivered records at positions from " + cut + " that truncateAfter"
                                        + " then discarded (the last at " + lastDeliveredPosition + "); whatever was"
                                        + " derived from them is gone from the log. The log continues at position "
                                        + firstFramePosition(continueAt) + ": seek there to go on");
                    }
                    position = continueAt;
                    verifiedStart = true;
                    moved = true;
                }
            }
        } while (moved);
        findNextCut();
    }

    private long firstFramePosition(final long position) {
        return (position & segmentMask) == 0 ? position + SegmentHeaderDescriptor.HEADER_LENGTH : position;
    }

    /** Refuses a starting position that truncateAfter discarded (its cut itself is allowed). */
    private void checkNotDiscarded(final long startPosition) {
        final long[] ranges = positions.discardedRanges();
        for (int i = 0; i < ranges.length; i += 2) {
            if (ranges[i] < startPosition && startPosition < ranges[i + 1]) {
                throw new WalException(
                        WalException.ErrorCode.POSITION,
                        "position " + startPosition + " was discarded by truncateAfter (positions " + ranges[i] + " to "
                                + ranges[i + 1] + "); the log continues at position "
                                + firstFramePosition(ranges[i + 1]));
            }
        }
    }

    private long skipEnd(final long framePosition) {
        for (int i = 0; i < skippedRanges.length; i += 2) {
            if (skippedRanges[i] == framePosition) {
                return skippedRanges[i + 1];
            }
        }
        return -1;
    }

    private WalException invalidFrame(final FrameDecoder.Verdict verdict) {
        if (position < positions.startPosition()) {
            // Retention freed the segment while this reader read it, and its file may be a recycled
            // segment's now: what was read is not this position's frame. Checked after the read.
            return truncated(position, positions.startPosition());
        }
        final Path file = SegmentNames.segmentPath(directory, position & ~segmentMask);
        if (!verifiedStart) {
            return new WalException(
                    WalException.ErrorCode.POSITION,
                    "position " + position + " is not the start of a record in " + file
                            + " (it lies inside a record, or in a range that recovery discarded after a crash);"
                            + " start readers at a position returned by append, or at the log's start position");
        }
        return new WalCorruptionException(
                file,
                position & segmentMask,
                "frame (length field " + decoder.frameLength() + ") does not validate on read"
                        + (verdict == FrameDecoder.Verdict.INVALID ? ": " + decoder.describe() : ""));
    }

    private static WalException truncated(final long position, final long startPosition) {
        return new WalException(
                WalException.ErrorCode.POSITION,
                "position " + position + " was truncated away; the log now starts at position " + startPosition);
    }

    private void checkOpen() {
        if (closed) {
            throw new WalException(WalException.ErrorCode.CLOSED, "this reader is closed");
        }
    }

    private void closeChannel() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
            channelBase = -1;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closeChannel();
        } catch (final IOException ignored) {
            // A read-only channel has nothing to lose on close.
        }
        window.close();
        if (decoding != null) {
            decoding.close();
        }
    }

    /** Decodes the stored payload of the frame at the position; the record's length, in the decoding's buffer. */
    private int decode(final int codecId, final int payloadIndex, final int storedLength) {
        if (decoding == null) {
            // A record is never longer than a segment: the bound for one written with a larger
            // maxRecordBytes than this log was reopened with.
            decoding = new PayloadDecoding(
                    codecs, (int) Math.max(maxRecordBytes, Math.min(Integer.MAX_VALUE - 8, segmentCapacityBytes)));
        }
        final long segmentBase = position & ~segmentMask;
        return decoding.decode(
                codecId,
                buffer,
                payloadIndex,
                storedLength,
                position,
                SegmentNames.segmentPath(directory, segmentBase),
                position - segmentBase + HEADER_LENGTH);
    }
}
