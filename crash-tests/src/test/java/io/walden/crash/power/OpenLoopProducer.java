package io.walden.crash.power;

import io.walden.AckHandler;
import io.walden.AsyncAppender;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.testkit.SimulatedStorage;
import java.util.ArrayDeque;

/**
 * An appender thread's open-loop steps: records appended through an {@link AsyncAppender} without
 * waiting, each acknowledgement noted in the {@link AckLog} when a poll delivers it, stamped with the
 * disk's event count then (so a crash after that many events must keep the record). Checks on the way
 * that acknowledgements come in the order of the appends, and that none is lost: once the log made the
 * last record durable, or failed, one poll settles every pending one.
 *
 * <p><b>Threading:</b> the appender thread that owns it.
 */
final class OpenLoopProducer implements AckHandler {
    /** Pending acknowledgements at most; a full appender makes the producer poll. */
    private static final int CAPACITY = 16;

    private final Wal wal;
    private final SimulatedStorage disk;
    private final AckLog acks;
    private final boolean mayFreeze;
    private final AsyncAppender appender;
    // The LSN and level of each record appended and not yet acknowledged, in append order.
    private final ArrayDeque<long[]> expected = new ArrayDeque<>();
    private long lastLsn = -1;

    OpenLoopProducer(final Wal wal, final SimulatedStorage disk, final AckLog acks, final boolean mayFreeze) {
        this.wal = wal;
        this.disk = disk;
        this.acks = acks;
        this.mayFreeze = mayFreeze;
        this.appender = wal.asyncAppender(CAPACITY);
    }

    /** Appends without waiting (polling while the appender is full); returns the record's LSN. */
    long append(final byte[] payload, final Durability durability) {
        long lsn;
        while ((lsn = appender.append(payload, durability, durability.ordinal())) == Wal.BACK_PRESSURED) {
            appender.poll(this);
            Thread.onSpinWait();
        }
        expected.add(new long[] {lsn, durability.ordinal()});
        lastLsn = lsn;
        return lsn;
    }

    void poll() {
        appender.poll(this);
    }

    /**
     * Settles every pending acknowledgement: waits until the last record is durable (or the log fails),
     * then one poll must deliver or fail all of them.
     */
    void drain() {
        if (appender.pending() == 0) {
            return;
        }
        try {
            wal.await(lastLsn, Durability.SYNCED);
        } catch (final WalException ex) {
            if (!(mayFreeze && disk.poweredOff())) {
                throw ex;
            }
        }
        appender.poll(this);
        if (appender.pending() != 0) {
            throw new AssertionError(appender.pending() + " acknowledgement(s) neither delivered nor failed once the"
                    + " log had made record " + lastLsn + " durable or failed");
        }
    }

    @Override
    public void acknowledged(final long lsn, final long tag) {
        final int eventCount = disk.eventCount();
        final Durability durability = checkNext(lsn, tag);
        if (durability == Durability.SYNCED) {
            acks.durable(eventCount, lsn + 1);
        }
        if (durability != Durability.BUFFERED) {
            acks.written(eventCount, lsn + 1);
        }
    }

    @Override
    public void failed(final long lsn, final long tag, final WalException failure) {
        checkNext(lsn, tag);
        if (!(mayFreeze && disk.poweredOff())) {
            throw new AssertionError("acknowledgement of " + lsn + " failed without a power failure", failure);
        }
        if (failure.lsn() != lsn) {
            throw new AssertionError("the failure of " + lsn + " names LSN " + failure.lsn(), failure);
        }
    }

    private Durability checkNext(final long lsn, final long tag) {
        final long[] next = expected.poll();
        if (next == null || next[0] != lsn || next[1] != tag) {
            throw new AssertionError("acknowledgement of " + lsn + " (level " + tag + ") out of order: expected "
                    + (next == null ? "none" : next[0] + " (level " + next[1] + ")"));
        }
        return Durability.values()[(int) tag];
    }
}
