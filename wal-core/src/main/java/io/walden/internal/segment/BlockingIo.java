package io.walden.internal.segment;

import io.walden.internal.state.Invariants;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Synchronous use of a {@link StorageSession} for cold paths (recovery): submit one operation and
 * poll until it completes.
 *
 * <p><b>Threading:</b> used by the thread that owns the session while no other operation is in
 * flight.
 */
public final class BlockingIo implements CompletionHandler {
    private final StorageSession session;
    private boolean done;
    private long result;
    private IOException failure;

    public BlockingIo(final StorageSession session) {
        this.session = session;
    }

    public StorageSession session() {
        return session;
    }

    public void write(final int fileHandle, final long fileOffset, final ByteBuffer source, final int lengthBytes)
            throws IOException {
        begin();
        session.submitWrite(fileHandle, fileOffset, source, 0, lengthBytes, 0);
        final long written = await();
        if (written != lengthBytes) {
            throw new IOException(
                    "short write of " + written + " of " + lengthBytes + " bytes at offset " + fileOffset);
        }
    }

    /** The bytes allocated: the length, or 0 where the backend or file system cannot. */
    public long allocate(final int fileHandle, final long fileOffset, final long lengthBytes) throws IOException {
        begin();
        session.submitAllocate(fileHandle, fileOffset, lengthBytes, 0);
        return await();
    }

    public void sync(final int fileHandle) throws IOException {
        begin();
        session.submitSync(fileHandle, 0);
        await();
    }

    public void syncDirectory() throws IOException {
        begin();
        session.submitSyncDirectory(0);
        await();
    }

    public void rename(final Path source, final Path target) throws IOException {
        begin();
        session.submitRename(source, target, 0);
        await();
    }

    public void delete(final Path path) throws IOException {
        begin();
        session.submitDelete(path, 0);
        await();
    }

    private void begin() {
        Invariants.check(session.inFlight() == 0, "blocking I/O with %d operations in flight", session.inFlight());
        done = false;
        failure = null;
    }

    private long await() throws IOException {
        while (!done) {
            if (session.poll(this, 1) == 0) {
                Thread.onSpinWait();
            }
        }
        if (failure != null) {
            throw failure;
        }
        return result;
    }

    @Override
    public void onCompletion(final long token, final long completionResult, final IOException completionFailure) {
        done = true;
        result = completionResult;
        failure = completionFailure != null
                ? completionFailure
                : completionResult < 0 ? new IOException("operation failed with result " + completionResult) : null;
    }
}
