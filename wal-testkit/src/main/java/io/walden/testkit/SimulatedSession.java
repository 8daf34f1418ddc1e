package io.walden.testkit;

import io.walden.format.SegmentNames;
import io.walden.spi.CompletionHandler;
import io.walden.spi.FileTable;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.agrona.BufferUtil;

/**
 * One log's session on a {@link SimulatedDisk}. Each operation takes effect on the real files when
 * submitted (the page-cache view) and is recorded as a {@link DiskEvent}; its completion becomes
 * deliverable after a random number of {@link #poll} calls, and its delivery is recorded too, since
 * that is what decides what a later sync covers. Once the disk is frozen every operation fails and
 * nothing more is recorded; a change to the real files is made under the disk's lock, after the check,
 * so that none follows a freeze. Faults armed in the {@link FaultPlan} fail an operation before it
 * changes or records anything.
 *
 * <p><b>Threading:</b> used by one thread at a time, as the SPI requires; every field is owned by that
 * thread.
 */
final class SimulatedSession implements StorageSession {
    private static final int MAX_IN_FLIGHT = 64;
    private static final int WRITE_DELAY_POLLS_MAX = 2;
    private static final int SYNC_DELAY_POLLS_MAX = 8;
    private static final int DIRECTORY_DELAY_POLLS_MAX = 3;
    /**
     * In a third of the sessions, a write to a segment under preparation completes only while nothing
     * else is in flight: the appenders then catch up with the preparation and wait for it.
     */
    private static final int SLOW_PREPARATION_DELAY_POLLS_MAX = 64;

    /** An open file: its channel and identity. */
    private record OpenFile(FileChannel channel, int inode) {}

    private final SimulatedDisk disk;
    private final StorageOptions options;
    private final FaultPlan faults;
    private final SplittableRandom random;
    private final Runnable completionSignal;
    private final FileTable<OpenFile> files = new FileTable<>();
    private final ZeroFillHoles zeroFill;
    private final CompletionQueue inFlight;
    private final boolean slowPreparation;
    // In a third of the sessions, a thread like io_uring's event loop: see EventLoopThread.
    private final EventLoopThread completionThread;
    private final StorageCapabilities capabilities;
    private boolean closed;

    SimulatedSession(
            final SimulatedDisk disk,
            final StorageOptions options,
            final FaultPlan faults,
            final SplittableRandom random,
            final Runnable completionSignal) {
        this.disk = disk;
        this.options = options;
        this.faults = faults;
        this.random = random;
        this.inFlight = new CompletionQueue(random, MAX_IN_FLIGHT);
        this.completionSignal = completionSignal;
        this.zeroFill = new ZeroFillHoles(disk);
        this.slowPreparation = random.nextInt(3) == 0;
        // In half the sessions appenders run the I/O of their own records when the log is idle, racing
        // the I/O thread for it; their completions are delayed like any other.
        final boolean callerMayRunIo = random.nextBoolean();
        // Most sessions overlap writes (a device's queue; with O_DSYNC the log then keeps several
        // group writes in flight, completed here in any order); a quarter carry one at a time.
        final int overlappingWritesMax = random.nextInt(4) == 0 ? 1 : 2 + random.nextInt(15);
        this.completionThread = random.nextInt(3) == 0 ? new EventLoopThread(completionSignal) : null;
        this.capabilities = StorageCapabilities.of(options, MAX_IN_FLIGHT)
                .withCallerMayRunIo(callerMayRunIo)
                .withCompletionThreadMayRunIo(completionThread != null)
                .withOverlappingWritesMax(overlappingWritesMax);
    }

    /**
     * The options' mode, {@value #MAX_IN_FLIGHT} operations in flight, and what this session drew:
     * whether appenders run I/O, whether an event-loop thread does, how many writes overlap.
     */
    @Override
    public StorageCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        checkInDirectory(path);
        final String name = nameOf(path);
        // Under the disk's lock: a power failure (a freeze) cannot fall between the check and the
        // change to the real files, which a crash of the storage is about to rewrite.
        synchronized (disk) {
            if (disk.frozen()) {
                throw powerLoss("open " + path);
            }
            if (create) {
                final FileChannel channel;
                try {
                    channel = FileChannel.open(
                            path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ);
                } catch (final FileAlreadyExistsException ex) {
                    throw new IOException("cannot create " + path + ": it exists", ex);
                }
                final int inode = disk.addInode(name);
                if (!disk.record(new DiskEvent.Create(inode, name))) {
                    channel.close();
                    Files.deleteIfExists(path);
                    disk.removeInode(name);
                    throw powerLoss("create " + path);
                }
                return files.add(new OpenFile(channel, inode), path);
            }
            final int inode = disk.inode(name);
            if (inode < 0) {
                throw new NoSuchFileException(path.toString(), null, "the simulated disk has no such file");
            }
            final FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.READ);
            return files.add(new OpenFile(channel, inode), path);
        }
    }

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        settle(files.file(fileHandle));
        files.remove(fileHandle).channel().close();
    }

    /** Gives a file the size its zero-fill reached ({@link ZeroFillHoles}). */
    private void settle(final OpenFile file) throws IOException {
        zeroFill.settle(file.inode(), file.channel());
    }

    private void settleAll() throws IOException {
        if (!zeroFill.pending()) {
            return;
        }
        final List<OpenFile> open = new ArrayList<>();
        files.forEach((file, path) -> open.add(file));
        for (final OpenFile file : open) {
            settle(file);
        }
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        final Path path = files.path(fileHandle);
        final Supplier<String> description =
                () -> "write of " + lengthBytes + " bytes at offset " + fileOffset + " to " + path;
        if (options.directIo()) {
            final long address = BufferUtil.address(source) + sourceOffset;
            final int block = options.blockSizeBytes();
            if (fileOffset % block != 0 || lengthBytes % block != 0 || address % block != 0) {
                fail(
                        token,
                        new IOException(description.get()
                                + " is not aligned to " + block + " bytes (address " + address
                                + ") as O_DIRECT requires: EINVAL"));
                return;
            }
        }
        final IOException injected =
                isSegment(fileHandle) ? faults.take(FaultPlan.Target.SEGMENT_WRITE, description) : null;
        if (injected != null) {
            fail(token, injected);
            return;
        }
        final byte[] bytes = WriteBytes.copy(source, sourceOffset, lengthBytes);
        final long writeId = disk.nextId();
        synchronized (disk) {
            if (!disk.record(new DiskEvent.Write(writeId, files.file(fileHandle).inode(), fileOffset, bytes))) {
                fail(token, powerLoss(description.get()));
                return;
            }
            try {
                final OpenFile file = files.file(fileHandle);
                if (!zeroFill.skip(nameOf(path), file.inode(), file.channel(), fileOffset, bytes)) {
                    // From the log's own (direct) buffer: no copy of the copy.
                    final ByteBuffer view = source.slice(sourceOffset, lengthBytes);
                    while (view.hasRemaining()) {
                        file.channel().write(view, fileOffset + view.position());
                    }
                }
            } catch (final IOException ex) {
                throw new IllegalStateException(description.get() + " failed on the real file: " + ex, ex);
            }
        }
        final boolean preparation = slowPreparation && nameOf(path).endsWith(SegmentNames.TEMPORARY_SUFFIX);
        final int delayPolls = preparation
                ? random.nextInt(SLOW_PREPARATION_DELAY_POLLS_MAX + 1)
                : random.nextInt(WRITE_DELAY_POLLS_MAX + 1);
        queue(CompletionQueue.Kind.WRITE, token, writeId, lengthBytes, description, delayPolls, faults.writeDelayNs())
                .stalled = preparation;
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        final Path path = files.path(fileHandle);
        final Supplier<String> description = () -> "fdatasync of " + path;
        try {
            settle(files.file(fileHandle));
        } catch (final IOException ex) {
            fail(token, new IOException(description.get() + " failed: " + ex, ex));
            return;
        }
        final long syncId = disk.nextId();
        queueSync(
                token,
                isSegment(fileHandle) ? faults.take(FaultPlan.Target.SEGMENT_SYNC, description) : null,
                new DiskEvent.Sync(syncId, files.file(fileHandle).inode()),
                CompletionQueue.Kind.SYNC,
                description);
    }

    /** Queues a sync of a file or of the directory, unless an injected fault or the power failure fails it. */
    private void queueSync(
            final long token,
            final IOException injected,
            final DiskEvent submitted,
            final CompletionQueue.Kind kind,
            final Supplier<String> description) {
        if (injected != null) {
            fail(token, injected);
            return;
        }
        if (!disk.record(submitted)) {
            fail(token, powerLoss(description.get()));
            return;
        }
        final long syncId = submitted instanceof DiskEvent.Sync sync
                ? sync.syncId()
                : ((DiskEvent.DirectorySync) submitted).syncId();
        queue(kind, token, syncId, 0, description, random.nextInt(SYNC_DELAY_POLLS_MAX + 1), faults.syncDelayNs());
    }

    /**
     * Submits a preallocation; the simulated disk cannot preallocate, so it completes with 0 and
     * changes nothing.
     *
     * @param fileHandle the file.
     * @param fileOffset where the range starts.
     * @param lengthBytes how long it is.
     * @param token returned with the completion.
     */
    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        final Supplier<String> description =
                () -> "allocation of " + lengthBytes + " bytes at " + fileOffset + " in " + files.path(fileHandle);
        if (disk.frozen()) {
            fail(token, powerLoss(description.get()));
            return;
        }
        queue(CompletionQueue.Kind.NOTHING, token, 0, 0, description, random.nextInt(DIRECTORY_DELAY_POLLS_MAX + 1), 0);
    }

    @Override
    public void submitSyncDirectory(final long token) {
        final Supplier<String> description = () -> "fsync of the directory " + disk.directory();
        queueSync(
                token,
                faults.take(FaultPlan.Target.DIRECTORY_SYNC, description),
                new DiskEvent.DirectorySync(disk.nextId()),
                CompletionQueue.Kind.DIRECTORY_SYNC,
                description);
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        final Supplier<String> description = () -> "rename of " + source + " to " + target;
        final long opId = disk.nextId();
        try {
            settleAll();
        } catch (final IOException ex) {
            fail(token, new IOException(description.get() + " failed: " + ex, ex));
            return;
        }
        synchronized (disk) {
            if (disk.frozen()) {
                fail(token, powerLoss(description.get()));
                return;
            }
            try {
                checkInDirectory(source);
                checkInDirectory(target);
                Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (final IOException ex) {
                fail(token, new IOException(description.get() + " failed: " + ex, ex));
                return;
            }
            disk.renameInode(nameOf(source), nameOf(target));
            // Not frozen, so this records: the rename happened.
            disk.record(new DiskEvent.Rename(opId, nameOf(source), nameOf(target)));
        }
        queueDirectoryOperation(token, opId, description);
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        final Supplier<String> description = () -> "delete of " + path;
        final long opId = disk.nextId();
        synchronized (disk) {
            if (disk.frozen()) {
                fail(token, powerLoss(description.get()));
                return;
            }
            final boolean existed;
            try {
                checkInDirectory(path);
                existed = Files.deleteIfExists(path);
            } catch (final IOException ex) {
                fail(token, new IOException(description.get() + " failed: " + ex, ex));
                return;
            }
            if (!existed || !disk.removeInode(nameOf(path))) {
                // Deleting a missing file succeeds and changes nothing.
                queue(CompletionQueue.Kind.NOTHING, token, 0, 0, description, 0, 0);
                return;
            }
            disk.record(new DiskEvent.Delete(opId, nameOf(path)));
        }
        queueDirectoryOperation(token, opId, description);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        final List<CompletionQueue.Operation> ready = inFlight.takeReady(limit);
        for (final CompletionQueue.Operation operation : ready) {
            deliver(operation, handler);
        }
        return ready.size();
    }

    private void deliver(final CompletionQueue.Operation operation, final CompletionHandler handler) {
        if (operation.failure != null) {
            handler.onCompletion(operation.token, operation.result, operation.failure);
            return;
        }
        final DiskEvent done =
                switch (operation.kind) {
                    case WRITE -> new DiskEvent.WriteDone(operation.id, options.dsync());
                    case SYNC -> new DiskEvent.SyncDone(operation.id);
                    case DIRECTORY_OP -> new DiskEvent.DirectoryOpDone(operation.id);
                    case DIRECTORY_SYNC -> new DiskEvent.DirectorySyncDone(operation.id);
                    case NOTHING -> null;
                };
        if ((done == null && disk.frozen()) || (done != null && !disk.record(done))) {
            handler.onCompletion(operation.token, -1, powerLoss(operation.description.get()));
            return;
        }
        handler.onCompletion(operation.token, operation.result, null);
    }

    @Override
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (completionThread != null) {
            completionThread.stop();
        }
        inFlight.clear();
        files.removeAll((file, path) -> {
            try {
                settle(file);
                file.channel().close();
            } catch (final IOException ex) {
                throw new IllegalStateException("cannot close " + path + ": " + ex, ex);
            }
        });
    }

    /** Queues an operation that completes and signals the log. */
    private CompletionQueue.Operation queue(
            final CompletionQueue.Kind kind,
            final long token,
            final long id,
            final long result,
            final Supplier<String> description,
            final int pollsLeft,
            final long delayNs) {
        final CompletionQueue.Operation operation = inFlight.add(
                CompletionQueue.Operation.completing(kind, token, id, result, description, pollsLeft, delayNs));
        completionSignal.run();
        return operation;
    }

    /** Queues a rename or delete that happened, whose completion is delivered after a few polls. */
    private void queueDirectoryOperation(final long token, final long opId, final Supplier<String> description) {
        queue(
                CompletionQueue.Kind.DIRECTORY_OP,
                token,
                opId,
                0,
                description,
                random.nextInt(DIRECTORY_DELAY_POLLS_MAX + 1),
                0);
    }

    /** Queues an operation that fails at the next poll, recording nothing. */
    private void fail(final long token, final IOException failure) {
        inFlight.add(CompletionQueue.Operation.failing(token, failure));
        completionSignal.run();
    }

    /** Whether a file is a segment now: one opened as a temporary file was renamed into place since. */
    private boolean isSegment(final int fileHandle) {
        final String name = disk.currentName(files.file(fileHandle).inode());
        return name != null && name.endsWith(SegmentNames.SEGMENT_SUFFIX);
    }

    private void checkInDirectory(final Path path) throws IOException {
        final Path parent = path.toAbsolutePath().getParent();
        if (parent == null || !parent.equals(disk.directory().toAbsolutePath())) {
            throw new IOException(path + " is outside the simulated directory " + disk.directory());
        }
    }

    private static String nameOf(final Path path) {
        return path.getFileName().toString();
    }

    private IOException powerLoss(final String what) {
        return new IOException(
                "simulated power loss: " + what + " did not happen (the disk of " + disk.directory() + " is frozen)");
    }
}
