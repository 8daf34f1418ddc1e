package io.walden.crash.kill;

import io.walden.Wal;
import io.walden.crash.OnDiskFrames;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What the parent knows about one log directory across kill cycles, and the check of what a killed
 * child left: the parent reopens the log (running recovery) and compares it with the records it held at
 * the previous check and with every acknowledgement the child reported.
 *
 * <p>Checked after every kill:
 *
 * <ul>
 *   <li>every record is intact and one the child appended ({@link TestRecords#verify});
 *   <li>each appender thread's records appear in sequence order with no gap and no duplicate, and the
 *       records of a cycle never precede those of an earlier cycle: the log is a prefix of what was
 *       appended;
 *   <li>every acknowledged record (any level) that lies inside the recovered span is there, at the LSN
 *       it was acknowledged with;
 *   <li>every WRITTEN and SYNCED acknowledgement at or after the truncation bound survives; the log
 *       start never passes the segment of the highest truncateBefore request, nor goes back;
 *   <li>records the previous check found are still there, unchanged, unless truncated; nothing new
 *       appears before the previous end;
 *   <li>every batch any child of the directory announced is in the log whole, its records consecutive
 *       and in order, or not at all; a batch the kill left partly written on disk (some of its frames
 *       whole, some not, as read before recovery) and that recovery gave up is counted as torn.
 * </ul>
 *
 * <p><b>Threading:</b> used by the test thread only.
 */
final class KillLedger {
    /**
     * The result of one check.
     *
     * @param violations what is wrong.
     * @param lostAcknowledged acknowledged records missing.
     * @param recordsChecked records read back.
     * @param acksChecked acknowledgements checked.
     * @param batchesChecked batches of the killed child checked for all-or-none.
     * @param batchesTorn batches the kill left partly written (some frames whole on disk, some not) that
     *     recovery gave up whole, each counted once.
     */
    record Outcome(
            List<String> violations,
            long lostAcknowledged,
            long recordsChecked,
            long acksChecked,
            long batchesChecked,
            long batchesTorn) {}

    /** A batch one of this directory's children was about to append, and whether it was counted torn. */
    private static final class LedgerBatch {
        final int cycle;
        final ChildReport.Batch batch;
        boolean countedTorn;

        LedgerBatch(final int cycle, final ChildReport.Batch batch) {
            this.cycle = cycle;
            this.batch = batch;
        }

        TestRecords.Tag member(final int index) {
            return new TestRecords.Tag(KillChild.writerTag(cycle, batch.thread()), batch.firstSeq() + index);
        }

        @Override
        public String toString() {
            return "batch (cycle " + cycle + ", thread " + batch.thread() + ", seq " + batch.firstSeq() + ".."
                    + (batch.firstSeq() + batch.count() - 1) + ")";
        }
    }

    // Records the log held at the previous check: LSN -> writer tag and sequence.
    private NavigableMap<Long, TestRecords.Tag> known = new TreeMap<>();
    private long start;
    private long end;
    // Highest truncateBefore position requested in this directory's life.
    private long maxTruncateLsn = -1;
    // Every batch a child of this directory was about to append.
    private final List<LedgerBatch> batches = new ArrayList<>();

    /**
     * Reopens the log in a directory and checks it against what is known and what the child reported;
     * then remembers the recovered log for the next check.
     *
     * @param directory the log directory (the original, or a copy of it).
     * @param backendName the backend to reopen with.
     * @param cycle the cycle of the child that was killed.
     * @param report what it reported.
     * @return the violations found and what was checked.
     */
    Outcome check(final Path directory, final String backendName, final int cycle, final ChildReport report) {
        final List<String> violations = new ArrayList<>();
        maxTruncateLsn = Math.max(maxTruncateLsn, report.maxTruncateLsn());
        final long newStart;
        final long newEnd;
        final long continueAt;
        final List<TestRecords.Read> records;
        // Before recovery changes anything: which records the kill left whole on disk.
        final Map<TestRecords.Tag, Long> onDisk;
        try {
            onDisk = OnDiskFrames.scan(directory);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot read the killed log in " + directory, ex);
        }
        for (final ChildReport.Batch batch : report.batches()) {
            batches.add(new LedgerBatch(cycle, batch));
        }
        try (Wal wal = Wal.open(KillSetup.config(directory, backendName))) {
            newStart = wal.startPosition();
            // Where the recovered records end; after a crash the log continues later (the next segment).
            newEnd = wal.recoveryReport().recoveredEndPosition();
            continueAt = wal.recoveryReport().endPosition();
            records = TestRecords.replayAll(wal);
        } catch (final RuntimeException ex) {
            violations.add("reopening the killed log failed: " + ex);
            return new Outcome(violations, 0, 0, 0, 0, 0);
        }
        final long startBound = Math.max(start, maxTruncateLsn < 0 ? 0 : KillSetup.segmentBase(maxTruncateLsn));
        if (newStart < start || newStart > startBound) {
            violations.add("log starts at " + newStart + ", outside [" + start + ", " + startBound
                    + "] (previous start, segment of the highest truncateBefore request " + maxTruncateLsn + ")");
        }
        if (newEnd < end) {
            violations.add("log ends at " + newEnd + ", before the previous check's end " + end);
        }

        final NavigableMap<Long, TestRecords.Tag> found = new TreeMap<>();
        final Map<Integer, Integer> lastSeqByWriter = new HashMap<>();
        int lastCycle = -1;
        long lastLsn = -1;
        for (final TestRecords.Read read : records) {
            final long lsn = read.lsn();
            if (lsn <= lastLsn || lsn < newStart || lsn >= newEnd) {
                violations.add("record at " + lsn + " out of order or outside [" + newStart + ", " + newEnd + ")");
            }
            lastLsn = lsn;
            final TestRecords.Tag tag;
            try {
                tag = TestRecords.verify(read.payload());
            } catch (final AssertionError ex) {
                violations.add("record at " + lsn + " is not one the child appended: " + ex.getMessage());
                continue;
            }
            found.put(lsn, tag);
            final int recordCycle = tag.writer() / KillChild.MAX_THREADS;
            if (recordCycle < lastCycle) {
                violations.add("record at " + lsn + " of cycle " + recordCycle + " follows one of cycle " + lastCycle);
            }
            lastCycle = Math.max(lastCycle, recordCycle);
            final Integer lastSeq = lastSeqByWriter.put(tag.writer(), tag.sequence());
            if (lastSeq != null && tag.sequence() != lastSeq + 1) {
                violations.add("record at " + lsn + " is " + describe(tag) + " but follows sequence " + lastSeq
                        + " of that thread: a gap, duplicate or reordering");
            }
            if (lsn < end) {
                final TestRecords.Tag before = known.get(lsn);
                if (!tag.equals(before)) {
                    violations.add("record at " + lsn + " is " + describe(tag) + " but the previous check found "
                            + (before == null ? "no record" : describe(before)) + " there");
                }
            } else if (recordCycle != cycle) {
                violations.add("record at " + lsn + " after the previous end " + end + " is " + describe(tag)
                        + ", not one of cycle " + cycle);
            }
        }

        long lost = 0;
        for (final Map.Entry<Long, TestRecords.Tag> entry :
                known.tailMap(Math.min(newStart, startBound), true).entrySet()) {
            if (!entry.getValue().equals(found.get(entry.getKey()))) {
                violations.add("record " + describe(entry.getValue()) + " at " + entry.getKey()
                        + ", found by the previous check, is gone");
                lost++;
            }
        }
        final Map<Integer, Long> lastLsnByThread = new HashMap<>();
        for (final ChildReport.Ack ack : report.acks()) {
            final Long previous = lastLsnByThread.put(ack.thread(), ack.lsn());
            if (previous != null && ack.lsn() <= previous) {
                violations.add("acknowledged " + ack + " has an LSN not above its thread's previous " + previous);
            }
            if (ack.lsn() < newStart) {
                if (ack.promisesSurvival() && ack.lsn() >= startBound) {
                    violations.add("acknowledged " + ack + " is lost: the log starts at " + newStart
                            + ", beyond the truncation bound " + startBound);
                    lost++;
                }
                continue;
            }
            if (ack.promisesSurvival() && ack.lsn() >= continueAt) {
                violations.add("the reopened log continues at " + continueAt + ", at or before the acknowledged " + ack
                        + ": a position a reader may have seen would be given to another record");
            }
            final TestRecords.Tag expected = new TestRecords.Tag(KillChild.writerTag(cycle, ack.thread()), ack.seq());
            if (ack.lsn() < newEnd) {
                if (!expected.equals(found.get(ack.lsn()))) {
                    violations.add("acknowledged " + ack + " inside the recovered log [" + newStart + ", " + newEnd
                            + ") is missing or different: " + found.get(ack.lsn()));
                    lost += ack.promisesSurvival() ? 1 : 0;
                }
            } else if (ack.promisesSurvival()) {
                violations.add("acknowledged " + ack + " is lost: the recovered log ends at " + newEnd);
                lost++;
            }
        }

        final long torn = checkBatches(found, onDisk, report, violations);

        known = found;
        start = newStart;
        end = newEnd;
        return new Outcome(
                violations,
                lost,
                records.size(),
                report.acks().size(),
                report.batches().size(),
                torn);
    }

    /**
     * Checks that every batch of this directory's children is in the recovered log whole (its records
     * consecutive and in order) or not at all, and that each acknowledged batch is one that was
     * announced, with as many LSNs as records. A batch whose acknowledgement promised survival is then
     * whole by the checks of its records' acknowledgements.
     *
     * @return batches the kill left partly on disk that recovery gave up, not counted before.
     */
    private long checkBatches(
            final NavigableMap<Long, TestRecords.Tag> found,
            final Map<TestRecords.Tag, Long> onDisk,
            final ChildReport report,
            final List<String> violations) {
        final Map<TestRecords.Tag, Long> lsnOf = new HashMap<>();
        for (final Map.Entry<Long, TestRecords.Tag> entry : found.entrySet()) {
            lsnOf.put(entry.getValue(), entry.getKey());
        }
        long torn = 0;
        for (final LedgerBatch batch : batches) {
            final int count = batch.batch.count();
            int present = 0;
            int whole = 0;
            for (int i = 0; i < count; i++) {
                present += lsnOf.containsKey(batch.member(i)) ? 1 : 0;
                whole += onDisk.containsKey(batch.member(i)) ? 1 : 0;
            }
            if (present == 0) {
                if (whole > 0 && whole < count && !batch.countedTorn) {
                    batch.countedTorn = true;
                    torn++;
                }
                continue;
            }
            if (present < count) {
                final StringBuilder text = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    final Long lsn = lsnOf.get(batch.member(i));
                    text.append(i == 0 ? "" : ", ").append(lsn == null ? "absent" : "at " + lsn);
                }
                violations.add(batch + " was recovered in part (" + present + " of " + count + " records: " + text
                        + "; " + whole + " of them were whole on disk after the kill): a batch is all or nothing");
                continue;
            }
            long lsn = lsnOf.get(batch.member(0));
            for (int i = 1; i < count; i++) {
                final long next = lsnOf.get(batch.member(i));
                final Long between = found.higherKey(lsn);
                if (between == null || between != next) {
                    violations.add(batch + " is not consecutive in the recovered log: record " + (i - 1) + " at " + lsn
                            + " is followed by " + (between == null ? "nothing" : describe(found.get(between)))
                            + ", its record " + i + " is at " + next);
                    break;
                }
                lsn = next;
            }
        }
        for (final ChildReport.BatchAck ack : report.batchAcks()) {
            final boolean announced = report.batches().stream()
                    .anyMatch(batch -> batch.thread() == ack.thread()
                            && batch.firstSeq() == ack.firstSeq()
                            && batch.count() == ack.lsns().size());
            if (!announced) {
                violations.add("the child acknowledged a batch it did not announce with as many records: " + ack);
            }
        }
        return torn;
    }

    private static String describe(final TestRecords.Tag tag) {
        return "(cycle " + tag.writer() / KillChild.MAX_THREADS + ", thread " + tag.writer() % KillChild.MAX_THREADS
                + ", seq " + tag.sequence() + ")";
    }
}
