package io.walden.testing;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.spi.CompletionHandler;
import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A storage backend for tests that wraps a real one and lets a test take control of completions:
 *
 * <ul>
 *   <li>{@link #holdWrites()} / {@link #holdSyncs()}: the operations still run on the real backend,
 *       but their completions are kept from the log until {@link #releaseWrites()} / {@link
 *       #releaseSyncs()}. For the log this is a storage device that stalls, so tests of back pressure,
 *       timeouts and visibility need no timing.
 *   <li>{@link #failNextDataWrite} / {@link #failNextDataSync}: the next write to, or sync of, a
 *       segment file (a {@code .wal} file, not a segment under preparation) is not performed and
 *       completes with the given {@link IOException}.
 *   <li>{@link #failDirectoryChangeAfter}: a later rename or delete is not performed and completes
 *       with the given {@link IOException}, so a test can stop a log between any two of its
 *       directory changes, as a kill there would.
 *   <li>Writes of a segment's header (the durability mark the log writes when it pauses) are
 *       neither held nor failed: they come whenever the log goes idle, and would make tests of data
 *       writes depend on timing.
 * </ul>
 *
 * <p>Held and injected completions are delivered in the order they arose, before newer ones, as
 * soon as their kind is no longer held; an injected failure of a held kind is held too. Releasing
 * everything at once therefore delivers, in one poll, completions that arose in a chosen order, as
 * a backend that completes operations out of order may.
 *
 * <p><b>Threading:</b> the control methods may be called from any thread; the session is used as
 * the SPI requires, by one thread at a time.
 */
public final class ControllableBackend implements StorageBackend {
    private static final int KIND_WRITE = 1;
    private static final int KIND_SYNC = 2;
    private static final int KIND_OTHER = 4;
    /** Also set on writes to files under preparation, which are writes too. */
    private static final int KIND_PREPARATION_WRITE = 8;
    // A sync of a segment file (not of a segment under preparation); also KIND_SYNC.
    private static final int KIND_DATA_SYNC = 16;
    // A sync of a segment file submitted after the mark armed by holdDataSyncsFromMark was written.
    private static final int KIND_SYNC_AFTER_MARK = 32;

    private final StorageBackend delegate;
    private final AtomicReference<IOException> nextDataWriteFailure = new AtomicReference<>();
    private final AtomicReference<IOException> nextDataSyncFailure = new AtomicReference<>();
    private final AtomicReference<IOException> nextDirectoryChangeFailure = new AtomicReference<>();
    private final AtomicInteger directoryChangesToPass = new AtomicInteger();
    private final AtomicLong dataWritesSubmitted = new AtomicLong();
    private final AtomicLong preparationBytesSubmitted = new AtomicLong();
    private final AtomicLong dataSyncsSubmitted = new AtomicLong();
    private final AtomicInteger heldCompletions = new AtomicInteger();
    // Bit set of the kinds whose completions are held, changed in one step so that releasing several
    // kinds at once releases them together.
    private final AtomicInteger heldKinds = new AtomicInteger();
    // The durable position of the mark that starts holding data syncs, or -1; and the data syncs
    // submitted when that mark was written, or -1 before.
    private final AtomicLong markHoldPosition = new AtomicLong(-1);
    private final AtomicLong dataSyncsAtMarkHold = new AtomicLong(-1);
    private volatile boolean markWritten;
    private volatile Session current;

    /**
     * Wraps a backend.
     *
     * @param delegate the backend that does the I/O.
     */
    public ControllableBackend(final StorageBackend delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        final Session session = new Session(delegate.open(directory, completionSignal), completionSignal);
        current = session;
        return session;
    }

    /** Keeps write completions from the log until {@link #releaseWrites()}. */
    public void holdWrites() {
        heldKinds.getAndUpdate(kinds -> kinds | KIND_WRITE);
    }

    /** Delivers held write completions and stops holding them. */
    public void releaseWrites() {
        heldKinds.getAndUpdate(kinds -> kinds & ~KIND_WRITE);
        wake();
    }

    /**
     * Holds the completions of writes to segments under preparation ({@code .wal.tmp} files) only,
     * as if zero-filling had stalled.
     */
    public void holdPreparationWrites() {
        heldKinds.getAndUpdate(kinds -> kinds | KIND_PREPARATION_WRITE);
    }

    /** Delivers held preparation write completions and stops holding them. */
    public void releasePreparationWrites() {
        heldKinds.getAndUpdate(kinds -> kinds & ~KIND_PREPARATION_WRITE);
        wake();
    }

    /** Keeps file sync completions from the log until {@link #releaseSyncs()}. */
    public void holdSyncs() {
        heldKinds.getAndUpdate(kinds -> kinds | KIND_SYNC);
    }

    /** Delivers held sync completions and stops holding them. */
    public void releaseSyncs() {
        heldKinds.getAndUpdate(kinds -> kinds & ~KIND_SYNC);
        wake();
    }

    /**
     * Keeps the completions of syncs of segment files ({@code .wal}, not segments under preparation)
     * from the log until {@link #releaseDataSyncs()}; preparation goes on.
     */
    public void holdDataSyncs() {
        heldKinds.getAndUpdate(kinds -> kinds | KIND_DATA_SYNC);
    }

    /**
     * Holds the completions of the data syncs submitted after the log writes a durability mark (a
     * segment header rewritten when the log goes idle) that records a durable position: the sync that
     * makes that mark durable, and every later data sync, until {@link #releaseDataSyncs()}. A sync
     * already in flight when the mark is written completes as usual. A test that needs the mark's sync
     * in flight arms this before the log can go idle, instead of racing the log to it.
     *
     * @param durablePosition the position the mark must record.
     */
    public void holdDataSyncsFromMark(final long durablePosition) {
        dataSyncsAtMarkHold.set(-1);
        markWritten = false;
        heldKinds.getAndUpdate(kinds -> kinds | KIND_SYNC_AFTER_MARK);
        markHoldPosition.set(durablePosition);
    }

    /**
     * @return data syncs submitted since the mark armed by {@link #holdDataSyncsFromMark} was written,
     *     or -1 if it has not been written yet.
     */
    public long dataSyncsSinceMarkHold() {
        final long at = dataSyncsAtMarkHold.get();
        return at < 0 ? -1 : dataSyncsSubmitted.get() - at;
    }

    /** Delivers held segment-file sync completions and stops holding them. */
    public void releaseDataSyncs() {
        heldKinds.getAndUpdate(kinds -> kinds & ~(KIND_DATA_SYNC | KIND_SYNC_AFTER_MARK));
        wake();
    }

    /** Stops holding anything; everything held is delivered in the order it arose. */
    public void releaseAll() {
        heldKinds.set(0);
        wake();
    }

    /**
     * Makes the next write to a segment file fail with a cause, without performing it.
     *
     * @param failure the cause the write completes with.
     */
    public void failNextDataWrite(final IOException failure) {
        nextDataWriteFailure.set(failure);
    }

    /**
     * Makes the next sync of a segment file fail with a cause, without performing it.
     *
     * @param failure the cause the sync completes with.
     */
    public void failNextDataSync(final IOException failure) {
        nextDataSyncFailure.set(failure);
    }

    /**
     * Makes a later rename or delete (of any file: a directory change) fail with a cause, without
     * performing it: the ones before it run. A log that dies there leaves its files as a process
     * killed right before that change would.
     *
     * @param changesToPass how many directory changes still run first.
     * @param failure the cause the failing one completes with.
     */
    public void failDirectoryChangeAfter(final int changesToPass, final IOException failure) {
        directoryChangesToPass.set(changesToPass);
        nextDirectoryChangeFailure.set(failure);
    }

    /** @return whether an injected failure is still waiting for its operation. */
    public boolean failureArmed() {
        return nextDataWriteFailure.get() != null
                || nextDataSyncFailure.get() != null
                || nextDirectoryChangeFailure.get() != null;
    }

    /** @return completions held or injected and not yet delivered. */
    public int heldCompletions() {
        return heldCompletions.get();
    }

    /** @return writes to segment files submitted so far. */
    public long dataWritesSubmitted() {
        return dataWritesSubmitted.get();
    }

    /** @return bytes submitted for writing to files that are not segments yet (temporary or freed). */
    public long preparationBytesSubmitted() {
        return preparationBytesSubmitted.get();
    }

    /** @return syncs of segment files submitted so far. */
    public long dataSyncsSubmitted() {
        return dataSyncsSubmitted.get();
    }

    /** @return whether the latest session's writes are durable on completion (O_DSYNC). */
    public boolean writesDurable() {
        final Session session = current;
        if (session == null) {
            throw new IllegalStateException("no session was opened");
        }
        return session.capabilities().writesDurable();
    }

    private void wake() {
        final Session session = current;
        if (session != null) {
            session.completionSignal.run();
        }
    }

    private static boolean isSegment(final Path path) {
        return path != null && path.getFileName().toString().endsWith(SegmentNames.SEGMENT_SUFFIX);
    }

    /** A submitted operation: the log's token and what kind it is. */
    private record Submitted(long token, int kind) {}

    /** A completion kept back or injected. */
    private record Completion(long token, long result, IOException failure, int kind) {}

    /**
     * Forwards every operation to the backend's session under an id of its own, holding back or
     * failing the kinds the test asks for.
     */
    private final class Session extends ForwardingStorageSession implements CompletionHandler {
        private final Runnable completionSignal;
        private final StorageCapabilities capabilities;
        private final Map<Long, Submitted> submitted = new HashMap<>();
        private final Map<Integer, Path> paths = new HashMap<>();
        // Held and injected completions in the order they arose; delivered in that order once their
        // kind is no longer held.
        private final ArrayDeque<Completion> pending = new ArrayDeque<>();
        private long nextId = 1;
        private CompletionHandler target;
        private int delivered;
        private int pollHeldKinds;

        Session(final StorageSession session, final Runnable completionSignal) {
            super(session);
            this.completionSignal = completionSignal;
            final StorageCapabilities backend = session.capabilities();
            this.capabilities = StorageCapabilities.of(
                    backend.directIo(), backend.writesDurable(), backend.blockSizeBytes(), backend.maxInFlight());
        }

        /**
         * The backend's I/O mode and limits, with the defaults for the rest: only the I/O thread runs
         * operations, one write at a time.
         */
        @Override
        public StorageCapabilities capabilities() {
            return capabilities;
        }

        @Override
        public int openFile(final Path path, final boolean create) throws IOException {
            final int handle = delegate().openFile(path, create);
            paths.put(handle, path);
            return handle;
        }

        @Override
        public void closeFile(final int fileHandle) throws IOException {
            paths.remove(fileHandle);
            delegate().closeFile(fileHandle);
        }

        @Override
        public void submitWrite(
                final int fileHandle,
                final long fileOffset,
                final ByteBuffer source,
                final int sourceOffset,
                final int lengthBytes,
                final long token) {
            // A segment's header (its durability mark, rewritten when the log pauses) is not data: the
            // log writes it whenever it goes idle, so holding or failing it would make a test of data
            // writes depend on timing (a mark held between holdWrites and the data write stalls the
            // data write behind it).
            final boolean segment =
                    isSegment(paths.get(fileHandle)) && fileOffset >= SegmentHeaderDescriptor.HEADER_LENGTH;
            if (isSegment(paths.get(fileHandle))
                    && fileOffset == 0
                    && lengthBytes >= SegmentHeaderDescriptor.HEADER_LENGTH) {
                startHoldingAtMark(source, sourceOffset);
            }
            if (segment) {
                dataWritesSubmitted.incrementAndGet();
                final IOException failure = nextDataWriteFailure.getAndSet(null);
                if (failure != null) {
                    inject(token, failure, KIND_WRITE);
                    return;
                }
            }
            final int kind = segment
                    ? KIND_WRITE
                    : isSegment(paths.get(fileHandle)) ? KIND_OTHER : KIND_WRITE | KIND_PREPARATION_WRITE;
            if ((kind & KIND_PREPARATION_WRITE) != 0) {
                preparationBytesSubmitted.addAndGet(lengthBytes);
            }
            delegate().submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, wrap(token, kind));
        }

        /** A header write that records the armed position: the data syncs submitted from now on are held. */
        private void startHoldingAtMark(final ByteBuffer header, final int headerOffset) {
            final long armed = markHoldPosition.get();
            final long recorded = header.duplicate()
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .getLong(headerOffset + SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
            if (armed >= 0 && recorded == armed && markHoldPosition.compareAndSet(armed, -1)) {
                dataSyncsAtMarkHold.set(dataSyncsSubmitted.get());
                markWritten = true;
            }
        }

        @Override
        public void submitSync(final int fileHandle, final long token) {
            final boolean segment = isSegment(paths.get(fileHandle));
            if (segment) {
                dataSyncsSubmitted.incrementAndGet();
                final IOException failure = nextDataSyncFailure.getAndSet(null);
                if (failure != null) {
                    inject(token, failure, KIND_SYNC | KIND_DATA_SYNC);
                    return;
                }
            }
            final int kind =
                    segment ? KIND_SYNC | KIND_DATA_SYNC | (markWritten ? KIND_SYNC_AFTER_MARK : 0) : KIND_SYNC;
            delegate().submitSync(fileHandle, wrap(token, kind));
        }

        /** Goes through {@link #submitSync}, so that it is held and failed like any other sync. */
        @Override
        public void submitSyncOnCaller(final int fileHandle, final long token) {
            submitSync(fileHandle, token);
        }

        @Override
        public void submitAllocate(
                final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
            delegate().submitAllocate(fileHandle, fileOffset, lengthBytes, wrap(token, KIND_OTHER));
        }

        @Override
        public void submitSyncDirectory(final long token) {
            delegate().submitSyncDirectory(wrap(token, KIND_OTHER));
        }

        @Override
        public void submitRename(final Path source, final Path target, final long token) {
            if (injectDirectoryChangeFailure(token)) {
                return;
            }
            for (final Map.Entry<Integer, Path> entry : paths.entrySet()) {
                if (source.equals(entry.getValue())) {
                    entry.setValue(target);
                }
            }
            delegate().submitRename(source, target, wrap(token, KIND_OTHER));
        }

        @Override
        public void submitDelete(final Path path, final long token) {
            if (injectDirectoryChangeFailure(token)) {
                return;
            }
            delegate().submitDelete(path, wrap(token, KIND_OTHER));
        }

        /** @return whether the armed directory-change failure took this operation. */
        private boolean injectDirectoryChangeFailure(final long token) {
            if (nextDirectoryChangeFailure.get() == null || directoryChangesToPass.getAndDecrement() > 0) {
                return false;
            }
            inject(token, nextDirectoryChangeFailure.getAndSet(null), KIND_OTHER);
            return true;
        }

        @Override
        public int poll(final CompletionHandler handler, final int limit) {
            pollHeldKinds = heldKinds.get();
            // Taken out first, so that a handler that submits (and so injects) does not disturb the
            // iteration.
            final List<Completion> ready = new ArrayList<>();
            final Iterator<Completion> iterator = pending.iterator();
            while (ready.size() < limit && iterator.hasNext()) {
                final Completion completion = iterator.next();
                if ((pollHeldKinds & completion.kind()) == 0) {
                    iterator.remove();
                    heldCompletions.decrementAndGet();
                    ready.add(completion);
                }
            }
            int count = 0;
            for (final Completion completion : ready) {
                handler.onCompletion(completion.token(), completion.result(), completion.failure());
                count++;
            }
            if (count < limit) {
                target = handler;
                delivered = 0;
                delegate().poll(this, limit - count);
                count += delivered;
                target = null;
            }
            return count;
        }

        @Override
        public void onCompletion(final long id, final long result, final IOException failure) {
            final Submitted operation = submitted.remove(id);
            if (operation == null) {
                throw new AssertionError("completion of unknown operation " + id);
            }
            if ((pollHeldKinds & operation.kind()) != 0) {
                pending.add(new Completion(operation.token(), result, failure, operation.kind()));
                heldCompletions.incrementAndGet();
            } else {
                target.onCompletion(operation.token(), result, failure);
                delivered++;
            }
        }

        @Override
        public int inFlight() {
            return delegate().inFlight() + pending.size();
        }

        @Override
        public void close() {
            delegate().close();
            heldCompletions.addAndGet(-pending.size());
            pending.clear();
            submitted.clear();
        }

        private long wrap(final long token, final int kind) {
            final long id = nextId++;
            submitted.put(id, new Submitted(token, kind));
            return id;
        }

        private void inject(final long token, final IOException failure, final int kind) {
            pending.add(new Completion(token, -1, failure, kind));
            heldCompletions.incrementAndGet();
            completionSignal.run();
        }
    }
}
