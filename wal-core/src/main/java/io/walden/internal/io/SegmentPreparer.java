package io.walden.internal.io;

import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.events.SegmentPreparationEvent;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.SegmentFill;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.WriteLimits;
import io.walden.internal.state.AlignedBuffer;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.NoSpace;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Prepares the next segment ahead of need: a temporary file, allocated (or its last block written,
 * a hole before it), its header with a write limit one window past it, synced, renamed into place,
 * the directory synced. Nothing is zero-filled: the log writes every byte once, below a durable
 * limit it raises ahead of its writes; unwritten bytes read as zeros (docs/design/full-disks.md).
 * A freed file is recycled instead, its first window zeroed (docs/design/recycling.md). With {@link
 * io.walden.WalConfig#zeroFillSegments} a new file is zero-filled after its header, a sync every
 * {@link SegmentFill#PREPARE_CHUNK_BYTES}, until {@link #stopZeroFill} (the appenders came near): a
 * segment zero-filled in part is valid as it is, below its limit.
 *
 * <pre>
 *   IDLE -> ALLOCATING -> WRITING -> SYNCING -> RENAMING -> SYNCING_DIRECTORY -> READY -> (taken) IDLE
 * </pre>
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; one step in flight at a time.
 */
final class SegmentPreparer implements AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(SegmentPreparer.class.getName());

    enum State {
        IDLE,
        ALLOCATING,
        WRITING,
        SYNCING,
        RENAMING,
        SYNCING_DIRECTORY,
        READY
    }

    /** Retry delay of a step that failed for space (appends wait at the active segment's end meanwhile). */
    static final long NO_SPACE_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(100);

    // What a write that found no space does next, for the messages of the writes and header writes.
    static final String RETRY_ADVICE = "again every " + TimeUnit.NANOSECONDS.toMillis(NO_SPACE_RETRY_NS)
            + " ms and after each truncateBefore; appends wait meanwhile: free space (Wal.truncateBefore, or"
            + " other files)";

    /** The block written last in an unallocated new file to give it its full length: a multiple of any direct I/O block. */
    private static final int BLOCK_BYTES = SegmentHeaderDescriptor.HEADER_LENGTH;

    /** Zero-fill write size (a recycled file's first window) where writes run on the caller (FileChannel). */
    static final int INLINE_WRITE_BYTES = 4 * 1024;

    private final StorageSession session;
    private final Path directory;
    private final int segmentCapacityBytes;
    private final int writeBytes;
    private final long logId;
    private final long token;
    private final int initialLimitOffset;
    private final AlignedBuffer headerMemory;
    private final AlignedBuffer zeroMemory;
    private final ByteBuffer headerBlock;
    private final ByteBuffer zeroChunk;
    private final FreeSegments free;
    private final boolean zeroFill;

    private State state = State.IDLE;
    private boolean operationInFlight;
    private long basePosition = -1;
    private int fileHandle = -1;
    private long writtenOffset;
    private long syncedOffset;
    private int pendingLength;
    // Whether the new file being prepared is still being zero-filled.
    private boolean zeroFilling;
    // Whether the new file was allocated to its full size (fallocate); else its last block is written.
    private boolean allocated;
    // The free file being made the segment (null for a new file).
    private Path recycledFrom;
    // The ready segment's write limit (zero: none, a segment an older build zero-filled) and whether it
    // is recycled (its header keeps the flag).
    private int readyLimitOffset;
    private boolean readyRecycled;
    // The Flight Recorder event of the preparation in progress, null unless a recording has it enabled.
    private SegmentPreparationEvent event;
    // Why the last preparation failed for space (null once one succeeds), and when to try again.
    private String spaceShortage;
    private long retryAtNs;

    SegmentPreparer(
            final StorageSession session,
            final Path directory,
            final int segmentCapacityBytes,
            final int writeBytes,
            final long logId,
            final FreeSegments free,
            final boolean zeroFill) {
        Invariants.check(
                writeBytes > 0 && writeBytes % BLOCK_BYTES == 0 && writeBytes <= SegmentFill.PREPARE_WRITE_BYTES,
                "zero-fill write size %d",
                writeBytes);
        this.session = session;
        this.directory = directory;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.writeBytes = writeBytes;
        this.logId = logId;
        this.token = CompletionToken.of(CompletionToken.PREPARE);
        this.free = free;
        this.zeroFill = zeroFill;
        this.initialLimitOffset = WriteLimits.initialLimit(SegmentHeaderDescriptor.HEADER_LENGTH, segmentCapacityBytes);
        this.headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
        this.zeroMemory = new AlignedBuffer(writeBytes);
        this.headerBlock = headerMemory.buffer();
        this.zeroChunk = zeroMemory.buffer();
    }

    /** Starts preparing a segment; a no-op if one is being prepared or ready, or a space retry is not due. */
    void start(final long newBasePosition) throws IOException {
        if (state != State.IDLE) {
            Invariants.check(
                    basePosition == newBasePosition, "preparing %d, asked for %d", basePosition, newBasePosition);
            return;
        }
        if (waitingForSpace()) {
            return;
        }
        SegmentHeaders.write(headerBlock, segmentCapacityBytes, newBasePosition, logId);
        final Path reuse = free.take();
        if (reuse != null && startRecycled(newBasePosition, reuse)) {
            return;
        }
        try {
            fileHandle = session.openFile(directory.resolve(SegmentNames.temporaryName(newBasePosition)), true);
        } catch (final IOException ex) {
            if (!NoSpace.isNoSpace(ex)) {
                throw ex;
            }
            noSpace(newBasePosition, ex);
            retryAtNs = System.nanoTime() + NO_SPACE_RETRY_NS;
            return;
        }
        SegmentHeaders.writeLimitAndContinued(headerBlock, initialLimitOffset, false);
        begin(newBasePosition, null, State.ALLOCATING);
    }

    /** Starts making a freed file the segment: header and the first window only, no allocation. */
    private boolean startRecycled(final long newBasePosition, final Path reuse) {
        try {
            fileHandle = session.openFile(reuse, false);
        } catch (final IOException ex) {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    "cannot reuse the freed segment file " + reuse + " (" + ex + "); preparing a new file instead");
            return false;
        }
        SegmentHeaders.writeRecycled(headerBlock, initialLimitOffset);
        // A freed file has its full size already: no allocation.
        begin(newBasePosition, reuse, State.WRITING);
        return true;
    }

    private void begin(final long newBasePosition, final Path reuse, final State first) {
        basePosition = newBasePosition;
        writtenOffset = 0;
        syncedOffset = 0;
        allocated = reuse != null;
        zeroFilling = zeroFill && reuse == null;
        recycledFrom = reuse;
        event = SegmentPreparationEvent.beginIfEnabled();
        state = first;
    }

    /** Submits the next step if none is in flight. */
    int doWork() {
        if (operationInFlight || state == State.IDLE || state == State.READY || waitingForSpace()) {
            return 0;
        }
        switch (state) {
            case ALLOCATING -> session.submitAllocate(fileHandle, 0, segmentCapacityBytes, token);
            case WRITING -> {
                if (writtenOffset >= writesEndOffset()) {
                    // The zero-fill was stopped with the file allocated: nothing more to write.
                    state = State.SYNCING;
                    session.submitSync(fileHandle, token);
                } else {
                    submitWrite();
                }
            }
            case SYNCING -> session.submitSync(fileHandle, token);
            case RENAMING ->
                session.submitRename(
                        recycledFrom != null
                                ? recycledFrom
                                : directory.resolve(SegmentNames.temporaryName(basePosition)),
                        SegmentNames.segmentPath(directory, basePosition),
                        token);
            case SYNCING_DIRECTORY -> session.submitSyncDirectory(token);
            default -> throw new AssertionError("unexpected preparer state " + state);
        }
        operationInFlight = true;
        return 1;
    }

    /** The header; then zeros up to a recycled file's limit, or an unallocated file's last block. */
    private void submitWrite() {
        final boolean header = writtenOffset == 0;
        final ByteBuffer source;
        if (header) {
            pendingLength = SegmentHeaderDescriptor.HEADER_LENGTH;
            source = headerBlock;
        } else if (recycledFrom != null || zeroFilling) {
            pendingLength = (int) Math.min(writeBytes, writesEndOffset() - writtenOffset);
            source = zeroChunk;
        } else {
            writtenOffset = segmentCapacityBytes - BLOCK_BYTES;
            pendingLength = BLOCK_BYTES;
            source = zeroChunk;
        }
        Invariants.check(
                (writtenOffset & (BLOCK_BYTES - 1)) == 0 && pendingLength > 0,
                "preparation write of %d bytes at offset %d",
                pendingLength,
                writtenOffset);
        session.submitWrite(fileHandle, writtenOffset, source, 0, pendingLength, token);
    }

    /** Where the writes of this preparation end: the limit of a recycled file, the end of an unallocated one. */
    private long writesEndOffset() {
        if (recycledFrom != null) {
            return initialLimitOffset;
        }
        return zeroFilling || !allocated && segmentCapacityBytes > BLOCK_BYTES ? segmentCapacityBytes : BLOCK_BYTES;
    }

    /** The submitted step completed; a short write (against the SPI) throws: the segment would be incomplete. */
    void onCompletion(final long result) throws IOException {
        operationInFlight = false;
        switch (state) {
            case ALLOCATING -> {
                Invariants.check(
                        result == 0 || result == segmentCapacityBytes,
                        "allocated %d of %d",
                        result,
                        segmentCapacityBytes);
                allocated = result == segmentCapacityBytes;
                state = State.WRITING;
            }
            case WRITING -> {
                if (result != pendingLength) {
                    throw new IOException("short write: the storage backend reported " + result + " of "
                            + pendingLength + " bytes written at offset " + writtenOffset + " of "
                            + directory.resolve(SegmentNames.temporaryName(basePosition))
                            + " without an error; a backend must finish a short write or fail it");
                }
                writtenOffset += pendingLength;
                if (writtenOffset >= writesEndOffset()
                        || writtenOffset - syncedOffset >= SegmentFill.PREPARE_CHUNK_BYTES) {
                    state = State.SYNCING;
                }
            }
            case SYNCING -> {
                syncedOffset = writtenOffset;
                state = writtenOffset >= writesEndOffset() ? State.RENAMING : State.WRITING;
            }
            case RENAMING -> state = State.SYNCING_DIRECTORY;
            case SYNCING_DIRECTORY -> {
                state = State.READY;
                readyLimitOffset = initialLimitOffset;
                readyRecycled = recycledFrom != null;
                spaceShortage = null;
                commitEvent();
            }
            default -> throw new AssertionError("completion in preparer state " + state);
        }
    }

    private void commitEvent() {
        final SegmentPreparationEvent finished = event;
        if (finished == null) {
            return;
        }
        event = null;
        finished.end();
        if (finished.shouldCommit()) {
            finished.directory = directory.toString();
            finished.basePosition = basePosition;
            finished.allocated = allocated;
            finished.recycled = recycledFrom != null;
            finished.commit();
        }
    }

    /**
     * A step failed. A full file system while the file is allocated, written, synced or renamed (XFS
     * may need a block for the directory entry) is no failure of the log: the step is tried again
     * {@link #NO_SPACE_RETRY_NS} later. The file holds no record, so nothing acknowledged can be lost;
     * it keeps its space, which the next segment needs anyway, and is deleted if the log closes.
     */
    boolean onFailure(final IOException failure) {
        if (!NoSpace.isNoSpace(failure)
                || !(state == State.ALLOCATING
                        || state == State.WRITING
                        || state == State.SYNCING
                        || state == State.RENAMING)) {
            return false;
        }
        operationInFlight = false;
        noSpace(basePosition, failure);
        retryAtNs = System.nanoTime() + NO_SPACE_RETRY_NS;
        if (state == State.SYNCING) {
            // What the failed sync covered is written again.
            writtenOffset = syncedOffset;
            state = State.WRITING;
        }
        return true;
    }

    private void noSpace(final long segmentBase, final IOException failure) {
        spaceShortage = "the next segment, " + SegmentNames.segmentName(segmentBase) + " (" + segmentCapacityBytes
                + " bytes), cannot be prepared in " + directory + ": the file system is full ("
                + NoSpace.freeSpace(directory, failure) + "; " + failure.getMessage()
                + "). Appends wait at the end of the active segment and go on by themselves once there is space:"
                + " free space (Wal.truncateBefore, or other files)";
    }

    /** Why the next segment cannot be prepared for lack of space, until a preparation succeeds. */
    String spaceShortage() {
        return spaceShortage;
    }

    /** The appenders came near the segment's end: the rest of a zero-fill is skipped (class comment). */
    void stopZeroFill() {
        zeroFilling = false;
    }

    boolean isReady(final long position) {
        return state == State.READY && basePosition == position;
    }

    /** Whether no segment is being prepared or ready (none started, or one given up for space). */
    boolean isIdle() {
        return state == State.IDLE;
    }

    boolean hasStepToSubmit() {
        return !operationInFlight && state != State.IDLE && state != State.READY && !waitingForSpace();
    }

    /** Whether a step that found no space waits for its retry time (the I/O thread's parks reach it). */
    private boolean waitingForSpace() {
        return spaceShortage != null && System.nanoTime() - retryAtNs < 0;
    }

    boolean isOperationInFlight() {
        return operationInFlight;
    }

    /**
     * Gives up an unfinished preparation at close: closes and deletes the temporary file (a free file
     * stays free). A segment already renamed into place is complete and stays.
     */
    void abandon(final BlockingIo io, final boolean afterFailure) throws IOException {
        Invariants.check(!operationInFlight || afterFailure, "abandoning with an operation in flight");
        operationInFlight = false;
        if (state == State.ALLOCATING || state == State.WRITING || state == State.SYNCING || state == State.RENAMING) {
            session.closeFile(fileHandle);
            fileHandle = -1;
            // A free file stays one (the next open finds it again); a new file was only temporary.
            if (recycledFrom == null) {
                io.delete(directory.resolve(SegmentNames.temporaryName(basePosition)));
            }
            recycledFrom = null;
            basePosition = -1;
            state = State.IDLE;
        }
    }

    /** Hands over the prepared segment's file handle; the preparer becomes idle. */
    int take() {
        Invariants.check(state == State.READY, "take in state %s", state);
        recycledFrom = null;
        final int handle = fileHandle;
        fileHandle = -1;
        basePosition = -1;
        state = State.IDLE;
        return handle;
    }

    /** Takes over a segment recovery found prepared, with the limit its header records (older builds: none). */
    void adoptReady(final long position, final int handle) throws IOException {
        Invariants.check(state == State.IDLE, "adopt in state %s", state);
        basePosition = position;
        fileHandle = handle;
        final ByteBuffer header = FileReads.readHeader(SegmentNames.segmentPath(directory, position));
        final boolean valid = header != null && SegmentHeaderDecoder.checksumMatches(header);
        readyLimitOffset = valid ? SegmentHeaderDecoder.writeLimitOffset(header) : 0;
        readyRecycled = valid && SegmentHeaderDecoder.recycled(header);
        state = State.READY;
    }

    /** The ready segment's write limit, where the roll starts the writer (0: none); before take. */
    int readyLimitOffset() {
        Invariants.check(state == State.READY, "limit asked in state %s", state);
        return readyLimitOffset;
    }

    /** Whether the ready segment is recycled; before take. */
    boolean readyRecycled() {
        Invariants.check(state == State.READY, "recycled asked in state %s", state);
        return readyRecycled;
    }

    /** Frees memory. The session closes the file handles. */
    @Override
    public void close() {
        headerMemory.close();
        zeroMemory.close();
    }
}
