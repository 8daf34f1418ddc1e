package io.walden.nio;

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
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

/**
 * A FileChannel session: writes run inline on the calling thread, and so do syncs submitted with
 * {@link #submitSyncOnCaller}; other syncs, renames, deletes and directory syncs run on the
 * session's one sync thread, in submission order. Operations travel in a fixed pool of {@link
 * Operation} objects ({@link OperationPool}), so the steady state allocates nothing.
 *
 * <pre>
 *   caller --submit--> [write, sync on caller: inline] --------> local completions --poll-->
 *          --submit--> syncQueue --> sync thread --> completionQueue --signal--> poll
 * </pre>
 *
 * <p>The caller may be an appender that runs the log's I/O itself ({@link StorageCapabilities#callerMayRunIo()}), and
 * an interrupt of it closes the {@code FileChannel} it is using (FileChannel's rule). So each file
 * has two channels. Writes and on-caller syncs use the <em>caller channel</em>; when an interrupt
 * closes it, it is replaced, and the operation is not failed: a write is made again, whole, on the
 * new channel (the same bytes to the same place), and a sync whose outcome the interrupt hid is
 * made again by the sync thread on the file's <em>guard channel</em>. Only the sync thread uses the
 * guard channel, so no interrupt ever closes it, and it was opened before any write: its fdatasync
 * reports every write-back error since its own last sync, including one that the interrupted sync
 * consumed on the caller channel. (A sync is never retried on a channel opened after the error:
 * Linux reports a write-back error once per open file description.)
 *
 * <p><b>Threading:</b> the StorageSession methods are called by one thread at a time (the owning
 * thread); the sync thread touches only the operations handed to it and the channels they name.
 */
final class NioStorageSession implements StorageSession {
    private static final int OPERATION_COUNT = 32;
    /** Most times a write is made again after interrupts closed its channel, before it fails. */
    private static final int INTERRUPTED_WRITE_ATTEMPTS_MAX = 16;

    private static final long SYNC_THREAD_PARK_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /** One operation in flight; pooled. Fields are handed between threads through the queues. */
    static final class Operation extends PooledOperation {
        FileChannel channel;
        Path source;
        Path target;
        long result;
        IOException failure;

        Operation(final int index) {
            super(index);
        }

        @Override
        protected void clear() {
            channel = null;
            source = null;
            target = null;
            result = 0;
            failure = null;
        }
    }

    private final Path directory;
    private final StorageOptions options;
    private final StorageCapabilities capabilities;
    private final Runnable completionSignal;
    private final FileChannel directoryChannel;
    private final FileTable<OpenFile> files = new FileTable<>();
    private final OperationPool<Operation> operations = new OperationPool<>(OPERATION_COUNT, Operation::new);
    private final ArrayDeque<Operation> localCompletions = new ArrayDeque<>(OPERATION_COUNT);
    // The byte submitAllocate writes at a new file's end; the owning thread's.
    private final ByteBuffer lastZeroByte = ByteBuffer.allocateDirect(1);
    private final OneToOneConcurrentArrayQueue<Operation> syncQueue =
            new OneToOneConcurrentArrayQueue<>(OPERATION_COUNT);
    private final ManyToOneConcurrentArrayQueue<Operation> completionQueue =
            new ManyToOneConcurrentArrayQueue<>(OPERATION_COUNT);
    private final Thread syncThread;
    private volatile boolean running = true;
    private boolean closed;

    NioStorageSession(final Path directory, final StorageOptions options, final Runnable completionSignal)
            throws IOException {
        this.directory = directory;
        this.options = options;
        this.capabilities = StorageCapabilities.of(options, OPERATION_COUNT).withCallerMayRunIo(true);
        this.completionSignal = completionSignal;
        this.directoryChannel = FileChannel.open(directory, StandardOpenOption.READ);
        this.syncThread = new Thread(this::runSyncThread, "walden-sync-" + directory.getFileName());
        syncThread.setDaemon(true);
        syncThread.start();
    }

    /**
     * An open file's two channels (see the class comment). The caller channel belongs to the owning
     * thread, which replaces it after an interrupt closed it; the guard channel is used by the sync
     * thread only.
     */
    private static final class OpenFile {
        private final OpenOption[] reopenOptions;
        private final FileChannel guard;
        private FileChannel channel;
        // The file's name, and its name before the last rename submitted for it: the rename runs on
        // the sync thread, so a reopen may come before or after it.
        private Path path;
        private Path previousPath;

        OpenFile(
                final Path path, final OpenOption[] reopenOptions, final FileChannel channel, final FileChannel guard) {
            this.path = path;
            this.reopenOptions = reopenOptions;
            this.channel = channel;
            this.guard = guard;
        }

        /** Replaces the caller channel after an interrupt closed it. */
        void reopen() throws IOException {
            closeQuietly(channel);
            try {
                channel = FileChannel.open(path, reopenOptions);
            } catch (final NoSuchFileException ex) {
                if (previousPath == null) {
                    throw reopenFailure(ex);
                }
                try {
                    channel = FileChannel.open(previousPath, reopenOptions);
                } catch (final IOException again) {
                    throw reopenFailure(again);
                }
            } catch (final IOException ex) {
                throw reopenFailure(ex);
            }
        }

        private IOException reopenFailure(final IOException cause) {
            return new IOException("cannot reopen " + path + " after an interrupt closed its channel: " + cause, cause);
        }

        void renamed(final Path target) {
            previousPath = path;
            path = target;
        }

        void close() {
            closeQuietly(channel);
            closeQuietly(guard);
        }
    }

    /**
     * The options' mode, {@value #OPERATION_COUNT} operations in flight, and appenders may run I/O (an
     * interrupt replaces the caller channel; see the class comment). Writes run one at a time, on the
     * submitting thread.
     */
    @Override
    public StorageCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        final List<OpenOption> openOptions = new ArrayList<>();
        openOptions.add(StandardOpenOption.WRITE);
        openOptions.add(StandardOpenOption.READ);
        if (create) {
            openOptions.add(StandardOpenOption.CREATE_NEW);
        }
        if (options.dsync()) {
            openOptions.add(StandardOpenOption.DSYNC);
        }
        if (options.directIo()) {
            openOptions.add(com.sun.nio.file.ExtendedOpenOption.DIRECT);
        }
        final FileChannel channel;
        try {
            channel = FileChannel.open(path, openOptions.toArray(new OpenOption[0]));
        } catch (final UnsupportedOperationException ex) {
            throw new IOException(
                    "cannot open " + path + " with O_DIRECT: this JDK offers no direct I/O on this platform ("
                            + ex.getMessage() + "); open the log with StorageOptions.BUFFERED",
                    ex);
        } catch (final IOException ex) {
            if (options.directIo() && refusesDirectIo(path)) {
                throw FileOpenErrors.directIoUnsupported(path, ex);
            }
            throw FileOpenErrors.openFailed(path, ex);
        }
        final FileChannel guard;
        try {
            guard = FileChannel.open(path, StandardOpenOption.WRITE);
        } catch (final IOException ex) {
            closeQuietly(channel);
            throw new IOException("cannot open " + path + " a second time, for syncs: " + ex, ex);
        }
        openOptions.remove(StandardOpenOption.CREATE_NEW);
        return files.add(new OpenFile(path, openOptions.toArray(new OpenOption[0]), channel, guard), path);
    }

    /**
     * Whether a file that opens without O_DIRECT refuses to open with it: the file system has no
     * direct I/O. Asked after an O_DIRECT open failed, whose EINVAL the JDK reports only as the
     * system's text ("Invalid argument", translated in other locales); a refused create has already
     * made the file, which the next open removes with the other unfinished temporaries.
     */
    private static boolean refusesDirectIo(final Path path) {
        try {
            FileChannel.open(path, StandardOpenOption.READ).close();
        } catch (final IOException ex) {
            return false;
        }
        try {
            FileChannel.open(path, StandardOpenOption.READ, com.sun.nio.file.ExtendedOpenOption.DIRECT)
                    .close();
            return false;
        } catch (final IOException ex) {
            return true;
        }
    }

    @Override
    public void closeFile(final int fileHandle) {
        files.remove(fileHandle).close();
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
        final OpenFile file = files.file(fileHandle);
        boolean interrupted = false;
        long position = fileOffset;
        try {
            for (int attempt = 1; ; attempt++) {
                source.clear();
                source.position(sourceOffset).limit(sourceOffset + lengthBytes);
                position = fileOffset;
                try {
                    while (source.hasRemaining()) {
                        position += file.channel.write(source, position);
                    }
                    break;
                } catch (final ClosedByInterruptException ex) {
                    // An appender running the log's I/O was interrupted: the write is made again, whole,
                    // on a new channel, with the interrupt status set aside until it is done.
                    interrupted = true;
                    Thread.interrupted();
                    if (attempt == INTERRUPTED_WRITE_ATTEMPTS_MAX) {
                        throw new IOException("interrupted " + attempt + " times in a row", ex);
                    }
                    file.reopen();
                }
            }
            operation.result = lengthBytes;
        } catch (final IOException ex) {
            operation.result = -1;
            operation.failure = new IOException(
                    "write of " + lengthBytes + " bytes at offset " + fileOffset + " to " + file.path + " failed after "
                            + (position - fileOffset) + " bytes: " + ex,
                    ex);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        localCompletions.add(operation);
    }

    /**
     * FileChannel has no fallocate: completes with 0 (nothing allocated), and the core's zero-fill
     * allocates the space instead. It gives the file its full length first, with one zero byte at the
     * end (a hole before it), so that the zero-fill writes land below the end of the file: XFS reserves
     * space past the end of a file that writes extend (speculative preallocation), and showed 128 MiB
     * allocated for each 64 MiB segment while the log was open.
     */
    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        final Operation operation = operations.take(Kind.ALLOCATE, token);
        final OpenFile file = files.file(fileHandle);
        final long lastByteOffset = fileOffset + lengthBytes - 1;
        try {
            // Not with O_DIRECT, which takes whole aligned blocks only and reserves nothing past the end.
            if (!capabilities.directIo() && lengthBytes > 0 && file.channel.size() <= lastByteOffset) {
                final ByteBuffer zero = lastZeroByte.clear();
                while (zero.hasRemaining()) {
                    file.channel.write(zero, lastByteOffset);
                }
            }
            operation.result = 0;
        } catch (final IOException ex) {
            operation.result = -1;
            operation.failure = new IOException(
                    "extending " + file.path + " to " + (lastByteOffset + 1) + " bytes failed: " + ex, ex);
        }
        localCompletions.add(operation);
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        final OpenFile file = files.file(fileHandle);
        handOff(syncOperation(file, file.guard, token));
    }

    /**
     * Runs the fdatasync on the calling thread: no hand-off to the sync thread and back. If an
     * interrupt of the caller hides its outcome (FileChannel reports the interrupt whether the
     * fdatasync succeeded or failed), the sync is handed to the sync thread, which makes it again on
     * the guard channel (see the class comment), and completes like any handed-off sync.
     */
    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        final OpenFile file = files.file(fileHandle);
        final Operation operation = syncOperation(file, file.channel, token);
        try {
            file.channel.force(false);
        } catch (final ClosedByInterruptException ex) {
            final boolean interrupted = Thread.interrupted();
            try {
                file.reopen();
                operation.channel = file.guard;
                handOff(operation);
                return;
            } catch (final IOException reopenFailure) {
                fail(operation, reopenFailure);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        } catch (final IOException | RuntimeException ex) {
            fail(operation, ex);
        }
        localCompletions.add(operation);
    }

    private Operation syncOperation(final OpenFile file, final FileChannel channel, final long token) {
        final Operation operation = operations.take(Kind.SYNC, token);
        operation.channel = channel;
        operation.source = file.path;
        return operation;
    }

    @Override
    public void submitSyncDirectory(final long token) {
        handOff(operations.take(Kind.SYNC_DIRECTORY, token));
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        final Operation operation = operations.take(Kind.RENAME, token);
        files.forEach((file, path) -> {
            if (source.equals(file.path)) {
                file.renamed(target);
            }
        });
        operation.source = source;
        operation.target = target;
        handOff(operation);
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        final Operation operation = operations.take(Kind.DELETE, token);
        operation.source = path;
        handOff(operation);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        int count = 0;
        Operation operation;
        while (count < limit && (operation = nextCompletion()) != null) {
            final long token = operation.token();
            final long result = operation.result;
            final IOException failure = operation.failure;
            operations.release(operation);
            handler.onCompletion(token, result, failure);
            count++;
        }
        return count;
    }

    private Operation nextCompletion() {
        final Operation local = localCompletions.poll();
        return local != null ? local : completionQueue.poll();
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
        running = false;
        LockSupport.unpark(syncThread);
        boolean interrupted = false;
        while (syncThread.isAlive()) {
            try {
                syncThread.join();
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        files.removeAll((file, path) -> file.close());
        closeQuietly(directoryChannel);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void handOff(final Operation operation) {
        if (!syncQueue.offer(operation)) {
            throw new IllegalStateException("sync queue full");
        }
        LockSupport.unpark(syncThread);
    }

    private void runSyncThread() {
        while (true) {
            final Operation operation = syncQueue.poll();
            if (operation == null) {
                if (!running) {
                    return;
                }
                LockSupport.parkNanos(this, SYNC_THREAD_PARK_NS);
                continue;
            }
            execute(operation);
            while (!completionQueue.offer(operation)) {
                Thread.onSpinWait();
            }
            completionSignal.run();
        }
    }

    private void execute(final Operation operation) {
        try {
            switch (operation.kind()) {
                case SYNC -> operation.channel.force(false);
                case SYNC_DIRECTORY -> directoryChannel.force(true);
                case RENAME -> Files.move(operation.source, operation.target, StandardCopyOption.ATOMIC_MOVE);
                case DELETE -> Files.deleteIfExists(operation.source);
                default -> throw new IllegalStateException("not a sync-thread operation: " + operation.kind());
            }
        } catch (final IOException | RuntimeException ex) {
            fail(operation, ex);
        }
    }

    private void fail(final Operation operation, final Exception cause) {
        operation.result = -1;
        operation.failure = new IOException(describe(operation) + " failed: " + cause, cause);
    }

    private String describe(final Operation operation) {
        return switch (operation.kind()) {
            case SYNC -> "fdatasync of " + operation.source;
            case SYNC_DIRECTORY -> "fsync of directory " + directory;
            case RENAME -> "rename of " + operation.source + " to " + operation.target;
            case DELETE -> "delete of " + operation.source;
            case WRITE -> "write";
            case ALLOCATE -> "allocate";
        };
    }

    private static void closeQuietly(final FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // Closing after the last sync loses nothing: every acknowledged byte was synced or
                // was never promised to be.
            }
        }
    }
}
