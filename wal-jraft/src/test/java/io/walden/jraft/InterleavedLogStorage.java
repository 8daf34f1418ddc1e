package io.walden.jraft;

import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import java.util.List;

/**
 * A log storage that delegates every call and, after each call that writes, waits for a whole round of
 * a {@link GroupChurn}: the other groups of the shared log are written between any two writes of this
 * one, whichever thread makes them (the test's or jraft's log manager's).
 *
 * <p><b>Threading:</b> as the delegate's.
 */
final class InterleavedLogStorage implements LogStorage {
    private final LogStorage delegate;
    private final GroupChurn churn;

    InterleavedLogStorage(final LogStorage delegate, final GroupChurn churn) {
        this.delegate = delegate;
        this.churn = churn;
    }

    /** @return the storage this one delegates to. */
    LogStorage delegate() {
        return delegate;
    }

    @Override
    public boolean init(final LogStorageOptions options) {
        final boolean done = delegate.init(options);
        churn.awaitRound();
        return done;
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    public long getFirstLogIndex() {
        return delegate.getFirstLogIndex();
    }

    @Override
    public long getLastLogIndex() {
        return delegate.getLastLogIndex();
    }

    @Override
    public LogEntry getEntry(final long index) {
        return delegate.getEntry(index);
    }

    @Override
    @Deprecated
    public long getTerm(final long index) {
        return delegate.getTerm(index);
    }

    @Override
    public boolean appendEntry(final LogEntry entry) {
        final boolean done = delegate.appendEntry(entry);
        churn.awaitRound();
        return done;
    }

    @Override
    public int appendEntries(final List<LogEntry> entries) {
        final int done = delegate.appendEntries(entries);
        churn.awaitRound();
        return done;
    }

    @Override
    public boolean truncatePrefix(final long firstIndexKept) {
        final boolean done = delegate.truncatePrefix(firstIndexKept);
        churn.awaitRound();
        return done;
    }

    @Override
    public boolean truncateSuffix(final long lastIndexKept) {
        final boolean done = delegate.truncateSuffix(lastIndexKept);
        churn.awaitRound();
        return done;
    }

    @Override
    public boolean reset(final long nextLogIndex) {
        final boolean done = delegate.reset(nextLogIndex);
        churn.awaitRound();
        return done;
    }
}
