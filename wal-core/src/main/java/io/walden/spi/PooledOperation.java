package io.walden.spi;

/**
 * One operation of a session in flight, kept in an {@link OperationPool}: its kind, the log's token
 * and its fixed place in the pool. A backend's subclass adds what it needs to carry the operation
 * out and says in {@link #clear()} how to let go of it.
 *
 * <p><b>Threading:</b> taken and released by the session's owning thread, as the pool; in between a
 * backend may hand it to a thread of its own and back through queues that order the hand-offs.
 */
public abstract class PooledOperation {
    /** What an operation does: one kind per submit method of {@link StorageSession}. */
    public enum Kind {
        /** {@link StorageSession#submitWrite} or {@link StorageSession#submitWriteOnCaller}. */
        WRITE,
        /** {@link StorageSession#submitAllocate}. */
        ALLOCATE,
        /** {@link StorageSession#submitSync} or {@link StorageSession#submitSyncOnCaller}. */
        SYNC,
        /** {@link StorageSession#submitSyncDirectory}. */
        SYNC_DIRECTORY,
        /** {@link StorageSession#submitRename}. */
        RENAME,
        /** {@link StorageSession#submitDelete}. */
        DELETE
    }

    private final int index;
    // Owning thread (set when taken): what the operation does and the log's token for it.
    private Kind kind;
    private long token;
    private boolean taken;

    /**
     * Creates the operation that takes one place in a pool.
     *
     * @param index its place, which {@link OperationPool} gives the factory.
     */
    protected PooledOperation(final int index) {
        this.index = index;
    }

    /**
     * @return its place in the pool, fixed for the pool's life: an io_uring ring entry's user data,
     *     for {@link OperationPool#get}.
     */
    public final int index() {
        return index;
    }

    /** @return what the operation does; set when it was taken. */
    public final Kind kind() {
        return kind;
    }

    /** @return the token the log gave at submission; set when it was taken. */
    public final long token() {
        return token;
    }

    /**
     * Lets go of what the backend's fields refer to (files, paths, buffers, a failure) and resets its
     * result, so a free operation keeps nothing alive. Called by {@link OperationPool#release}.
     */
    protected abstract void clear();

    void taken(final Kind kind, final long token) {
        this.kind = kind;
        this.token = token;
        this.taken = true;
    }

    boolean isTaken() {
        return taken;
    }

    void released() {
        clear();
        taken = false;
    }
}
