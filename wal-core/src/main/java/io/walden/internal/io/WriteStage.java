package io.walden.internal.io;

import io.walden.format.SegmentNames;
import io.walden.internal.state.AlignedBuffer;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.NoSpace;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The write stage: submits writes of published frames of the active segment, straight from the log
 * buffer, and settles their completions (docs/design/pipelined-sync.md).
 *
 * <p>Without durable writes (fdatasync mode) one write is in flight at a time, so a failed write is
 * never followed by one that lands and the file holds a prefix of the log. With O_DSYNC up to
 * {@code inFlightMax} writes are in flight while {@link WriteDepthPolicy} allows it, in a ring in
 * submission order:
 *
 * <pre>
 *   retired ... | oldest in flight ... newest in flight | next
 *                 ^ headSequence                          ^ nextSequence
 *   a slot:  [start, end) frames, records up to end, frame bytes, submitted at, beside others,
 *            parts pending, complete (completions arrive in any order)
 * </pre>
 *
 * <ul>
 *   <li>The written (with O_DSYNC, durable) position moves only over the <b>contiguous prefix</b>
 *       of completed writes ({@link #retireOldest}); a failure fails the log at once.
 *   <li><b>No two writes in flight touch the same block</b> ({@link #maySubmit}): a write starts at
 *       or past the newest one's end, rounded up to its block.
 *   <li>A frame scanned while writes are in flight proves no write in flight, so a later write
 *       found durable behind a missing earlier one is a torn tail after a crash.
 * </ul>
 *
 * <p>With direct I/O a write has up to two parts: the whole blocks, from the log buffer, and the
 * partial last block, padded with zeros in scratch memory ({@link CompletionToken#WRITE_TAIL}),
 * which a later write rewrites in place with more frames.
 *
 * <p><b>No space is back-pressure</b> ({@link #onNoSpace}, docs/design/full-disks.md). A write part
 * that fails with ENOSPC leaves its frames in the log buffer (they are released only below the
 * written position, which cannot pass it). Nothing new is submitted; once every part in flight has
 * settled, every write not yet retired, completed or not, is submitted again from the same buffer
 * bytes ({@link #retryForSpace}), {@link SegmentPreparer#NO_SPACE_RETRY_NS} later or as soon as
 * retention freed space. What a failed call left in the file, whole, in part or nothing, is
 * rewritten with the same bytes, and the written (with O_DSYNC, durable) position moves only once
 * the rewrite completed.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; {@link #close} by the I/O thread as it
 * stops.
 */
final class WriteStage {
    private static final System.Logger LOGGER = System.getLogger(WriteStage.class.getName());
    private static final long WARN_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    /** What a completion did to its write ({@link #onComplete}). */
    enum Outcome {
        PART_PENDING,
        /** The whole write completed (earlier writes may still be in flight). */
        COMPLETE,
        SHORT
    }
    /** The most writes in flight any configuration allows: the slots the token can name. */
    static final int IN_FLIGHT_MAX = CompletionToken.WRITE_SLOTS;

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final StatsCounters stats;
    private final IoPositions positions;
    private final Path directory;
    private final boolean directIo;
    private final boolean writesDurable;
    private final long blockMask;
    private final int inFlightMax;
    private final ByteBuffer writeView;
    private final UnsafeBuffer ring;
    private final AlignedBuffer scratchMemory;
    private final ByteBuffer scratchBlock;
    private final UnsafeBuffer scratch;

    // The ring of writes in flight, by slot (sequence & slotMask); see the class comment.
    private final int slotMask;
    private final long[] slotStart;
    private final long[] slotEnd;
    private final long[] slotEndRecords;
    private final long[] slotSubmitNs;
    private final long[] slotFrameBytes;
    private final int[] slotPartsPending;
    private final boolean[] slotComplete;
    private final boolean[] slotBeside;
    // The part of a slot's write that goes straight from the log buffer, [bufferStart, bufferEnd) in
    // log positions (may be empty), and whether a partial last block follows it from scratch memory.
    private final long[] slotBufferStart;
    private final long[] slotBufferEnd;
    private final boolean[] slotHasTail;
    // Whether a part of a slot's write found no space: once its other part settles too, the write is
    // not complete but waits to be submitted again.
    private final boolean[] slotNoSpace;
    private final WriteDepthPolicy depthPolicy;
    private long headSequence;
    private long nextSequence;
    // Where the bytes of the newest write submitted end, rounded up to its block: the next write in
    // flight beside it must start at or past it.
    private long newestByteEnd;
    // The slot whose write has a part in the scratch block, or -1.
    private int scratchSlot = -1;
    private long tailBytes;
    // The write retired last: where it ends, the records up to there, when it was submitted.
    private long retiredEnd;
    private long retiredEndRecords;
    private long retiredSubmitNs;
    // Whether the last part of the write being submitted goes to the backend's submitWriteOnCaller.
    private boolean lastPartOnCaller;
    // Parts of writes submitted and not yet settled, over every slot.
    private int partsOutstanding;
    // A write part found no space: the writes drain and wait to be submitted again (class comment),
    // not before retryAtNs. The shortage published for appenders, cleared by the next write that lands.
    private boolean spaceFailed;
    private long retryAtNs;
    // Retention freed space while the writes waited: the retry goes at the next round.
    private boolean retryNow;
    private String publishedShortage;
    private long warnedAtNs = System.nanoTime() - WARN_INTERVAL_NS;

    WriteStage(final IoShared shared, final int inFlightMax, final boolean depthMeasured) {
        final StorageSession session = shared.session();
        final StorageCapabilities capabilities = shared.capabilities();
        final LogBuffer logBuffer = shared.logBuffer();
        Invariants.check(
                inFlightMax >= 1 && inFlightMax <= IN_FLIGHT_MAX && (inFlightMax == 1 || capabilities.writesDurable()),
                "writes in flight %d",
                inFlightMax);
        this.session = session;
        this.logBuffer = logBuffer;
        this.state = shared.state();
        this.stats = shared.stats();
        this.positions = shared.positions();
        this.directory = shared.directory();
        this.directIo = capabilities.directIo();
        this.writesDurable = capabilities.writesDurable();
        // Buffered writes of one page may be in flight together: each O_DSYNC write makes its own
        // bytes durable, whatever the other does to the page. Direct writes of one block may not.
        this.blockMask = directIo ? capabilities.blockSizeBytes() - 1L : 0;
        this.inFlightMax = inFlightMax;
        this.depthPolicy = new WriteDepthPolicy(depthMeasured);
        this.writeView = logBuffer.newByteBufferView();
        this.ring = logBuffer.buffer();
        this.scratchMemory = directIo ? new AlignedBuffer(capabilities.blockSizeBytes()) : null;
        this.scratchBlock = directIo ? scratchMemory.buffer() : null;
        this.scratch = directIo ? new UnsafeBuffer(scratchBlock) : null;
        final int slots = BitUtil.findNextPositivePowerOfTwo(inFlightMax);
        this.slotMask = slots - 1;
        this.slotStart = new long[slots];
        this.slotEnd = new long[slots];
        this.slotEndRecords = new long[slots];
        this.slotSubmitNs = new long[slots];
        this.slotFrameBytes = new long[slots];
        this.slotPartsPending = new int[slots];
        this.slotComplete = new boolean[slots];
        this.slotBeside = new boolean[slots];
        this.slotBufferStart = new long[slots];
        this.slotBufferEnd = new long[slots];
        this.slotHasTail = new boolean[slots];
        this.slotNoSpace = new boolean[slots];
    }

    boolean inFlight() {
        return nextSequence != headSequence;
    }

    int inFlightCount() {
        return (int) (nextSequence - headSequence);
    }

    boolean besideAllowed() {
        return inFlightMax > 1 && depthPolicy.allowsBeside();
    }

    /** Whether a write starting at a position may go now: none in flight, or room beside them (class comment). */
    boolean maySubmit(final long start) {
        final int count = inFlightCount();
        return count == 0
                || (!spaceFailed
                        && count < inFlightMax
                        && (start & ~blockMask) >= newestByteEnd
                        && depthPolicy.allowsBeside());
    }

    /** Whether a part of a write is out, whose completion the I/O path waits for. */
    boolean awaitingCompletion() {
        return partsOutstanding > 0;
    }

    /** Whether a write found no space and waits to be submitted again (nothing new goes meanwhile). */
    boolean waitingForSpace() {
        return spaceFailed;
    }

    /** When the write retired last was submitted. */
    long submitNs() {
        return retiredSubmitNs;
    }

    /** Submits a write of the frames at log positions [start, end) of the active segment. */
    void submit(
            final long start,
            final long end,
            final long padLimit,
            final long endRecords,
            final long scannedPosition,
            final long activeBase,
            final int activeHandle,
            final long nowNs,
            final boolean onCaller) {
        Invariants.check(maySubmit(start), "write [%d, %d) beside %d in flight", start, end, inFlightCount());
        Invariants.check(!onCaller || inFlightCount() == 0, "write on the caller beside %d in flight", inFlightCount());
        lastPartOnCaller = onCaller;
        final int slot = (int) (nextSequence & slotMask);
        final long token = CompletionToken.ofWrite(slot);
        nextSequence++;
        stats.recordWritesInFlight(inFlightCount());
        slotComplete[slot] = false;
        slotBeside[slot] = inFlightCount() > 1;
        slotSubmitNs[slot] = nowNs;
        slotStart[slot] = start;
        slotEnd[slot] = end;
        slotEndRecords[slot] = endRecords;
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
            setParts(slot, blockStart, blockEnd, false);
            newestByteEnd = blockEnd;
        } else if (!directIo) {
            // Whole pages where writes are not durable by themselves; an O_DSYNC write would make
            // the padding durable and keep the next write in flight out of its page.
            final long byteEnd = writesDurable ? end : PagePadding.paddedEnd(start, end, padLimit);
            setParts(slot, start, byteEnd, false);
            newestByteEnd = end;
        } else {
            // Whole blocks from the buffer, then the partial last block from scratch memory.
            final long blockEnd = end & ~blockMask;
            setParts(slot, start & ~blockMask, blockEnd, end > blockEnd);
            tailBytes = scratchBlock.capacity();
            newestByteEnd = end > blockEnd ? blockEnd + tailBytes : blockEnd;
        }
        submitParts(slot, activeBase, activeHandle, token);
    }

    private void setParts(final int slot, final long bufferStart, final long bufferEnd, final boolean hasTail) {
        slotBufferStart[slot] = bufferStart;
        slotBufferEnd[slot] = bufferEnd;
        slotHasTail[slot] = hasTail;
        slotFrameBytes[slot] = bufferEnd - bufferStart;
    }

    /**
     * Submits a write of log positions [start, end) straight from the buffer; to {@link
     * StorageSession#submitWriteOnCaller} when it is the write's last part and the caller would only wait.
     */
    private void writeFromBuffer(
            final long start,
            final long end,
            final long activeBase,
            final int activeHandle,
            final long token,
            final boolean onCaller) {
        final long fileOffset = start - activeBase;
        final int sourceOffset = logBuffer.offset(start);
        final int lengthBytes = (int) (end - start);
        if (onCaller) {
            session.submitWriteOnCaller(activeHandle, fileOffset, writeView, sourceOffset, lengthBytes, token);
        } else {
            session.submitWrite(activeHandle, fileOffset, writeView, sourceOffset, lengthBytes, token);
        }
    }

    /** Submits the parts of a slot's write (setParts), the first time or again after no space. */
    private void submitParts(final int slot, final long activeBase, final int activeHandle, final long token) {
        final long bufferStart = slotBufferStart[slot];
        final long bufferEnd = slotBufferEnd[slot];
        final boolean hasTail = slotHasTail[slot];
        final int parts = (bufferEnd > bufferStart ? 1 : 0) + (hasTail ? 1 : 0);
        slotPartsPending[slot] = parts;
        partsOutstanding += parts;
        if (bufferEnd > bufferStart) {
            writeFromBuffer(bufferStart, bufferEnd, activeBase, activeHandle, token, lastPartOnCaller && !hasTail);
        }
        if (hasTail) {
            // The partial last block: no later write is in flight beside it (maySubmit), and none
            // before it has a part here (a write with a partial block is the newest in flight).
            Invariants.check(scratchSlot < 0, "scratch block of slot %d in use", scratchSlot);
            scratchSlot = slot;
            final int tailLength = (int) (slotEnd[slot] - bufferEnd);
            scratch.putBytes(0, ring, logBuffer.offset(bufferEnd), tailLength);
            scratch.setMemory(tailLength, scratchBlock.capacity() - tailLength, (byte) 0);
            final long tailToken = token | CompletionToken.WRITE_TAIL;
            if (lastPartOnCaller) {
                session.submitWriteOnCaller(
                        activeHandle, bufferEnd - activeBase, scratchBlock, 0, scratchBlock.capacity(), tailToken);
            } else {
                session.submitWrite(
                        activeHandle, bufferEnd - activeBase, scratchBlock, 0, scratchBlock.capacity(), tailToken);
            }
        }
    }

    /** Settles a part of a write in flight. */
    Outcome onComplete(final long token, final long result) {
        final int slot = CompletionToken.writeSlot(token);
        final boolean tail = CompletionToken.isWriteTail(token);
        Invariants.check(
                inFlight()
                        && ((slot - headSequence) & slotMask) < inFlightCount()
                        && !slotComplete[slot]
                        && slotPartsPending[slot] > 0,
                "unexpected write completion of %d bytes, slot %d",
                result,
                slot);
        partsOutstanding--;
        if (result != (tail ? tailBytes : slotFrameBytes[slot])) {
            return Outcome.SHORT;
        }
        if (tail) {
            scratchSlot = -1;
        }
        stats.recordWrite(result);
        if (spaceFailed) {
            drained();
        }
        if (--slotPartsPending[slot] > 0 || slotNoSpace[slot]) {
            // Another part is out, or one found no space: that write is not done.
            return Outcome.PART_PENDING;
        }
        slotComplete[slot] = true;
        if (publishedShortage != null && !spaceFailed) {
            LOGGER.log(System.Logger.Level.DEBUG, "a write to the log in " + directory + " found space again");
            state.clearWriteSpaceShortage(publishedShortage);
            publishedShortage = null;
        }
        if (inFlightMax > 1) {
            depthPolicy.onCompleted(System.nanoTime() - slotSubmitNs[slot], slotBeside[slot]);
        }
        return Outcome.COMPLETE;
    }

    /**
     * A part of a write in flight failed. ENOSPC (or EDQUOT) is back-pressure (class comment): true,
     * and the appenders are told why they wait; anything else fails the log (false).
     */
    boolean onNoSpace(final long token, final IOException failure) {
        if (!NoSpace.isNoSpace(failure)) {
            return false;
        }
        final int slot = CompletionToken.writeSlot(token);
        Invariants.check(
                inFlight() && ((slot - headSequence) & slotMask) < inFlightCount() && slotPartsPending[slot] > 0,
                "unexpected write failure, slot %d",
                slot);
        partsOutstanding--;
        slotPartsPending[slot]--;
        slotNoSpace[slot] = true;
        if (CompletionToken.isWriteTail(token)) {
            scratchSlot = -1;
        }
        if (!spaceFailed) {
            stats.recordWriteNoSpace();
            publishShortage(slot, failure);
        }
        spaceFailed = true;
        drained();
        return true;
    }

    /** Once no part is outstanding after a failure for space, the writes wait their retry time. */
    private void drained() {
        if (partsOutstanding == 0) {
            retryAtNs = System.nanoTime() + SegmentPreparer.NO_SPACE_RETRY_NS;
        }
    }

    /** Space may have appeared (retention deleted segments): writes waiting for it go at the next round. */
    void spaceFreed() {
        retryNow = spaceFailed;
    }

    /**
     * Submits again every write not yet retired, in order, once the writes drained after a failure for
     * space and the retry time came (class comment); the number of writes submitted.
     */
    int retryForSpace(final long nowNs, final long activeBase, final int activeHandle) {
        if (!spaceFailed || partsOutstanding > 0 || (!retryNow && nowNs - retryAtNs < 0)) {
            return 0;
        }
        spaceFailed = false;
        retryNow = false;
        lastPartOnCaller = false;
        for (long sequence = headSequence; sequence != nextSequence; sequence++) {
            final int slot = (int) (sequence & slotMask);
            slotComplete[slot] = false;
            slotNoSpace[slot] = false;
            slotSubmitNs[slot] = nowNs;
            submitParts(slot, activeBase, activeHandle, CompletionToken.ofWrite(slot));
        }
        return inFlightCount();
    }

    private void publishShortage(final int slot, final IOException failure) {
        final long bytes = slotEnd[slot] - slotStart[slot];
        final String shortage = "a write of " + bytes + " bytes (log positions [" + slotStart[slot] + ", "
                + slotEnd[slot] + ")) found no space in " + directory + ": the file system is full ("
                + NoSpace.freeSpace(directory, failure) + "; " + failure.getMessage()
                + "). The log keeps the records and writes them " + SegmentPreparer.RETRY_ADVICE;
        if (publishedShortage == null) {
            // Once per shortage, and once a second at most: the retries only update what appenders read.
            final long nowNs = System.nanoTime();
            final boolean warn = nowNs - warnedAtNs >= WARN_INTERVAL_NS;
            warnedAtNs = warn ? nowNs : warnedAtNs;
            LOGGER.log(warn ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG, shortage);
        } else {
            state.clearWriteSpaceShortage(publishedShortage);
        }
        publishedShortage = shortage;
        state.writeSpaceShortage(shortage);
    }

    /** Retires the oldest write in flight if it completed (the contiguous prefix); see {@link #publishWritten}. */
    boolean retireOldest() {
        if (!inFlight()) {
            return false;
        }
        final int slot = (int) (headSequence & slotMask);
        if (!slotComplete[slot]) {
            return false;
        }
        Invariants.check(
                slotStart[slot] == positions.written(),
                "write [%d, %d) retired with the written position at %d",
                slotStart[slot],
                slotEnd[slot],
                positions.written());
        retiredEnd = slotEnd[slot];
        retiredEndRecords = slotEndRecords[slot];
        retiredSubmitNs = slotSubmitNs[slot];
        headSequence++;
        return true;
    }

    /**
     * Publishes what the write retired last made visible: the written position and record count,
     * and the buffer's space below it (with direct I/O, below the partial last block). Written is
     * published before anyone can publish durable past it.
     */
    boolean publishWritten() {
        if (retiredEnd == positions.written()) {
            positions.written(retiredEnd, retiredEndRecords, positions.released());
            return false;
        }
        positions.written(retiredEnd, retiredEndRecords, directIo ? retiredEnd & ~blockMask : retiredEnd);
        logBuffer.release(positions.released());
        state.publishWritten(retiredEnd);
        return true;
    }

    /** The failure of a short write (the SPI forbids one): never taken for a whole write. */
    IOException shortWriteFailure(final long token, final long result, final long activeBase) {
        final int slot = CompletionToken.writeSlot(token);
        final long startPosition = slotStart[slot];
        final long endPosition = slotEnd[slot];
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
