package io.walden.crash.power;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a log promised during one run on a {@link io.walden.testkit.SimulatedStorage}, each promise stamped with the length
 * of the disk's event log when the appender learnt of it: every record that got an LSN, every
 * {@code SYNCED} acknowledgement, every durable position observed, and every truncation requested;
 * and which records were appended together as one batch.
 * Whatever made a promise true was recorded before the promise was observed, so a crash after {@code
 * n} events must keep every promise stamped {@code <= n}.
 *
 * <p>It starts from a base: the records a reopened log already held, all durable, and the batches
 * among them.
 *
 * <p><b>Threading:</b> any thread; every method is synchronized.
 */
final class AckLog {
    /** A promise stamped with the event count when it was observed. */
    private record Stamped(int eventCount, long position) {}

    private final List<Appended> base;
    private final List<AppendedBatch> baseBatches;
    private final List<Appended> appended = new ArrayList<>();
    private final List<AppendedBatch> batches = new ArrayList<>();
    private final List<Stamped> durable = new ArrayList<>();
    private final List<Stamped> truncations = new ArrayList<>();
    private final List<Stamped> written = new ArrayList<>();
    private final long baseWrittenEnd;

    /**
     * Starts a log of promises.
     *
     * @param base records already in the log, in LSN order, all durable.
     * @param baseBatches the batches among them.
     * @param baseWrittenEnd every smaller position was written before (a reader may have seen it).
     */
    AckLog(final List<Appended> base, final List<AppendedBatch> baseBatches, final long baseWrittenEnd) {
        this.base = List.copyOf(base);
        this.baseBatches = List.copyOf(baseBatches);
        this.baseWrittenEnd = baseWrittenEnd;
    }

    /**
     * Everything below a position was written to the file: a {@code WRITTEN} or {@code SYNCED}
     * acknowledgement ({@code lsn + 1}), or an observed written position. A reader may have seen those
     * positions, so no crash may let them go to another record.
     *
     * @param eventCount the disk's event count when this was learnt.
     * @param positionEnd the position below which everything was written.
     */
    synchronized void written(final int eventCount, final long positionEnd) {
        written.add(new Stamped(eventCount, positionEnd));
    }

    /**
     * A batch got its LSNs: its records got theirs ({@link #appended}), and they are all or none.
     *
     * @param batch the batch.
     */
    synchronized void batch(final AppendedBatch batch) {
        appended.addAll(batch.records());
        batches.add(batch);
    }

    /**
     * A record got its LSN.
     *
     * @param record the record.
     */
    synchronized void appended(final Appended record) {
        appended.add(record);
    }

    /**
     * Records below a position are durable: a {@code SYNCED} acknowledgement ({@code lsn + 1}, of a
     * batch its last record's), a returned {@code sync()} or an observed durable position (which
     * promises a batch it falls inside of nothing: see {@link #at}).
     *
     * @param eventCount the disk's event count when this was learnt.
     * @param positionEnd the position below which everything is durable.
     */
    synchronized void durable(final int eventCount, final long positionEnd) {
        durable.add(new Stamped(eventCount, positionEnd));
    }

    /**
     * A truncation was requested: segments below a position may disappear from now on.
     *
     * @param eventCount the disk's event count before the request.
     * @param floorPosition records below this position may be deleted.
     */
    synchronized void truncation(final int eventCount, final long floorPosition) {
        truncations.add(new Stamped(eventCount, floorPosition));
    }

    /** @return how many records got an LSN in this run, base excluded. */
    synchronized int appendedCount() {
        return appended.size();
    }

    /** @return the highest LSN given so far in this run, or -1. */
    synchronized long maxLsn() {
        long max = -1;
        for (final Appended record : appended) {
            max = Math.max(max, record.lsn());
        }
        return max;
    }

    /**
     * What a crash after a number of events must leave.
     *
     * @param eventCount how many events of the disk's log happened before the power failed.
     * @return the expectation.
     */
    synchronized Expectation at(final int eventCount) {
        final List<Appended> sequence = new ArrayList<>(base);
        final List<Appended> sorted = new ArrayList<>(appended);
        sorted.sort(Comparator.comparingLong(Appended::lsn));
        sequence.addAll(sorted);
        final List<AppendedBatch> allBatches = new ArrayList<>(baseBatches);
        allBatches.addAll(batches);
        long requiredEnd =
                base.isEmpty() ? Long.MIN_VALUE : base.get(base.size() - 1).lsn() + 1;
        for (final Stamped promise : durable) {
            if (promise.eventCount() <= eventCount) {
                requiredEnd = Math.max(requiredEnd, promisedEnd(promise.position(), allBatches));
            }
        }
        long floor = Long.MIN_VALUE;
        for (final Stamped truncation : truncations) {
            if (truncation.eventCount() <= eventCount) {
                floor = Math.max(floor, truncation.position());
            }
        }
        long writtenEnd = baseWrittenEnd;
        for (final Stamped promise : written) {
            if (promise.eventCount() <= eventCount) {
                writtenEnd = Math.max(writtenEnd, promise.position());
            }
        }
        return new Expectation(sequence, allBatches, requiredEnd, floor, writtenEnd);
    }

    /**
     * What a durable position promises: every record below it, but a batch only if its last record
     * is: a sync may cover the first frames of a batch before the rest is written, and recovery gives
     * up a batch the crash left incomplete even where a sync covered its first frames (DURABILITY.md,
     * "Batches: all or nothing"). A position inside a batch therefore promises the records below the
     * batch only.
     */
    private static long promisedEnd(final long position, final List<AppendedBatch> batches) {
        for (final AppendedBatch batch : batches) {
            if (batch.firstLsn() < position && position <= batch.lastLsn()) {
                return batch.firstLsn();
            }
        }
        return position;
    }
}
