package io.walden.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A storage session that forwards every call to another: the base for a session that changes a few
 * operations of a real one (to inject faults, delays or interrupts, or to record them). Every method,
 * including the defaults of {@link StorageSession}, forwards as it is, but {@link
 * #submitWriteOnCaller}, which goes through this session's {@link #submitWrite}.
 *
 * <p><b>Threading:</b> as the session it forwards to.
 */
public class ForwardingStorageSession implements StorageSession {
    private final StorageSession delegate;

    /**
     * Forwards to a session.
     *
     * @param delegate the session that does the work.
     */
    protected ForwardingStorageSession(final StorageSession delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the session this one forwards to. */
    protected final StorageSession delegate() {
        return delegate;
    }

    /** The delegate's; a wrapper that changes them overrides this, answering alike on every call. */
    @Override
    public StorageCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        return delegate.openFile(path, create);
    }

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        delegate.closeFile(fileHandle);
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        delegate.submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
    }

    /**
     * Submits through this session's {@link #submitWrite}, so that a wrapper that changes writes
     * changes these too; one that does not may pass them to its delegate's {@code submitWriteOnCaller}.
     */
    @Override
    public void submitWriteOnCaller(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
    }

    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        delegate.submitAllocate(fileHandle, fileOffset, lengthBytes, token);
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        delegate.submitSync(fileHandle, token);
    }

    /**
     * Passes the sync on to the delegate's {@code submitSyncOnCaller}; a wrapper that changes syncs
     * overrides this too, if only to route it through its own {@link #submitSync}.
     */
    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        delegate.submitSyncOnCaller(fileHandle, token);
    }

    @Override
    public void submitSyncDirectory(final long token) {
        delegate.submitSyncDirectory(token);
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        delegate.submitRename(source, target, token);
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        delegate.submitDelete(path, token);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        return delegate.poll(handler, limit);
    }

    @Override
    public int inFlight() {
        return delegate.inFlight();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
