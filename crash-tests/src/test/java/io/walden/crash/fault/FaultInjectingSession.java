package io.walden.crash.fault;

import io.walden.format.SegmentNames;
import io.walden.spi.CompletionHandler;
import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The session of a {@link FaultInjectingBackend}: forwards every operation to the real session under its
 * own token, injects the armed fault, and holds completions back while the fault waits for release.
 *
 * <p>A partial write really writes its first part through the real session and turns that part's
 * completion into the fault's: ENOSPC, or a short result. A split write submits two non-overlapping
 * parts and completes once, with the whole length, when both did.
 *
 * <p><b>Threading:</b> used as the SPI requires, by one thread at a time; {@link #wakeLog} from any
 * thread.
 */
final class FaultInjectingSession extends ForwardingStorageSession implements CompletionHandler {
    /** What a forwarded operation is to the log. */
    private enum Role {
        PLAIN,
        FAULT_PART,
        SPLIT_PART
    }

    /** A log operation in flight below; one per log operation, shared by the parts of a split write. */
    private static final class Pending {
        final long token;
        final Role role;
        final FaultKind kind;
        final String description;
        final int lengthBytes;
        int partsLeft;
        long resultSum;
        IOException failure;

        Pending(final long token, final Role role, final FaultKind kind, final String description, final int length) {
            this.token = token;
            this.role = role;
            this.kind = kind;
            this.description = description;
            this.lengthBytes = length;
            this.partsLeft = role == Role.SPLIT_PART ? 2 : 1;
        }
    }

    /** A completion for the log, held or ready. */
    private record Completion(long token, long result, IOException failure) {}

    private final FaultInjectingBackend control;
    private final Path directory;
    private final Runnable completionSignal;
    private final StorageCapabilities capabilities;
    private final Map<Integer, Path> paths = new HashMap<>();
    private final Map<Long, Pending> forwarded = new HashMap<>();
    private final ArrayDeque<Completion> held = new ArrayDeque<>();
    private long nextId = 1;
    private int inFlight;
    private boolean holding;
    private boolean faultDelivered;
    private Completion fault;
    private CompletionHandler target;
    private int delivered;

    FaultInjectingSession(
            final FaultInjectingBackend control,
            final StorageSession delegate,
            final Path directory,
            final Runnable completionSignal) {
        super(delegate);
        this.control = control;
        this.directory = directory;
        this.completionSignal = completionSignal;
        final StorageCapabilities backend = delegate.capabilities();
        this.capabilities =
                backend.withMaxInFlight(Math.max(1, backend.maxInFlight() / 2)).withCompletionThreadMayRunIo(false);
    }

    /** Wakes the log's thread so that it polls. Any thread. */
    void wakeLog() {
        completionSignal.run();
    }

    /**
     * As the backend's, appenders running writes and syncs, faults included, on their own threads where
     * it lets them; but half as many operations in flight (a split write takes two of the real
     * session's), and the completion signal only wakes the log: its I/O never runs on the backend's
     * completion thread here.
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
        inFlight++;
        final Path path = paths.get(fileHandle);
        final FaultKind.Target target = isTemporary(path)
                ? FaultKind.Target.PREPARE_WRITE
                : isSegment(path) ? FaultKind.Target.DATA_WRITE : null;
        final FaultKind kind = target == null ? null : control.take(target);
        if (kind != null) {
            final int part = kind.writesPart()
                    ? control.partialLength(fileOffset, lengthBytes, capabilities.blockSizeBytes())
                    : 0;
            final String description = "write of " + lengthBytes + " bytes at offset " + fileOffset + " to " + path;
            startHolding(path, kind + ": " + description + ", " + part + " bytes of it written");
            final Pending pending = new Pending(token, Role.FAULT_PART, kind, description, part);
            if (part > 0) {
                delegate().submitWrite(fileHandle, fileOffset, source, sourceOffset, part, register(pending));
            } else {
                completeFault(pending, 0);
            }
            return;
        }
        if (control.splitWrites() && isSegment(path)) {
            final int part = control.partialLength(fileOffset, lengthBytes, capabilities.blockSizeBytes());
            if (part > 0) {
                final long id = register(new Pending(token, Role.SPLIT_PART, null, null, lengthBytes));
                delegate().submitWrite(fileHandle, fileOffset, source, sourceOffset, part, id);
                delegate()
                        .submitWrite(
                                fileHandle, fileOffset + part, source, sourceOffset + part, lengthBytes - part, id);
                return;
            }
        }
        delegate().submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, plain(token));
    }

    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        inFlight++;
        final Path path = paths.get(fileHandle);
        final FaultKind kind = isTemporary(path) ? control.take(FaultKind.Target.PREPARE_ALLOCATE) : null;
        if (kind != null) {
            final String description = "fallocate of " + lengthBytes + " bytes at offset " + fileOffset + " of " + path;
            startHolding(path, kind + ": " + description);
            completeFault(new Pending(token, Role.FAULT_PART, kind, description, 0), 0);
            return;
        }
        delegate().submitAllocate(fileHandle, fileOffset, lengthBytes, plain(token));
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        sync(fileHandle, token, false);
    }

    /** Injects faults as {@link #submitSync} does; otherwise lets the backend sync on the caller. */
    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        sync(fileHandle, token, true);
    }

    private void sync(final int fileHandle, final long token, final boolean onCaller) {
        inFlight++;
        final Path path = paths.get(fileHandle);
        final FaultKind kind = isSegment(path) ? control.take(FaultKind.Target.DATA_SYNC) : null;
        if (kind != null) {
            final String description = "fdatasync of " + path;
            startHolding(path, kind + ": " + description);
            completeFault(new Pending(token, Role.FAULT_PART, kind, description, 0), 0);
            return;
        }
        if (onCaller) {
            delegate().submitSyncOnCaller(fileHandle, plain(token));
        } else {
            delegate().submitSync(fileHandle, plain(token));
        }
    }

    @Override
    public void submitSyncDirectory(final long token) {
        inFlight++;
        final FaultKind kind = control.take(FaultKind.Target.DIRECTORY_SYNC);
        if (kind != null) {
            final String description = "fsync of directory " + directory;
            startHolding(directory, kind + ": " + description);
            completeFault(new Pending(token, Role.FAULT_PART, kind, description, 0), 0);
            return;
        }
        delegate().submitSyncDirectory(plain(token));
    }

    @Override
    public void submitRename(final Path source, final Path renamed, final long token) {
        inFlight++;
        paths.replaceAll((handle, path) -> path.equals(source) ? renamed : path);
        delegate().submitRename(source, renamed, plain(token));
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        inFlight++;
        delegate().submitDelete(path, plain(token));
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        if (holding) {
            // Let the real operations finish and keep their completions.
            target = null;
            delegate().poll(this, Integer.MAX_VALUE);
            if (!control.released() || fault == null) {
                return 0;
            }
            holding = false;
        }
        int count = 0;
        if (fault != null && !faultDelivered) {
            faultDelivered = true;
            count += deliver(handler, fault);
        }
        while (count < limit && !held.isEmpty()) {
            count += deliver(handler, held.poll());
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
        final Pending pending = forwarded.get(id);
        if (pending == null) {
            throw new AssertionError("completion of unknown operation " + id);
        }
        if (--pending.partsLeft > 0) {
            pending.resultSum += Math.max(0, result);
            pending.failure = pending.failure != null ? pending.failure : failure;
            return;
        }
        forwarded.remove(id);
        switch (pending.role) {
            case FAULT_PART -> completeFault(pending, failure == null ? result : -1);
            case SPLIT_PART -> {
                final IOException cause = pending.failure != null ? pending.failure : failure;
                final long total = pending.resultSum + Math.max(0, result);
                route(new Completion(
                        pending.token,
                        cause != null || total != pending.lengthBytes ? -1 : total,
                        cause != null || total == pending.lengthBytes
                                ? cause
                                : new IOException("split write completed " + total + " of " + pending.lengthBytes)));
            }
            case PLAIN -> route(new Completion(pending.token, result, failure));
        }
    }

    @Override
    public int inFlight() {
        return inFlight;
    }

    @Override
    public void close() {
        delegate().close();
        held.clear();
        forwarded.clear();
    }

    private void startHolding(final Path path, final String description) {
        holding = true;
        control.onInjected(path, description);
    }

    /** The fault's completion, once the written part (if any) completed with {@code partResult}. */
    private void completeFault(final Pending pending, final long partResult) {
        final FaultKind kind = pending.kind;
        if (kind.reportsShort()) {
            // As write(2) returns a short count: no error, fewer bytes.
            fault = new Completion(pending.token, Math.max(0, partResult), null);
            control.onFaultCompleted(null);
        } else {
            final IOException failure = new IOException(pending.description + " failed"
                    + (kind.writesPart() ? " after " + Math.max(0, partResult) + " bytes" : "") + ": " + kind.cause()
                    + ", injected by " + FaultInjectingBackend.class.getSimpleName());
            fault = new Completion(pending.token, -1, failure);
            control.onFaultCompleted(failure);
        }
        completionSignal.run();
    }

    private void route(final Completion completion) {
        if (holding || target == null || !held.isEmpty()) {
            held.add(completion);
        } else {
            delivered += deliver(target, completion);
        }
    }

    private int deliver(final CompletionHandler handler, final Completion completion) {
        inFlight--;
        handler.onCompletion(completion.token(), completion.result(), completion.failure());
        return 1;
    }

    private long plain(final long token) {
        return register(new Pending(token, Role.PLAIN, null, null, 0));
    }

    private long register(final Pending pending) {
        final long id = nextId++;
        forwarded.put(id, pending);
        return id;
    }

    private static boolean isSegment(final Path path) {
        return path != null && path.getFileName().toString().endsWith(SegmentNames.SEGMENT_SUFFIX);
    }

    private static boolean isTemporary(final Path path) {
        return path != null && path.getFileName().toString().endsWith(SegmentNames.TEMPORARY_SUFFIX);
    }
}
