package io.walden.uring.ffm;

import io.walden.spi.CompletionHandler;
import io.walden.spi.FileOpenErrors;
import io.walden.spi.FileTable;
import io.walden.spi.OperationPool;
import io.walden.spi.PooledOperation.Kind;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * An io_uring session that owns its ring ({@link IoUring}): whichever thread holds the log's I/O duty
 * writes the submission entries and enters the kernel itself, and reads completions from the ring in
 * {@link #poll}. No event loop stands between the log and the kernel. One thread of the session's own,
 * the completion waiter, blocks on the ring's eventfd and runs the log's completion signal when the
 * kernel posts a completion; the log then runs the work that follows it there ({@link
 * StorageCapabilities#completionThreadMayRunIo()}). What a lone appender would only wait for does not go through the
 * ring: its sync ({@link #submitSyncOnCaller}) is a direct fdatasync(2), which io_uring would hand to
 * a kernel worker thread and back, and its O_DSYNC write ({@link #submitWriteOnCaller}) a direct
 * pwrite(2); both complete before the call returns and are signalled on that thread.
 *
 * <pre>
 *   duty holder --SQE, io_uring_enter--> kernel --CQE--> completion ring --> poll (duty holder)
 *                                               \--eventfd--> waiter thread --> completion signal
 *   lone appender --fdatasync / pwrite--> local completions --> signal, poll
 *   I/O thread --rename/delete/dir fsync (inline)--> local completions --> poll
 * </pre>
 *
 * <p>A short write is submitted again for its remainder before the operation completes; an operation
 * the kernel gave up on because the thread that submitted it ended (an appender that held the I/O duty)
 * is submitted again from the polling thread ({@link SubmitterExit}); any other negative result fails
 * the operation with the file, offset and errno named.
 *
 * <p><b>Threading:</b> StorageSession methods are called by the holder of the log's I/O duty, one
 * thread at a time with a happens-before edge between them (the SPI's rule); the operation slots, the
 * file table and the ring's submission and completion sides belong to that holder. The waiter thread
 * touches only the eventfd and the completion signal.
 */
final class FfmUringStorageSession implements StorageSession {
    private static final System.Logger LOGGER = System.getLogger(FfmUringStorageSession.class.getName());
    /** Writes the session says it overlaps: the most the log keeps in flight (WalConfig's limit). */
    static final int OVERLAPPING_WRITES_MAX = 64;
    /** Operations in flight at once; the ring has twice as many submission entries. */
    static final int OPERATION_COUNT = 64;

    private static final int RING_ENTRIES = OPERATION_COUNT * 2;
    private static final long CLOSE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private final Path directory;
    private final StorageOptions options;
    private final Runnable completionSignal;
    private final StorageCapabilities capabilities;
    private final IoUring ring;
    private final FileChannel directoryChannel;
    private final FileTable<Integer> files = new FileTable<>();
    private final OperationPool<RingOperation> operations = new OperationPool<>(OPERATION_COUNT, RingOperation::new);
    private final ArrayDeque<RingOperation> localCompletions = new ArrayDeque<>(OPERATION_COUNT);
    private final BufferAddresses bufferAddresses = new BufferAddresses();
    private final IoUring.CompletionConsumer ringCompletion = this::onRingCompletion;
    private final CompletionWaiter waiter;
    // The duty holder's errno, for the calls it makes directly.
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = LinuxCalls.newErrnoSegment(arena);

    // Duty holder: the handler and count of a poll in progress; whether the session closed.
    private CompletionHandler handler;
    private int delivered;
    private boolean closed;

    FfmUringStorageSession(
            final Path directory,
            final StorageOptions options,
            final Runnable completionSignal,
            final String durabilityNote)
            throws IOException {
        final String reason = FfmUringSupport.unavailableReason();
        if (reason != null) {
            throw new IOException("the FFM io_uring backend cannot run here: " + reason);
        }
        this.directory = directory;
        this.options = options;
        this.completionSignal = completionSignal;
        this.capabilities = StorageCapabilities.of(options, OPERATION_COUNT)
                .withCallerMayRunIo(true)
                .withCompletionThreadMayRunIo(true)
                .withOverlappingWritesMax(OVERLAPPING_WRITES_MAX)
                .withDurabilityNote(durabilityNote);
        this.directoryChannel = FileChannel.open(directory, StandardOpenOption.READ);
        try {
            this.ring = IoUring.open(RING_ENTRIES);
        } catch (final IOException ex) {
            directoryChannel.close();
            throw ex;
        }
        this.waiter = new CompletionWaiter(ring, completionSignal, directory);
        waiter.start();
    }

    /**
     * The options' mode and the backend's durability note, {@value #OPERATION_COUNT} operations in
     * flight, and:
     *
     * <ul>
     *   <li>appenders may run I/O: a submission from an appender is a system call on its own thread,
     *       which saves waking the I/O thread. No call blocks but {@link #submitSyncOnCaller}, which
     *       the log asks for only where its caller would wait anyway; an interrupt does not disturb a
     *       system call made through the Foreign Function API, and the thread's interrupt status is
     *       left as it was;
     *   <li>the completion thread may run I/O: on the waiter thread, {@link #submitWrite}, {@link
     *       #submitSync} and {@link #poll} only fill entries and enter the kernel without waiting, or
     *       read the completion ring;
     *   <li>{@value #OVERLAPPING_WRITES_MAX} overlapping writes: the ring carries many writes at once,
     *       completed in any order, as many as the log may keep.
     * </ul>
     */
    @Override
    public StorageCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        final int fd;
        try {
            fd = NativeFiles.open(path, create, options.directIo(), options.dsync());
        } catch (final NativeFiles.DirectIoRefusedException ex) {
            // A refused create has already made the file, which the next open removes with the other
            // unfinished temporaries.
            throw FileOpenErrors.directIoUnsupported(path, ex);
        }
        return files.add(fd, path);
    }

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        final Path path = files.path(fileHandle);
        NativeFiles.close(files.remove(fileHandle), path);
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final RingOperation operation = write(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
        ring.prepareWrite(operation.fd, fileOffset, operation.address, lengthBytes, operation.index());
        enter(operation);
    }

    private RingOperation write(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final RingOperation operation = operations.take(Kind.WRITE, token);
        operation.fd = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        operation.address = bufferAddresses.addressOf(source) + sourceOffset;
        operation.fileOffset = fileOffset;
        operation.remainingBytes = lengthBytes;
        operation.totalBytes = lengthBytes;
        return operation;
    }

    /**
     * Runs pwrite(2) on the calling thread, an appender that would only wait for this write (the log
     * asks for it only where writes are durable by themselves and nothing else is in flight): through
     * the ring its completion would wake the waiter thread, which would hand it back. A short write goes
     * on for its remainder; the completion waits for the next {@link #poll}, signalled here.
     */
    @Override
    public void submitWriteOnCaller(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final RingOperation operation = write(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
        while (operation.remainingBytes > 0) {
            final long written = LinuxCalls.pwrite(
                    errno, operation.fd, operation.address, operation.remainingBytes, operation.fileOffset);
            if (written > 0) {
                operation.address += written;
                operation.fileOffset += written;
                operation.remainingBytes -= (int) written;
                continue;
            }
            final int error = written < 0 ? LinuxCalls.errno(errno) : 0;
            if (error == LinuxCalls.EINTR) {
                continue;
            }
            operation.failure = new IOException(operation.describe(directory) + " failed: "
                    + (written < 0 ? LinuxCalls.describe(error) : "no progress (result 0)"));
            break;
        }
        localCompletions.add(operation);
        // As for a sync on the caller: no CQE will signal this completion.
        completionSignal.run();
    }

    /**
     * IORING_OP_FALLOCATE (mode 0). A file system without fallocate answers EOPNOTSUPP, which
     * completes with 0: nothing allocated, and the core's zero-fill allocates the space instead.
     */
    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        final RingOperation operation = operations.take(Kind.ALLOCATE, token);
        operation.fd = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        operation.fileOffset = fileOffset;
        operation.allocateBytes = lengthBytes;
        ring.prepareAllocate(operation.fd, fileOffset, lengthBytes, operation.index());
        enter(operation);
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        prepareSync(fileHandle, token);
    }

    /**
     * Runs fdatasync(2) on the calling thread, which would only wait for the sync: io_uring hands every
     * fsync to a kernel worker thread (io-wq), a wake-up and a hand-back the direct call does not cost.
     * The descriptor is the one the ring writes through, so the sync covers every completed write and
     * sees every write-back error since the last sync. Its completion waits for the next {@link #poll}.
     */
    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        final RingOperation operation = operations.take(Kind.SYNC, token);
        operation.fd = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        if (LinuxCalls.fdatasync(errno, operation.fd) < 0) {
            operation.failure = new IOException(
                    operation.describe(directory) + " failed: " + LinuxCalls.describe(LinuxCalls.errno(errno)));
        }
        localCompletions.add(operation);
        // Signalled here, on the submitting thread, as the SPI allows: no CQE will signal it, and a
        // completion round on the waiter thread may end without another poll.
        completionSignal.run();
    }

    private void prepareSync(final int fileHandle, final long token) {
        final RingOperation operation = operations.take(Kind.SYNC, token);
        operation.fd = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        ring.prepareDataSync(operation.fd, operation.index());
        enter(operation);
    }

    /** Hands the prepared entry to the kernel; if that fails, the operation completes with the failure. */
    private void enter(final RingOperation operation) {
        operation.submitter = Thread.currentThread();
        try {
            ring.submit();
        } catch (final IOException ex) {
            operation.failure =
                    new IOException(operation.describe(directory) + " could not be submitted: " + ex.getMessage(), ex);
            localCompletions.add(operation);
            // No CQE will signal it, and a completion round may end without another poll.
            completionSignal.run();
        }
    }

    @Override
    public void submitSyncDirectory(final long token) {
        runInline(operations.take(Kind.SYNC_DIRECTORY, token));
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        final RingOperation operation = operations.take(Kind.RENAME, token);
        operation.path = source;
        operation.target = target;
        runInline(operation);
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        final RingOperation operation = operations.take(Kind.DELETE, token);
        operation.path = path;
        runInline(operation);
    }

    private void runInline(final RingOperation operation) {
        try {
            switch (operation.kind()) {
                case SYNC_DIRECTORY -> directoryChannel.force(true);
                case RENAME -> {
                    Files.move(operation.path, operation.target, StandardCopyOption.ATOMIC_MOVE);
                    files.renamed(operation.path, operation.target);
                }
                case DELETE -> Files.deleteIfExists(operation.path);
                default -> throw new IllegalStateException("not an inline operation: " + operation.kind());
            }
        } catch (final IOException ex) {
            operation.failure = new IOException(operation.describe(directory) + " failed: " + ex.getMessage(), ex);
        }
        localCompletions.add(operation);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        int count = 0;
        RingOperation local;
        while (count < limit && (local = localCompletions.poll()) != null) {
            deliver(handler, local);
            count++;
        }
        if (count < limit) {
            this.handler = handler;
            this.delivered = 0;
            try {
                ring.reap(ringCompletion, limit - count);
            } finally {
                this.handler = null;
            }
            count += delivered;
        }
        return count;
    }

    /** A completion from the ring: a short write goes on; anything else is delivered. */
    private void onRingCompletion(final long userData, final int result) {
        final RingOperation operation = operations.get((int) userData);
        // Asks whether the submitter lives only for a failure: a success costs nothing more.
        if (result < 0 && SubmitterExit.resubmit(result, operation.submitter.isAlive())) {
            resubmit(operation, result);
            return;
        }
        if (operation.kind() == Kind.WRITE && result > 0 && result < operation.remainingBytes) {
            operation.address += result;
            operation.fileOffset += result;
            operation.remainingBytes -= result;
            ring.prepareWrite(
                    operation.fd, operation.fileOffset, operation.address, operation.remainingBytes, operation.index());
            enter(operation);
            return;
        }
        if (operation.kind() == Kind.ALLOCATE && result == -LinuxCalls.EOPNOTSUPP) {
            // Nothing allocated: the core goes on without.
            operation.allocateBytes = 0;
        } else if (result < 0 || (operation.kind() == Kind.WRITE && result == 0)) {
            final String detail = result < 0 ? LinuxCalls.describe(-result) : "no progress (result 0)";
            operation.failure = new IOException(operation.describe(directory) + " failed: " + detail);
        }
        deliver(handler, operation);
        delivered++;
    }

    /**
     * Submits again, from this thread, an operation the kernel gave up on because the thread that
     * submitted it ended ({@link SubmitterExit}): what is left of a write, a sync, an allocation.
     */
    private void resubmit(final RingOperation operation, final int result) {
        LOGGER.log(
                System.Logger.Level.DEBUG,
                () -> operation.describe(directory) + " ended with " + LinuxCalls.describe(-result)
                        + " because its submitting thread " + operation.submitter.getName()
                        + " ended; submitted again");
        switch (operation.kind()) {
            case WRITE ->
                ring.prepareWrite(
                        operation.fd,
                        operation.fileOffset,
                        operation.address,
                        operation.remainingBytes,
                        operation.index());
            case SYNC -> ring.prepareDataSync(operation.fd, operation.index());
            case ALLOCATE ->
                ring.prepareAllocate(operation.fd, operation.fileOffset, operation.allocateBytes, operation.index());
            default -> throw new IllegalStateException("a " + operation.kind() + " does not go through the ring");
        }
        enter(operation);
    }

    private void deliver(final CompletionHandler target, final RingOperation operation) {
        final long token = operation.token();
        final IOException failure = operation.failure;
        final long result = failure != null ? -1 : operation.successResult();
        operations.release(operation);
        target.onCompletion(token, result, failure);
    }

    /** Tests: every request from now on goes to the submitting thread's io-wq ({@link IoUring#forceAsync}). */
    void forceAsync() {
        ring.forceAsync();
    }

    @Override
    public int inFlight() {
        return operations.inFlight();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        final long deadlineNs = System.nanoTime() + CLOSE_TIMEOUT_NS;
        while (operations.inFlight() > 0 && System.nanoTime() < deadlineNs) {
            if (poll(DISCARD, OPERATION_COUNT) == 0) {
                Thread.onSpinWait();
            }
        }
        waiter.stop();
        files.removeAll((fd, path) -> {
            try {
                NativeFiles.close(fd, path);
            } catch (final IOException ignored) {
                // Every acknowledged byte was written and synced before close; nothing is lost.
            }
        });
        bufferAddresses.clear();
        if (operations.inFlight() == 0) {
            ring.close();
        } else {
            // Operations the kernel still holds may write into the ring: leave it mapped (the process
            // reclaims it) rather than unmap memory the kernel writes to.
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    operations.inFlight() + " io_uring operations of " + directory
                            + " did not complete within 30 s; the ring is left");
        }
        try {
            directoryChannel.close();
        } catch (final IOException ignored) {
            // A read-only directory channel loses nothing on close.
        }
        arena.close();
    }

    private static final CompletionHandler DISCARD = (token, result, failure) -> {};
}
