package io.walden.crash.power;

import io.walden.testing.TestRecords;
import java.util.ArrayList;
import java.util.List;

/**
 * What a reopened log must hold after a crash: exactly a contiguous run of the appended sequence (in
 * LSN order), holding every record below {@code requiredEnd}. Records may be missing at the front only
 * below {@code floor} (whole segments a requested truncation may have deleted), and at the end only if
 * never promised.
 *
 * @param sequence every record that got an LSN, in LSN order.
 * @param requiredEnd every record with a smaller LSN was promised durable.
 * @param floor records with a smaller LSN may have been truncated away.
 */
record Expectation(List<Appended> sequence, long requiredEnd, long floor) {
    /**
     * The outcome of a check.
     *
     * @param violations what is wrong, empty if nothing.
     * @param lostCount promised records that are missing.
     */
    record Outcome(List<String> violations, int lostCount) {
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
        return new Outcome(violations, lost);
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
        return "Expectation{" + sequence.size() + " records"
                + (sequence.isEmpty()
                        ? ""
                        : " from " + sequence.get(0).lsn() + " to "
                                + sequence.get(sequence.size() - 1).lsn())
                + ", required below " + (requiredEnd == Long.MIN_VALUE ? "nothing" : requiredEnd)
                + (floor == Long.MIN_VALUE ? "" : ", truncation floor " + floor) + "}";
    }
}
