package io.walden.crash.power;

import java.util.List;

/**
 * A batch the log gave LSNs ({@code Wal.append(WalBatch, ...)}): its records in batch order, which
 * must hold consecutive LSNs. After any crash either all of them are in the log or none.
 *
 * @param records the batch's records, in order.
 */
record AppendedBatch(List<Appended> records) {
    AppendedBatch {
        records = List.copyOf(records);
        if (records.size() < 2) {
            throw new IllegalArgumentException("a batch of the workloads holds at least two records: " + records);
        }
    }

    /** @return the LSN of its first record. */
    long firstLsn() {
        return records.get(0).lsn();
    }

    /** @return the LSN of its last record. */
    long lastLsn() {
        return records.get(records.size() - 1).lsn();
    }

    @Override
    public String toString() {
        final Appended first = records.get(0);
        final Appended last = records.get(records.size() - 1);
        return "batch of " + records.size() + " at lsn " + firstLsn() + ".." + lastLsn() + " (writer " + first.writer()
                + " #" + first.sequence() + ".." + last.sequence() + ")";
    }
}
