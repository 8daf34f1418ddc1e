package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.events.SegmentPreparationEvent;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.SegmentFill;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.segment.WriteLimits;
import io.walden.internal.state.AlignedBuffer;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.NoSpace;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Prepares the next segment ahead of need, so that syncing the active segment commits data only:
 * the file is created under a temporary name, allocated (fallocate, where offered), its header
 * written, the rest zero-filled and synced chunk by chunk, and only then renamed into place and the
 * directory synced. A file with a segment name is therefore always complete and durable. Why
 * zero-fill after allocating: docs/design/backends.md.
 *
 * <pre>
 *   IDLE -> ALLOCATING -> WRITING <-> SYNCING -> RENAMING -> SYNCING_DIRECTORY -> READY -> (taken) IDLE
 * </pre>
 *
 * <p>{@link #hurry()} skips the rest of the zero-fill when the appenders outrun it: the file gets
 * its full size (from fallocate, or by writing its last block if {@link #roomForHole there is room
 * for the hole}) and is synced and renamed at once; unwritten space reads as zeros. A file {@link
 * FreeSegments} holds is recycled instead (docs/design/recycling.md): its header is rewritten for
 * the new base with {@link io.walden.format.SegmentHeaderDescriptor#FLAG_RECYCLED} and a write
 * limit one window past the header ({@link WriteLimits#initialLimit}), and only that window is
 * zero-filled.
 *
 * <p>One operation is in flight at a time, and each zero-fill sync covers at most {@link
 * SegmentFill#PREPARE_CHUNK_BYTES}, so a data sync queued behind preparation waits for one chunk at
 * most.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; steps are submitted by the I/O thread
 * only, and their completions settled by whichever holder delivers them.
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

    /** What gives a hurried, unallocated file its full size: its last block, a multiple of any direct I/O block. */
    private static final int HURRIED_TAIL_BYTES = SegmentHeaderDescriptor.HEADER_LENGTH;

    /**
     * Zero-fill write size where writes run on the submitting thread (FileChannel): one page, keeping
     * page-cache folios small; a lone appender that comes meanwhile waits for it.
     */
    static final int INLINE_WRITE_BYTES = 4 * 1024;

    private final StorageSession session;
    private final Path directory;
    private final int segmentCapacityBytes;
    private final int writeBytes;
    private final long logId;
    private final long token;
    private final AlignedBuffer headerMemory;
    private final AlignedBuffer zeroMemory;
    private final ByteBuffer headerBlock;
    private final ByteBuffer zeroChunk;
    private final FreeSegments free;
    private final SpaceProbe usableSpace;

    private State state = State.IDLE;
    private boolean operationInFlight;
    private long basePosition = -1;
    private int fileHandle = -1;
    private long writtenOffset;
    private long syncedOffset;
    private int pendingLength;
    // Whether the segment being prepared was allocated to its full size (fallocate), and whether the
    // rest of its zero-fill is to be skipped.
    private boolean allocated;
    private boolean hurried;
    // The free file being made the segment (null for a new file), and where its zero-fill ends: the
    // recycled segment's write limit, or the capacity of a new file.
    private Path recycledFrom;
    private int fillEndOffset;
    // The ready segment's write limit if it is recycled, else zero.
    private int readyLimitOffset;
    // When the file system was last asked whether a hurried segment's hole would fit, and its answer.
    private long holeCheckedAtNs;
    private boolean roomForHole;
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
            final SpaceProbe usableSpace) {
        Invariants.check(
                writeBytes > 0 && writeBytes % HURRIED_TAIL_BYTES == 0 && writeBytes <= SegmentFill.PREPARE_WRITE_BYTES,
                "zero-fill write size %d",
                writeBytes);
        this.session = session;
        this.directory = directory;
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.writeBytes = writeBytes;
        this.logId = logId;
        this.token = CompletionToken.of(CompletionToken.PREPARE);
        this.free = free;
        this.usableSpace = usableSpace;
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
        begin(newBasePosition, null, segmentCapacityBytes, State.ALLOCATING);
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
        final int limit = WriteLimits.initialLimit(SegmentHeaderDescriptor.HEADER_LENGTH, segmentCapacityBytes);
        SegmentHeaders.writeRecycled(headerBlock, limit);
        // A freed file has its full size already: no allocation.
        begin(newBasePosition, reuse, limit, State.WRITING);
        return true;
    }

    private void begin(final long newBasePosition, final Path reuse, final int fillEnd, final State first) {
        basePosition = newBasePosition;
        writtenOffset = 0;
        syncedOffset = 0;
        allocated = reuse != null;
        hurried = false;
        recycledFrom = reuse;
        fillEndOffset = fillEnd;
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
                final boolean header = writtenOffset == 0;
                if (hurried
                        && recycledFrom == null
                        && !header
                        && writtenOffset < segmentCapacityBytes - HURRIED_TAIL_BYTES) {
                    if (allocated) {
                        // Full size already: sync what was written, then rename.
                        writtenOffset = fillEndOffset;
                        state = State.SYNCING;
                        session.submitSync(fileHandle, token);
                        operationInFlight = true;
                        return 1;
                    }
                    if (roomForHole()) {
                        // Writing the last block gives the file its full size; the skipped range is a hole.
                        writtenOffset = segmentCapacityBytes - HURRIED_TAIL_BYTES;
                    }
                    // Else no room for the hole (see roomForHole): the zero-fill goes on.
                }
                pendingLength = header
                        ? SegmentHeaderDescriptor.HEADER_LENGTH
                        : (int) Math.min(writeBytes, fillEndOffset - writtenOffset);
                Invariants.check(
                        (writtenOffset & (HURRIED_TAIL_BYTES - 1)) == 0 && pendingLength > 0,
                        "zero-fill write of %d bytes at offset %d",
                        pendingLength,
                        writtenOffset);
                session.submitWrite(
                        fileHandle, writtenOffset, header ? headerBlock : zeroChunk, 0, pendingLength, token);
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
                if (writtenOffset - syncedOffset >= SegmentFill.PREPARE_CHUNK_BYTES || writtenOffset == fillEndOffset) {
                    state = State.SYNCING;
                }
            }
            case SYNCING -> {
                syncedOffset = writtenOffset;
                state = syncedOffset >= fillEndOffset ? State.RENAMING : State.WRITING;
            }
            case RENAMING -> state = State.SYNCING_DIRECTORY;
            case SYNCING_DIRECTORY -> {
                state = State.READY;
                readyLimitOffset = recycledFrom != null ? fillEndOffset : 0;
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
            finished.hurried = hurried;
            finished.recycled = recycledFrom != null;
            finished.commit();
        }
    }

    /** The usable space of the log's file system, asked before a hurried segment leaves a hole. */
    @FunctionalInterface
    interface SpaceProbe {
        long usableBytes() throws IOException;

        static SpaceProbe of(final Path directory) {
            return () -> Files.getFileStore(directory).getUsableSpace();
        }
    }

    /**
     * Whether there is room for the hole a hurried, unallocated segment leaves (a data write that finds
     * no space fails the log). Asked at most once per {@link #NO_SPACE_RETRY_NS}; unknown means no.
     */
    private boolean roomForHole() {
        final long nowNs = System.nanoTime();
        if (holeCheckedAtNs != 0 && nowNs - holeCheckedAtNs < NO_SPACE_RETRY_NS) {
            return roomForHole;
        }
        holeCheckedAtNs = nowNs;
        try {
            roomForHole = usableSpace.usableBytes() >= segmentCapacityBytes - writtenOffset;
        } catch (final IOException ex) {
            roomForHole = false;
        }
        return roomForHole;
    }

    /** Skips the rest of the zero-fill; a no-op when idle, already hurried, recycling or past zero-filling. */
    boolean hurry() {
        if (!hurried
                && recycledFrom == null
                && (state == State.ALLOCATING || state == State.WRITING || state == State.SYNCING)) {
            hurried = true;
            return true;
        }
        return false;
    }

    /**
     * A step failed. A full file system while the temporary file is allocated, zero-filled or synced is
     * no failure of the log: the step is tried again {@link #NO_SPACE_RETRY_NS} later. The file holds
     * no record, so nothing acknowledged can
     * be lost; it keeps its space, which the next segment needs anyway, and is deleted if the log closes.
     */
    boolean onFailure(final IOException failure) {
        if (!NoSpace.isNoSpace(failure)
                || !(state == State.ALLOCATING || state == State.WRITING || state == State.SYNCING)) {
            return false;
        }
        operationInFlight = false;
        noSpace(basePosition, failure);
        retryAtNs = System.nanoTime() + NO_SPACE_RETRY_NS;
        if (state == State.SYNCING) {
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

    boolean isHurried() {
        return hurried;
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

    void adoptReady(final long position, final int handle) throws IOException {
        Invariants.check(state == State.IDLE, "adopt in state %s", state);
        basePosition = position;
        fileHandle = handle;
        readyLimitOffset = SegmentHeaders.recycledLimit(SegmentNames.segmentPath(directory, position));
        state = State.READY;
    }

    /** The ready segment's write limit if it is recycled (the roll starts the writer there), else 0; before take. */
    int readyLimitOffset() {
        Invariants.check(state == State.READY, "limit asked in state %s", state);
        return readyLimitOffset;
    }

    /** Frees memory. The session closes the file handles. */
    @Override
    public void close() {
        headerMemory.close();
        zeroMemory.close();
    }
}
