package io.walden.internal.io;

import io.walden.format.SegmentNames;
import io.walden.internal.AlignedBuffer;
import io.walden.internal.Invariants;
import io.walden.internal.LogBuffer;
import io.walden.internal.LogState;
import io.walden.internal.StatsCounters;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The write stage of the I/O path: submits one write of published frames of the active segment,
 * straight from the log buffer, and settles its completion. One write is in flight at a time: a write
 * that fails can then never be followed by a later write that lands, so after any failure the file
 * holds a prefix of the log and recovery needs no special case. Writes still overlap syncs, the
 * pipelining that counts.
 *
 * <p>With direct I/O a write has up to two parts: the whole blocks, from the log buffer, and the
 * partial last block, copied to scratch memory and padded with zeros (its token's {@link
 * CompletionToken#WRITE_TAIL} bit); a later write rewrites that block identically in place, with
 * more frames. A long batch (the appenders are ahead) is cut at a block boundary and written as whole
 * blocks only.
 *
 * <p>{@link IoAgent}'s round decides when to write; this stage submits the write, settles its
 * completion and publishes the written position it proves ({@link #publishWritten}).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; {@link #close} by the I/O thread as it
 * stops.
 */
final class WriteStage {
    /** {@link #onComplete}: a part of the write completed, another is still in flight. */
    static final int PART_PENDING = 0;
    /** {@link #onComplete}: the whole write completed. */
    static final int COMPLETE = 1;
    /** {@link #onComplete}: the backend reported a short write, which fails the log. */
    static final int SHORT = 2;

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final StatsCounters stats;
    private final IoPositions positions;
    private final Path directory;
    private final boolean directIo;
    private final long blockMask;
    private final ByteBuffer writeView;
    private final UnsafeBuffer ring;
    private final AlignedBuffer scratchMemory;
    private final ByteBuffer scratchBlock;
    private final UnsafeBuffer scratch;

    private boolean inFlight;
    private int partsPending;
    // Length of each part of the write in flight: the frames (or, with direct I/O, their whole blocks)
    // and, with direct I/O, the partial last block; the part is the token's low bit.
    private long frameBytes;
    private long tailBytes;
    private long startPosition;
    private long endPosition;
    private long endRecords;
    private long submitNs;

    /**
     * Creates the write stage of one log.
     *
     * @param session the storage session.
     * @param logBuffer the log buffer the frames are written from.
     * @param state the shared state, where the written position is published.
     * @param stats the counters.
     * @param positions where the I/O path stands.
     * @param directory the log's directory, for messages.
     */
    WriteStage(
            final StorageSession session,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final IoPositions positions,
            final Path directory) {
        this.session = session;
        this.logBuffer = logBuffer;
        this.state = state;
        this.stats = stats;
        this.positions = positions;
        this.directory = directory;
        this.directIo = session.directIo();
        this.blockMask = session.blockSizeBytes() - 1L;
        this.writeView = logBuffer.newByteBufferView();
        this.ring = logBuffer.buffer();
        this.scratchMemory = directIo ? new AlignedBuffer(session.blockSizeBytes()) : null;
        this.scratchBlock = directIo ? scratchMemory.buffer() : null;
        this.scratch = directIo ? new UnsafeBuffer(scratchBlock) : null;
    }

    /** @return whether a write is in flight. */
    boolean inFlight() {
        return inFlight;
    }

    /** @return where the write in flight (or the last one) ends. */
    long endPosition() {
        return endPosition;
    }

    /** @return the records up to where the write in flight (or the last one) ends. */
    long endRecords() {
        return endRecords;
    }

    /** @return when the write in flight (or the last one) was submitted. */
    long submitNs() {
        return submitNs;
    }

    /**
     * Submits a write of the frames at log positions [start, end) of the active segment.
     *
     * @param start the first frame's position.
     * @param end where the frames end.
     * @param endRecords the records up to {@code end}.
     * @param scannedPosition how far frames are checksummed: past {@code end} when a long batch was cut
     *     short, which with direct I/O writes whole blocks only.
     * @param activeBase the active segment's base.
     * @param activeHandle its handle.
     * @param nowNs now.
     */
    void submit(
            final long start,
            final long end,
            final long endRecords,
            final long scannedPosition,
            final long activeBase,
            final int activeHandle,
            final long nowNs) {
        final long token = CompletionToken.of(CompletionToken.WRITE);
        inFlight = true;
        submitNs = nowNs;
        startPosition = start;
        endPosition = end;
        this.endRecords = endRecords;
        if (end != scannedPosition) {
            // A long batch (the appenders are ahead) with direct I/O: whole blocks only. The frames
            // past the cut are written, with their block rewritten identically in place, by the next
            // batch, which is submitted as soon as this one completes.
            final long blockStart = start & ~blockMask;
            final long blockEnd = scannedPosition & ~blockMask;
            Invariants.check(
                    blockEnd > blockStart && (blockStart & blockMask) == 0 && (blockEnd & blockMask) == 0,
                    "blocks write [%d, %d)",
                    blockStart,
                    blockEnd);
            partsPending = 1;
            frameBytes = blockEnd - blockStart;
            writeFromBuffer(blockStart, blockEnd, activeBase, activeHandle, token);
        } else if (!directIo) {
            partsPending = 1;
            frameBytes = end - start;
            writeFromBuffer(start, end, activeBase, activeHandle, token);
        } else {
            submitDirect(start, end, activeBase, activeHandle, token);
        }
    }

    /** Submits a write of log positions [start, end) of the active segment straight from the buffer. */
    private void writeFromBuffer(
            final long start, final long end, final long activeBase, final int activeHandle, final long token) {
        session.submitWrite(
                activeHandle, start - activeBase, writeView, logBuffer.offset(start), (int) (end - start), token);
    }

    private void submitDirect(
            final long start, final long end, final long activeBase, final int activeHandle, final long token) {
        final long blockStart = start & ~blockMask;
        final long blockEnd = end & ~blockMask;
        int parts = 0;
        if (blockEnd > blockStart) {
            parts++;
        }
        if (end > blockEnd) {
            parts++;
        }
        partsPending = parts;
        frameBytes = blockEnd - blockStart;
        tailBytes = scratchBlock.capacity();
        if (blockEnd > blockStart) {
            writeFromBuffer(blockStart, blockEnd, activeBase, activeHandle, token);
        }
        if (end > blockEnd) {
            final int tailLength = (int) (end - blockEnd);
            scratch.putBytes(0, ring, logBuffer.offset(blockEnd), tailLength);
            scratch.setMemory(tailLength, scratchBlock.capacity() - tailLength, (byte) 0);
            session.submitWrite(
                    activeHandle,
                    blockEnd - activeBase,
                    scratchBlock,
                    0,
                    scratchBlock.capacity(),
                    token | CompletionToken.WRITE_TAIL);
        }
    }

    /**
     * Settles a part of the write in flight.
     *
     * @param token the part's token.
     * @param result the bytes written.
     * @return {@link #PART_PENDING}, {@link #COMPLETE}, or {@link #SHORT} (see {@link
     *     #shortWriteFailure}).
     */
    int onComplete(final long token, final long result) {
        Invariants.check(inFlight && partsPending > 0, "unexpected write completion of %d bytes", result);
        if (result != (CompletionToken.isWriteTail(token) ? tailBytes : frameBytes)) {
            return SHORT;
        }
        partsPending--;
        stats.recordWrite(result);
        if (partsPending > 0) {
            return PART_PENDING;
        }
        inFlight = false;
        return COMPLETE;
    }

    /**
     * Publishes what the completed write made visible: the written position and record count, and
     * the buffer's space below it (with direct I/O, below the partial last block, which the next write
     * rewrites). Written is published before anyone can publish durable past it, so that no observer
     * ever sees durable ahead of written.
     *
     * @return whether the written position moved.
     */
    boolean publishWritten() {
        positions.writtenRecords = endRecords;
        if (endPosition == positions.writtenPosition) {
            return false;
        }
        positions.writtenPosition = endPosition;
        positions.releasedPosition = directIo ? endPosition & ~blockMask : endPosition;
        logBuffer.release(positions.releasedPosition);
        state.publishWritten(endPosition);
        return true;
    }

    /**
     * The failure of a short write. The SPI makes a backend finish a short write or fail it; a short
     * result taken for a whole write would acknowledge records that never reached the file. Failing at
     * once also acknowledges nothing that completes after it.
     *
     * @param result the bytes the backend reported.
     * @param activeBase the active segment's base.
     * @return the failure.
     */
    IOException shortWriteFailure(final long result, final long activeBase) {
        return new IOException("short write: the storage backend reported " + result + " bytes written"
                + " without an error for a write of log positions [" + startPosition + ", " + endPosition
                + ") at offset " + (startPosition - activeBase) + " of "
                + SegmentNames.segmentPath(directory, activeBase) + "; a backend must finish a short write or fail it");
    }

    /** Frees the scratch block; only once no operation can read it. */
    void close() {
        if (scratchMemory != null) {
            scratchMemory.close();
        }
    }
}
