package io.walden.uring;

import io.walden.spi.CompletionHandler;
import io.walden.spi.FileOpenErrors;
import io.walden.spi.FileTable;
import io.walden.spi.OperationPool;
import io.walden.spi.PooledOperation;
import io.walden.spi.PooledOperation.Kind;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import one.jasyncfio.AsyncFile;
import one.jasyncfio.EventExecutor;
import one.jasyncfio.OpenOption;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * An io_uring session on the JVM's shared jasyncfio event loop ({@link UringExecutors}). Writes and
 * fdatasync are submitted to the ring and complete on the event loop, whose callback hands the pooled
 * {@link Operation} to a queue and signals the log. The log runs the work that follows a completion
 * right there ({@link StorageCapabilities#completionThreadMayRunIo()}): it polls, and submits the next write or the
 * sync, from the event loop, where jasyncfio enqueues a submission directly and hands it to the
 * kernel when the loop next waits, without the eventfd wake-up a submission from another thread
 * costs. A lone appender submits its own write ({@link StorageCapabilities#callerMayRunIo()}). So a {@code SYNCED}
 * append wakes two threads (the loop, then the appender) rather than six. Directory syncs, renames
 * and deletes are rare and run synchronously on the log's I/O thread (jasyncfio 0.0.7 has no renameat
 * or directory fsync), so the session adds no thread of its own.
 *
 * <pre>
 *   appender or I/O thread --write--> ring --CQE--> event loop: poll, submit sync --> ring
 *   ring --CQE--> event loop: poll, acknowledge (unpark the appender)
 *   I/O thread --rename/delete/dir fsync (inline)--------------------------> local queue
 * </pre>
 *
 * <p>A future that completes before its callback is attached runs the callback on the submitting
 * thread (CompletableFuture's rule), so the completion signal may also come from the submitter,
 * which then holds the log's I/O duty and sees the completion itself. The behaviour of jasyncfio this
 * relies on is pinned by {@code JasyncfioEventLoopTest}.
 *
 * <p>A short write is resubmitted for its remainder before the operation completes; a negative
 * result (jasyncfio reports it as an IOException carrying the errno and its text) fails the
 * operation with the file, offset and errno named.
 *
 * <p><b>Threading:</b> StorageSession methods are called by the holder of the log's I/O duty (its
 * I/O thread, an appender, or the event loop in a completion round); {@link Operation#accept} runs on
 * the event loop, or on the submitter when the future completed first.
 */
final class UringStorageSession implements StorageSession {
    /** Writes the session says it overlaps: the most the log keeps in flight (WalConfig's limit). */
    static final int OVERLAPPING_WRITES_MAX = 64;

    private static final int OPERATION_COUNT = 64;
    private static final int FILE_MODE = 0644;
    private static final String EOPNOTSUPP_TEXT = "Error code: 95;";
    private static final String EINVAL_TEXT = "Error code: 22;";
    private static final long CLOSE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    /** One operation in flight; pooled. Handed to the event loop and back through the queue. */
    static final class Operation extends PooledOperation implements BiConsumer<Integer, Throwable> {
        private final UringStorageSession session;
        AsyncFile file;
        Path path;
        Path target;
        ByteBuffer buffer;
        ByteBuffer view;
        ByteBuffer viewSource;
        final ByteBuffer[] vector = new ByteBuffer[1];
        int bufferOffset;
        long fileOffset;
        int remainingBytes;
        int totalBytes;
        long allocateBytes;
        int result;
        Throwable failure;

        Operation(final UringStorageSession session, final int index) {
            super(index);
            this.session = session;
        }

        /** Keeps the view and its source: the next write through the same buffer reuses them. */
        @Override
        protected void clear() {
            file = null;
            path = null;
            target = null;
            buffer = null;
            result = 0;
            failure = null;
        }

        @Override
        public void accept(final Integer value, final Throwable error) {
            failure = error;
            result = error == null ? value : -1;
            session.completed(this);
        }
    }

    private final Path directory;
    private final StorageOptions options;
    private final StorageCapabilities capabilities;
    private final Runnable completionSignal;
    private final EventExecutor executor;
    private final FileChannel directoryChannel;
    private final FileTable<AsyncFile> files = new FileTable<>();
    private final OperationPool<Operation> operations;
    private final ArrayDeque<Operation> localCompletions = new ArrayDeque<>(OPERATION_COUNT);
    private final ManyToOneConcurrentArrayQueue<Operation> completionQueue =
            new ManyToOneConcurrentArrayQueue<>(OPERATION_COUNT);
    private boolean closed;

    UringStorageSession(
            final Path directory,
            final StorageOptions options,
            final Runnable completionSignal,
            final String durabilityNote)
            throws IOException {
        final String reason = UringSupport.unavailableReason();
        if (reason != null) {
            throw new IOException("the io_uring backend cannot run here: " + reason);
        }
        this.directory = directory;
        this.options = options;
        this.completionSignal = completionSignal;
        this.capabilities = StorageCapabilities.of(options, OPERATION_COUNT)
                .withCallerMayRunIo(true)
                .withCompletionThreadMayRunIo(true)
                .withOverlappingWritesMax(OVERLAPPING_WRITES_MAX)
                .withDurabilityNote(durabilityNote);
        try {
            this.executor = UringExecutors.shared();
        } catch (final Throwable ex) {
            throw new IOException("cannot start an io_uring event loop: " + ex, ex);
        }
        this.directoryChannel = FileChannel.open(directory, StandardOpenOption.READ);
        this.operations = new OperationPool<>(OPERATION_COUNT, index -> new Operation(this, index));
    }

    /**
     * The options' mode and the backend's durability note, {@value #OPERATION_COUNT} operations in
     * flight, and:
     *
     * <ul>
     *   <li>appenders may run I/O: a submission from an appender costs what one from the I/O thread
     *       does (a task for the event loop), and saves waking the I/O thread. An interrupt cannot
     *       disturb a submission, and the one blocking call an appender can make (closing a full
     *       segment's file as it rolls) waits through an interrupt and keeps it;
     *   <li>the completion thread may run I/O: on the event loop, {@link #submitWrite}, {@link
     *       #submitSync} and {@link #poll} only enqueue and dequeue; jasyncfio submits what was
     *       enqueued when the loop next waits;
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
        final List<OpenOption> openOptions = new ArrayList<>();
        openOptions.add(OpenOption.READ_WRITE);
        if (create) {
            openOptions.add(OpenOption.CREATE);
            openOptions.add(OpenOption.EXCL);
        }
        if (options.directIo()) {
            openOptions.add(OpenOption.DIRECT);
        }
        if (options.dsync()) {
            openOptions.add(OpenOption.DSYNC);
        }
        final AsyncFile file;
        try {
            file = await(
                    AsyncFile.open(path, FILE_MODE, executor, openOptions.toArray(new OpenOption[0])), "open " + path);
        } catch (final IOException ex) {
            if (options.directIo() && hasErrorCode(ex, EINVAL_TEXT)) {
                // EINVAL from an open with O_DIRECT (its other flags are valid everywhere): the
                // file system has no direct I/O. A refused create has already made the file, which the next open
                // removes with the other unfinished temporaries.
                throw FileOpenErrors.directIoUnsupported(path, ex);
            }
            throw ex;
        }
        return files.add(file, path);
    }

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        final Path path = files.path(fileHandle);
        await(files.remove(fileHandle).close(), "close " + path);
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final Operation operation = operations.take(Kind.WRITE, token);
        operation.file = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        operation.buffer = source;
        operation.bufferOffset = sourceOffset;
        operation.fileOffset = fileOffset;
        operation.remainingBytes = lengthBytes;
        operation.totalBytes = lengthBytes;
        submitWrite(operation);
    }

    private void submitWrite(final Operation operation) {
        if (operation.viewSource != operation.buffer) {
            // Each operation writes through its own view: jasyncfio moves a vectored write's buffer
            // position on the event loop, which must never race the I/O thread's use of a buffer.
            operation.viewSource = operation.buffer;
            operation.view = operation.buffer.duplicate();
        }
        final ByteBuffer view = operation.view;
        view.clear();
        view.position(operation.bufferOffset).limit(operation.bufferOffset + operation.remainingBytes);
        if (options.directIo()) {
            // jasyncfio 0.0.7 sends IORING_OP_WRITE on an O_DIRECT file to its IOPOLL ring, which is
            // only serviced when the ring was set up with IORING_SETUP_IOPOLL (and the device
            // supports polling); the write would never complete. IORING_OP_WRITEV goes to the
            // ordinary ring, at the cost of jasyncfio allocating an iovec array per call. Its iovec
            // takes the buffer's base address and ignores the position, hence the slice.
            operation.vector[0] = operation.buffer.slice(operation.bufferOffset, operation.remainingBytes);
            operation.file.write(operation.vector, operation.fileOffset, 1).whenComplete(operation);
        } else {
            operation
                    .file
                    .write(view, operation.fileOffset, operation.remainingBytes)
                    .whenComplete(operation);
        }
    }

    /**
     * IORING_OP_FALLOCATE (mode 0). A file system without fallocate answers EOPNOTSUPP, which
     * completes with 0: nothing allocated, and the core's zero-fill allocates the space instead.
     */
    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        final Operation operation = operations.take(Kind.ALLOCATE, token);
        operation.file = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        operation.fileOffset = fileOffset;
        operation.allocateBytes = lengthBytes;
        // jasyncfio's preAllocate takes the length first, then the offset.
        operation.file.preAllocate(lengthBytes, fileOffset).whenComplete(operation);
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        final Operation operation = operations.take(Kind.SYNC, token);
        operation.file = files.file(fileHandle);
        operation.path = files.path(fileHandle);
        operation.file.dataSync().whenComplete(operation);
    }

    @Override
    public void submitSyncDirectory(final long token) {
        final Operation operation = operations.take(Kind.SYNC_DIRECTORY, token);
        runInline(operation);
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        final Operation operation = operations.take(Kind.RENAME, token);
        operation.path = source;
        operation.target = target;
        runInline(operation);
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        final Operation operation = operations.take(Kind.DELETE, token);
        operation.path = path;
        runInline(operation);
    }

    private void runInline(final Operation operation) {
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
            operation.result = 0;
        } catch (final IOException | RuntimeException ex) {
            operation.result = -1;
            operation.failure = ex;
        }
        localCompletions.add(operation);
    }

    /** Event loop: hands a completed ring operation back to the owning thread. */
    private void completed(final Operation operation) {
        while (!completionQueue.offer(operation)) {
            Thread.onSpinWait();
        }
        completionSignal.run();
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        int count = 0;
        Operation operation;
        while (count < limit && (operation = nextCompletion()) != null) {
            if (operation.kind() == Kind.WRITE
                    && operation.failure == null
                    && operation.result > 0
                    && operation.result < operation.remainingBytes) {
                operation.bufferOffset += operation.result;
                operation.fileOffset += operation.result;
                operation.remainingBytes -= operation.result;
                submitWrite(operation);
                continue;
            }
            final long token = operation.token();
            final IOException failure = failure(operation);
            final long result = failure != null ? -1 : successResult(operation);
            operations.release(operation);
            handler.onCompletion(token, result, failure);
            count++;
        }
        return count;
    }

    private static long successResult(final Operation operation) {
        return switch (operation.kind()) {
            case WRITE -> operation.totalBytes;
            case ALLOCATE -> operation.failure == null ? operation.allocateBytes : 0;
            default -> 0;
        };
    }

    private Operation nextCompletion() {
        final Operation local = localCompletions.poll();
        return local != null ? local : completionQueue.poll();
    }

    private IOException failure(final Operation operation) {
        if (operation.kind() == Kind.ALLOCATE && unsupported(operation.failure)) {
            return null;
        }
        if (operation.failure == null
                && operation.result >= 0
                && !(operation.kind() == Kind.WRITE && operation.result == 0)) {
            return null;
        }
        Throwable cause = operation.failure;
        if (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        final String what =
                switch (operation.kind()) {
                    case WRITE ->
                        "io_uring write of " + operation.remainingBytes + " bytes at offset " + operation.fileOffset
                                + " to " + operation.path;
                    case ALLOCATE ->
                        "io_uring fallocate of " + operation.allocateBytes + " bytes at offset " + operation.fileOffset
                                + " in " + operation.path;
                    case SYNC -> "io_uring fdatasync of " + operation.path;
                    case SYNC_DIRECTORY -> "fsync of directory " + directory;
                    case RENAME -> "rename of " + operation.path;
                    case DELETE -> "delete of " + operation.path;
                };
        final String detail = cause == null ? "no progress (result " + operation.result + ")" : cause.getMessage();
        return new IOException(what + " failed: " + detail, cause);
    }

    /**
     * Whether a failure or one of its causes carries an errno, which jasyncfio 0.0.7 reports only in
     * the text of its exception ("Error code: 22; message: Invalid argument").
     */
    private static boolean hasErrorCode(final Throwable failure, final String errorCodeText) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains(errorCodeText)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a failure is EOPNOTSUPP (errno 95), which jasyncfio 0.0.7 reports only in the text of
     * its exception ("Error code: 95; ...").
     */
    static boolean unsupported(final Throwable failure) {
        Throwable cause = failure;
        if (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause != null && cause.getMessage() != null && cause.getMessage().contains(EOPNOTSUPP_TEXT);
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
        files.removeAll((file, path) -> {
            try {
                await(file.close(), "close " + path);
            } catch (final IOException ignored) {
                // Every acknowledged byte was written and synced before close; nothing is lost.
            }
        });
        try {
            directoryChannel.close();
        } catch (final IOException ignored) {
            // A read-only directory channel loses nothing on close.
        }
    }

    /**
     * Waits for a synchronous step (open, close) through any interrupt, which it keeps: the caller may
     * be an appender rolling the log, whose interrupt is not the log's.
     */
    private static <T> T await(final CompletableFuture<T> future, final String what) throws IOException {
        final long deadlineNs = System.nanoTime() + CLOSE_TIMEOUT_NS;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (final InterruptedException ex) {
                    interrupted = true;
                }
            }
        } catch (final ExecutionException ex) {
            final Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new IOException(what + " failed: " + cause.getMessage(), cause);
        } catch (final TimeoutException ex) {
            throw new IOException(what + " did not complete within 30 s", ex);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final CompletionHandler DISCARD = (token, result, failure) -> {};
}
