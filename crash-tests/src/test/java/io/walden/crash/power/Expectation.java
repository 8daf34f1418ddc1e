package io.walden.crash.power;

import io.walden.testing.TestRecords;
import java.util.ArrayList;
import java.util.List;

/**
 * What a reopened log must hold after a crash: exactly a contiguous run of the appended sequence (in
 * LSN order), holding every record below {@code requiredEnd}. Records may be missing at the front only
 * below {@code floor} (whole segments a requested truncation may have deleted), and at the end only if
 * never promised. Each batch is in that run whole (its records consecutive, in order, intact) or not at
 * all: never some of its records without the rest.
 *
 * @param sequence every record that got an LSN, in LSN order.
 * @param batches the batches among them.
 * @param requiredEnd every record with a smaller LSN was promised durable.
 * @param floor records with a smaller LSN may have been truncated away.
 * @param writtenEnd every smaller position was written to the file before the crash (a reader may have
 *     seen it): the reopened log must give none of them to another record.
 */
record Expectation(
        List<Appended> sequence, List<AppendedBatch> batches, long requiredEnd, long floor, long writtenEnd) {
    /**
     * The outcome of a check.
     *
     * @param violations what is wrong, empty if nothing.
     * @param lostCount promised records that are missing.
     * @param presentBatches the batches found whole (empty if a violation stopped the check early).
     * @param absentBatches the batches of which no record was found.
     */
    record Outcome(
            List<String> violations,
            int lostCount,
            List<AppendedBatch> presentBatches,
            List<AppendedBatch> absentBatches) {
        Outcome(final List<String> violations, final int lostCount) {
            this(violations, lostCount, List.of(), List.of());
        }

        boolean ok() {
            return violations.isEmpty();
        }
    }

    /**
     * Checks the records a reopened log holds.
     *
     * @param recovered every record read from the log's start, in order.
     * @return the outcome.
     */
    Outcome check(final List<TestRecords.Read> recovered) {
        final List<String> violations = new ArrayList<>();
        final List<Appended> found = new ArrayList<>(recovered.size());
        for (final TestRecords.Read read : recovered) {
            try {
                found.add(Appended.of(read));
            } catch (final AssertionError ex) {
                violations.add("altered record at lsn " + read.lsn() + ": " + ex.getMessage());
                return new Outcome(violations, 0);
            }
        }
        int start = firstIndexAtOrAbove(floor);
        if (!found.isEmpty()) {
            start = indexOf(found.get(0).lsn());
            if (start < 0) {
                violations.add("invented record " + found.get(0) + ": no append got that LSN");
                return new Outcome(violations, 0);
            }
            if (start > 0 && sequence.get(start - 1).lsn() >= floor) {
                violations.add("the log starts at " + found.get(0) + " but " + sequence.get(start - 1)
                        + " before it is missing and no truncation allowed that");
            }
        }
        for (int i = 0; i < found.size(); i++) {
            final int index = start + i;
            if (index >= sequence.size()) {
                violations.add("invented record " + found.get(i) + " after the last append");
                return new Outcome(violations, 0);
            }
            if (!found.get(i).equals(sequence.get(index))) {
                violations.add("record " + i + " read back is " + found.get(i) + " but the appended sequence has "
                        + sequence.get(index) + " there (invented, duplicated, reordered or altered)");
                return new Outcome(violations, 0);
            }
        }
        final int end = Math.max(start + found.size(), firstIndexAtOrAbove(floor));
        int lost = 0;
        for (int i = end; i < sequence.size() && sequence.get(i).lsn() < requiredEnd; i++) {
            lost++;
        }
        if (lost > 0) {
            violations.add(lost + " promised record(s) lost: the log ends before " + sequence.get(end)
                    + ", but everything below lsn " + requiredEnd + " was acknowledged durable");
        }
        final List<AppendedBatch> present = new ArrayList<>();
        final List<AppendedBatch> absent = new ArrayList<>();
        checkBatches(start, start + found.size(), violations, present, absent);
        return new Outcome(violations, lost, present, absent);
    }

    /**
     * Checks every batch against the recovered run {@code sequence[runStart, runEnd)}: all of its
     * records in it, or none.
     */
    private void checkBatches(
            final int runStart,
            final int runEnd,
            final List<String> violations,
            final List<AppendedBatch> present,
            final List<AppendedBatch> absent) {
        for (final AppendedBatch batch : batches) {
            final List<Appended> records = batch.records();
            final int first = indexOf(batch.firstLsn());
            if (first < 0
                    || first + records.size() > sequence.size()
                    || !sequence.subList(first, first + records.size()).equals(records)) {
                violations.add(batch + " did not get consecutive LSNs: other records got LSNs among its own");
                continue;
            }
            final int last = first + records.size() - 1;
            final int inFrom = Math.max(first, runStart);
            final int inTo = Math.min(last + 1, runEnd);
            final int in = Math.max(0, inTo - inFrom);
            if (in == records.size()) {
                present.add(batch);
            } else if (in == 0) {
                absent.add(batch);
            } else {
                violations.add(batch + " was recovered in part: " + in + " of its " + records.size()
                        + " records are in the log (" + sequence.get(inFrom) + " to " + sequence.get(inTo - 1)
                        + "), the others not; a batch is all or nothing");
            }
        }
    }

    private int indexOf(final long lsn) {
        int low = 0;
        int high = sequence.size() - 1;
        while (low <= high) {
            final int middle = (low + high) >>> 1;
            final long value = sequence.get(middle).lsn();
            if (value < lsn) {
                low = middle + 1;
            } else if (value > lsn) {
                high = middle - 1;
            } else {
                return middle;
            }
        }
        return -1;
    }

    private int firstIndexAtOrAbove(final long lsn) {
        int index = 0;
        while (index < sequence.size() && sequence.get(index).lsn() < lsn) {
            index++;
        }
        return index;
    }

    @Override
    public String toString() {
        return "Expectation{" + sequence.size() + " records, " + batches.size() + " batches"
                + (sequence.isEmpty()
                        ? ""
                        : " from " + sequence.get(0).lsn() + " to "
                                + sequence.get(sequence.size() - 1).lsn())
                + ", required below " + (requiredEnd == Long.MIN_VALUE ? "nothing" : requiredEnd)
                + (floor == Long.MIN_VALUE ? "" : ", truncation floor " + floor) + "}";
    }
}
