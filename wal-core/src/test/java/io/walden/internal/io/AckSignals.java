package io.walden.internal.io;

import io.walden.Durability;
import io.walden.internal.state.AckWatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ready signal registered on a test path's state, watching one record: counts how often the path
 * ran it. What the appender's poll then delivers follows from the state's positions and failure.
 */
final class AckSignals {
    private final AtomicInteger count = new AtomicInteger();

    static AckSignals watching(final IoPath path, final long lsn, final Durability durability) {
        final AckSignals signals = new AckSignals();
        final AckWatch watch = new AckWatch(signals.count::incrementAndGet);
        watch.watch(lsn, durability == Durability.SYNCED);
        path.state.ackWatches().add(watch);
        return signals;
    }

    int count() {
        return count.get();
    }
}
