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
 * the file is created under a temporary name, its whole capacity is allocated (fallocate, where the
 * backend and file system offer it: a full disk shows up here, ahead of need, and the extents are
 * contiguous), its header is written, the rest is written with zeros and synced chunk by chunk, and
 * only then is it renamed into place and the directory synced. A file with a segment name is
 * therefore always complete and durable.
 *
 * <p>Allocation alone is not enough: fallocate leaves extents marked unwritten, and the first
 * write into one changes metadata that the next fdatasync must commit. Zero-filling converts them
 * once, in the background, so that a data sync commits data only.
 *
 * <p><b>Hurrying.</b> Zero-filling is an optimisation of sync cost, paid with a second write of
 * every byte. When the appenders outrun it (a bandwidth-bound load, where syncs are rare and the
 * disk has no time to spare), the I/O thread calls {@link #hurry()}: the rest of the zero-fill is
 * skipped, the file gets its full size (from fallocate, or by writing its last block, which leaves
 * a hole that reads as zeros), and the segment is synced, renamed and made durable at once. The
 * segment is as valid as a zero-filled one, since unwritten space reads as zeros either way; only
 * its syncs may also commit extent metadata. A hole is left only while the file system has room for
 * it: its blocks are allocated when frames reach them, and a write into a ready segment that finds no
 * space fails the log, where a zero-fill write that finds none is back-pressure.
 *
 * <pre>
 *   IDLE -> ALLOCATING -> WRITING <-> SYNCING -> RENAMING -> SYNCING_DIRECTORY -> READY -> (taken) IDLE
 * </pre>
 *
 * <p><b>Recycling.</b> When {@link FreeSegments} holds a file that retention freed, that file becomes
 * the segment instead: no allocation and no zero-fill. Its header is rewritten for the new base
 * with {@link io.walden.format.SegmentHeaderDescriptor#FLAG_RECYCLED} and a write limit one window
 * past the header ({@link WriteLimits#initialLimit}), the window below the limit is written with zeros
 * (so that an unused recycled segment reads as zeros as far as it is this segment's), the file is
 * synced, renamed from its free name into place and the directory synced. The rest of the file holds
 * the stale frames of its earlier life, which every reader takes for zeros past the limit, and the
 * writer raises the limit, durably, before it writes past it.
 *
 * <p>One operation is in flight at a time, and each zero-fill sync covers at most {@link
 * SegmentFill#PREPARE_CHUNK_BYTES}, so a data sync queued behind preparation waits for one chunk at
 * most. Zero-fill writes are small, so that the page cache keeps small folios for the segment and
 * the log's own small writes into it stay cheap: {@link SegmentFill#PREPARE_WRITE_BYTES} each where
 * operations complete on the backend's own thread, {@link #INLINE_WRITE_BYTES} where writes run on
 * the submitting thread (see there).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty; steps are submitted by the I/O thread
 * only, and their completions settled by whichever holder delivers them.
 */
final class SegmentPreparer implements AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(SegmentPreparer.class.getName());

    /** Preparation steps. */
    enum State {
        IDLE,
        ALLOCATING,
        WRITING,
        SYNCING,
        RENAMING,
        SYNCING_DIRECTORY,
        READY
    }

    /**
     * How long after a step of a preparation failed for space it is tried again. Appends go on in the
     * active segment meanwhile, and wait at its end; a retry costs one allocation, write or sync.
     */
    static final long NO_SPACE_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * What a hurried preparation writes at the end of an unallocated file to give it its full size: one
     * header-sized block, a multiple of any direct I/O block size (at most the header length).
     */
    private static final int HURRIED_TAIL_BYTES = SegmentHeaderDescriptor.HEADER_LENGTH;

    /**
     * Size of each zero-fill write where the backend runs writes on the submitting thread (FileChannel):
     * one page, and the largest direct I/O block. Each such write then runs on the I/O thread under
     * the I/O duty, and a lone appender that comes meanwhile hands its record over and waits for it.
     * Measured against 16 KiB writes on the development machine (paired runs): one writer WRITTEN
     * 1.09x, SYNCED 4 KiB 1.08x. With io_uring the same change cost about a tenth of the one-writer
     * SYNCED rate (four times the operations through its event loop), so it keeps {@link
     * SegmentFill#PREPARE_WRITE_BYTES}.
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

    /**
     * Starts preparing a segment. No-op if it is already being prepared or ready.
     *
     * @throws IOException if the temporary file cannot be created.
     */
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

    /** Records a preparation that begins, its file open and its header filled in. */
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
                    // Else the file system lacks the blocks the hole would need when frames reach it:
                    // the zero-fill goes on, where a write that finds no space is back-pressure (in a
                    // ready segment it would fail the log).
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

    /**
     * The submitted step completed successfully.
     *
     * @throws IOException if a write reports fewer bytes than it was given (a short write the backend
     *     neither finished nor failed, against the SPI): the segment would not be fully prepared.
     */
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
        /**
         * @throws IOException if the file system cannot be asked.
         */
        long usableBytes() throws IOException;

        /** The probe of a directory's file store. */
        static SpaceProbe of(final Path directory) {
            return () -> Files.getFileStore(directory).getUsableSpace();
        }
    }

    /**
     * Whether the file system has room for the unwritten range a hurried, unallocated segment would
     * leave: its blocks are allocated only when frames are written there, and a data write that finds
     * no space fails the log. Asked at most once per {@link #NO_SPACE_RETRY_NS}; an unknown answer is
     * no.
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

    /**
     * Skips the rest of the zero-fill of the segment being prepared, so that it is ready after a few
     * operations: the appenders need it. No-op when idle, already hurried, or past zero-filling.
     */
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
     * A step failed. A full file system while the temporary file is allocated, zero-filled or synced
     * is no failure of the log: the step is tried again {@link #NO_SPACE_RETRY_NS} later, while appends
     * go on in the active segment (a failed sync is redone from the last synced offset, its writes
     * with it). The temporary file holds no record, so nothing the log acknowledged can be lost by
     * that; it keeps the space it already has, which the next segment needs anyway, and is deleted
     * if the log closes first.
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
        long freeBytes = -1;
        try {
            freeBytes = Files.getFileStore(directory).getUsableSpace();
        } catch (final IOException ex) {
            failure.addSuppressed(ex);
        }
        spaceShortage = "the next segment, " + SegmentNames.segmentName(segmentBase) + " (" + segmentCapacityBytes
                + " bytes), cannot be prepared in " + directory + ": the file system is full ("
                + (freeBytes >= 0 ? freeBytes + " bytes free" : "free space unknown") + "; " + failure.getMessage()
                + "). Appends wait at the end of the active segment and go on by themselves once there is space:"
                + " free space (Wal.truncateBefore, or other files)";
    }

    /** Why the next segment cannot be prepared for lack of space, until a preparation succeeds. */
    String spaceShortage() {
        return spaceShortage;
    }

    /** Whether the segment being prepared is to be made ready without the rest of its zero-fill. */
    boolean isHurried() {
        return hurried;
    }

    /** Whether a segment is prepared and durable. */
    boolean isReady(final long position) {
        return state == State.READY && basePosition == position;
    }

    /** Whether no segment is being prepared or ready (none started, or one given up for space). */
    boolean isIdle() {
        return state == State.IDLE;
    }

    /** Whether a preparation is under way with no operation in flight: a step can be submitted. */
    boolean hasStepToSubmit() {
        return !operationInFlight && state != State.IDLE && state != State.READY && !waitingForSpace();
    }

    /** Whether a step that found no space waits for its retry time (the I/O thread's parks reach it). */
    private boolean waitingForSpace() {
        return spaceShortage != null && System.nanoTime() - retryAtNs < 0;
    }

    /** Whether an operation is in flight. */
    boolean isOperationInFlight() {
        return operationInFlight;
    }

    /**
     * Gives up an unfinished preparation at close: closes and deletes the temporary file. A
     * segment already renamed into place is complete and stays. The session must have no operation
     * in flight (the caller checks).
     *
     * @throws IOException if the file cannot be closed or deleted.
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

    /**
     * Adopts an existing prepared segment found by recovery.
     *
     * @throws IOException if its header cannot be read.
     */
    void adoptReady(final long position, final int handle) throws IOException {
        Invariants.check(state == State.IDLE, "adopt in state %s", state);
        basePosition = position;
        fileHandle = handle;
        readyLimitOffset = SegmentHeaders.recycledLimit(SegmentNames.segmentPath(directory, position));
        state = State.READY;
    }

    /**
     * The write limit the ready segment's header records if it is a recycled one: the roll starts the
     * writer there. Call before {@link #take}.
     */
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
