package io.walden.crash.power;

import io.walden.format.SegmentNames;
import io.walden.spi.CompletionHandler;
import io.walden.spi.FileTable;
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
import java.util.concurrent.locks.LockSupport;
import org.agrona.BufferUtil;

/**
 * One log's session on a {@link SimulatedDisk}. Each operation takes effect on the real files when
 * submitted (the page-cache view) and is recorded as a {@link DiskEvent}; its completion becomes
 * deliverable after a random number of {@link #poll} calls, and its delivery is recorded too, since
 * that is what decides what a later sync covers. Once the disk is frozen every operation fails and
 * nothing more is recorded.
 *
 * <p><b>Threading:</b> used by one thread at a time, as the SPI requires; every field is owned by that
 * thread.
 */
final class SimulatedSession implements StorageSession {
    private static final int MAX_IN_FLIGHT = 64;
    private static final long COMPLETION_SIGNAL_INTERVAL_NS = 20_000;
    private static final int WRITE_DELAY_POLLS_MAX = 2;
    private static final int SYNC_DELAY_POLLS_MAX = 8;
    private static final int DIRECTORY_DELAY_POLLS_MAX = 3;
    /**
     * In a third of the sessions, a write to a segment under preparation completes only while nothing
     * else is in flight: the appenders then catch up with the zero-fill, and the log cuts it short (a
     * hurried segment).
     */
    private static final int SLOW_PREPARATION_DELAY_POLLS_MAX = 64;

    /** What a queued completion will record when it is delivered. */
    private enum Kind {
        WRITE,
        SYNC,
        DIRECTORY_OP,
        DIRECTORY_SYNC,
        NOTHING
    }

    /** An open file: its channel and identity. */
    private record OpenFile(FileChannel channel, int inode) {}

    /** An operation submitted and not yet delivered. */
    private static final class Operation {
        final Kind kind;
        final long token;
        final long id;
        final long result;
        final IOException failure;
        final String description;
        int pollsLeft;
        // A preparation write of a slow-preparation session: deliverable only when nothing else is in
        // flight.
        boolean stalled;

        Operation(
                final Kind kind,
                final long token,
                final long id,
                final long result,
                final IOException failure,
                final String description,
                final int pollsLeft) {
            this.kind = kind;
            this.token = token;
            this.id = id;
            this.result = result;
            this.failure = failure;
            this.description = description;
            this.pollsLeft = pollsLeft;
        }
    }

    private final SimulatedDisk disk;
    private final StorageOptions options;
    private final SplittableRandom random;
    private final Runnable completionSignal;
    private final FileTable<OpenFile> files = new FileTable<>();
    private final List<Operation> inFlight = new ArrayList<>();
    private final boolean slowPreparation;
    // In half the sessions appenders run the I/O of their own records when the log is idle, racing
    // the I/O thread for it; their completions are delayed like any other.
    private final boolean callerMayRunIo;
    // In a third of the sessions a thread of the session's own, like io_uring's event loop, signals
    // completions every few tens of microseconds, and the log runs completion rounds on it (writes and
    // syncs submitted from there), racing the I/O thread and the appenders for the duty.
    private final Thread completionThread;
    private volatile boolean completionThreadStopped;
    private boolean closed;

    SimulatedSession(
            final SimulatedDisk disk,
            final StorageOptions options,
            final SplittableRandom random,
            final Runnable completionSignal) {
        this.disk = disk;
        this.options = options;
        this.random = random;
        this.completionSignal = completionSignal;
        this.slowPreparation = random.nextInt(3) == 0;
        this.callerMayRunIo = random.nextBoolean();
        if (random.nextInt(3) == 0) {
            completionThread = new Thread(this::signalCompletions, "walden-simulated-event-loop");
            completionThread.setDaemon(true);
            completionThread.start();
        } else {
            completionThread = null;
        }
    }

    @Override
    public boolean callerMayRunIo() {
        return callerMayRunIo;
    }

    @Override
    public boolean completionThreadMayRunIo() {
        return completionThread != null;
    }

    /** The simulated event loop: signals until the session closes. */
    private void signalCompletions() {
        while (!completionThreadStopped) {
            completionSignal.run();
            LockSupport.parkNanos(COMPLETION_SIGNAL_INTERVAL_NS);
        }
    }

    @Override
    public boolean directIo() {
        return options.directIo();
    }

    @Override
    public boolean writesDurable() {
        return options.dsync();
    }

    @Override
    public int blockSizeBytes() {
        return options.blockSizeBytes();
    }

    @Override
    public int maxInFlight() {
        return MAX_IN_FLIGHT;
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        checkUsable(path);
        final String name = nameOf(path);
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

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        files.remove(fileHandle).channel().close();
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
        final String description = "write of " + lengthBytes + " bytes at offset " + fileOffset + " to " + path;
        if (options.directIo()) {
            final long address = BufferUtil.address(source) + sourceOffset;
            final int block = options.blockSizeBytes();
            if (fileOffset % block != 0 || lengthBytes % block != 0 || address % block != 0) {
                queue(
                        Kind.NOTHING,
                        token,
                        0,
                        -1,
                        new IOException(description
                                + " is not aligned to " + block + " bytes (address " + address
                                + ") as O_DIRECT requires: EINVAL"),
                        description,
                        0);
                return;
            }
        }
        final byte[] bytes = new byte[lengthBytes];
        source.get(sourceOffset, bytes);
        final long writeId = disk.nextId();
        if (!disk.record(new DiskEvent.Write(writeId, files.file(fileHandle).inode(), fileOffset, bytes))) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        try {
            final ByteBuffer view = ByteBuffer.wrap(bytes);
            final FileChannel channel = files.file(fileHandle).channel();
            while (view.hasRemaining()) {
                channel.write(view, fileOffset + view.position());
            }
        } catch (final IOException ex) {
            throw new IllegalStateException(description + " failed on the real file: " + ex, ex);
        }
        final boolean preparation = slowPreparation
                && files.path(fileHandle).getFileName().toString().endsWith(SegmentNames.TEMPORARY_SUFFIX);
        final int delayPolls = preparation
                ? random.nextInt(SLOW_PREPARATION_DELAY_POLLS_MAX + 1)
                : random.nextInt(WRITE_DELAY_POLLS_MAX + 1);
        queue(Kind.WRITE, token, writeId, lengthBytes, null, description, delayPolls);
        inFlight.get(inFlight.size() - 1).stalled = preparation;
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        final String description = "fdatasync of " + files.path(fileHandle);
        final long syncId = disk.nextId();
        if (!disk.record(new DiskEvent.Sync(syncId, files.file(fileHandle).inode()))) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        queue(Kind.SYNC, token, syncId, 0, null, description, random.nextInt(SYNC_DELAY_POLLS_MAX + 1));
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
        final String description =
                "allocation of " + lengthBytes + " bytes at " + fileOffset + " in " + files.path(fileHandle);
        if (disk.frozen()) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        queue(Kind.NOTHING, token, 0, 0, null, description, random.nextInt(DIRECTORY_DELAY_POLLS_MAX + 1));
    }

    @Override
    public void submitSyncDirectory(final long token) {
        final String description = "fsync of the directory " + disk.directory();
        final long syncId = disk.nextId();
        if (!disk.record(new DiskEvent.DirectorySync(syncId))) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        queue(Kind.DIRECTORY_SYNC, token, syncId, 0, null, description, random.nextInt(SYNC_DELAY_POLLS_MAX + 1));
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        final String description = "rename of " + source + " to " + target;
        if (disk.frozen()) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        try {
            checkInDirectory(source);
            checkInDirectory(target);
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (final IOException ex) {
            queue(Kind.NOTHING, token, 0, -1, new IOException(description + " failed: " + ex, ex), description, 0);
            return;
        }
        disk.renameInode(nameOf(source), nameOf(target));
        final long opId = disk.nextId();
        if (!disk.record(new DiskEvent.Rename(opId, nameOf(source), nameOf(target)))) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        queue(Kind.DIRECTORY_OP, token, opId, 0, null, description, random.nextInt(DIRECTORY_DELAY_POLLS_MAX + 1));
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        final String description = "delete of " + path;
        if (disk.frozen()) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        final boolean existed;
        try {
            checkInDirectory(path);
            existed = Files.deleteIfExists(path);
        } catch (final IOException ex) {
            queue(Kind.NOTHING, token, 0, -1, new IOException(description + " failed: " + ex, ex), description, 0);
            return;
        }
        if (!existed || !disk.removeInode(nameOf(path))) {
            // Deleting a missing file succeeds and changes nothing.
            queue(Kind.NOTHING, token, 0, 0, null, description, 0);
            return;
        }
        final long opId = disk.nextId();
        if (!disk.record(new DiskEvent.Delete(opId, nameOf(path)))) {
            queue(Kind.NOTHING, token, 0, -1, powerLoss(description), description, 0);
            return;
        }
        queue(Kind.DIRECTORY_OP, token, opId, 0, null, description, random.nextInt(DIRECTORY_DELAY_POLLS_MAX + 1));
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        final List<Operation> ready = new ArrayList<>();
        int stalledCount = 0;
        for (final Operation operation : inFlight) {
            stalledCount += operation.stalled ? 1 : 0;
        }
        final boolean othersInFlight = inFlight.size() > stalledCount;
        for (int i = 0; i < inFlight.size(); i++) {
            final Operation operation = inFlight.get(i);
            if (operation.pollsLeft-- <= 0 && !(operation.stalled && othersInFlight)) {
                ready.add(operation);
            }
        }
        // Delivered in random order: a device completes operations in any order.
        while (ready.size() > limit) {
            ready.remove(random.nextInt(ready.size()));
        }
        for (int i = ready.size() - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final Operation swap = ready.get(i);
            ready.set(i, ready.get(j));
            ready.set(j, swap);
        }
        inFlight.removeAll(ready);
        for (final Operation operation : ready) {
            deliver(operation, handler);
        }
        return ready.size();
    }

    private void deliver(final Operation operation, final CompletionHandler handler) {
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
            handler.onCompletion(operation.token, -1, powerLoss(operation.description));
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
            completionThreadStopped = true;
            boolean interrupted = false;
            while (completionThread.isAlive()) {
                try {
                    completionThread.join();
                } catch (final InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        inFlight.clear();
        files.removeAll((file, path) -> {
            try {
                file.channel().close();
            } catch (final IOException ex) {
                throw new IllegalStateException("cannot close " + path + ": " + ex, ex);
            }
        });
    }

    private void queue(
            final Kind kind,
            final long token,
            final long id,
            final long result,
            final IOException failure,
            final String description,
            final int pollsLeft) {
        if (inFlight.size() >= MAX_IN_FLIGHT) {
            throw new IllegalStateException("more than " + MAX_IN_FLIGHT + " operations in flight");
        }
        inFlight.add(new Operation(kind, token, id, result, failure, description, pollsLeft));
        completionSignal.run();
    }

    private void checkUsable(final Path path) throws IOException {
        checkInDirectory(path);
        if (disk.frozen()) {
            throw powerLoss("open " + path);
        }
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
