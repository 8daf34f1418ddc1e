package io.walden.crash.fault;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.spi.StorageBackend;
import io.walden.testing.TestRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * After a fault, with the fault gone: reopens the log through a real backend (running recovery) and
 * checks that it is a valid prefix of what was appended and holds every acknowledgement, then that it
 * accepts and keeps a new record.
 *
 * <ul>
 *   <li>every record is intact and one an appender wrote ({@link TestRecords#verify}), in LSN order;
 *   <li>each appender's records have consecutive sequence numbers from 0: nothing missing in the
 *       middle, duplicated or reordered;
 *   <li>every WRITTEN and SYNCED acknowledgement is there at its LSN (a lost one is counted);
 *   <li>every acknowledgement of any level below the recovered end is there (the log is a prefix);
 *   <li>a SYNCED append after recovery succeeds and survives another reopen.
 * </ul>
 *
 * <p><b>Threading:</b> used by the test thread only.
 */
final class RecoveredPrefixCheck {
    /** Writer tag of the record appended after recovery. */
    static final int AFTER_RECOVERY_WRITER = 999;

    private final List<String> violations = new ArrayList<>();
    private long lost;
    private long recordsChecked;

    /**
     * Runs the check.
     *
     * @param directory the log directory.
     * @param backend a real backend.
     * @param secondBackend another instance of it, for the second reopen.
     * @param acks what was acknowledged.
     * @return this, with the findings.
     */
    RecoveredPrefixCheck run(
            final Path directory, final StorageBackend backend, final StorageBackend secondBackend, final Acks acks) {
        final long end;
        final Map<Long, TestRecords.Tag> found = new HashMap<>();
        final long afterRecoveryLsn;
        try (Wal wal = Wal.open(FaultSetup.config(directory, backend))) {
            // Where the recovered records end; after a crash the log continues later (the next segment).
            end = wal.recoveryReport().recoveredEndPosition();
            final Map<Integer, Integer> lastSeq = new HashMap<>();
            long lastLsn = -1;
            for (final TestRecords.Read read : TestRecords.replayAll(wal)) {
                recordsChecked++;
                if (read.lsn() <= lastLsn) {
                    violations.add("record at " + read.lsn() + " follows one at " + lastLsn);
                }
                lastLsn = read.lsn();
                final TestRecords.Tag tag;
                try {
                    tag = TestRecords.verify(read.payload());
                } catch (final AssertionError ex) {
                    violations.add("record at " + read.lsn() + " is not one that was appended: " + ex.getMessage());
                    continue;
                }
                found.put(read.lsn(), tag);
                final int expectedSeq = lastSeq.getOrDefault(tag.writer(), -1) + 1;
                if (tag.sequence() != expectedSeq) {
                    violations.add("record at " + read.lsn() + " is writer " + tag.writer() + " sequence "
                            + tag.sequence() + ", expected sequence " + expectedSeq);
                }
                lastSeq.put(tag.writer(), tag.sequence());
            }
            afterRecoveryLsn = wal.append(TestRecords.tagged(AFTER_RECOVERY_WRITER, 0, 100), Durability.SYNCED);
        } catch (final RuntimeException ex) {
            violations.add("reopening after the fault failed: " + ex);
            return this;
        }
        for (final Acks.Ack ack : acks.all()) {
            if (ack.level() != Durability.BUFFERED && ack.lsn() >= afterRecoveryLsn) {
                violations.add("the record appended after recovery got position " + afterRecoveryLsn
                        + ", at or before the acknowledged " + ack + ": a position given twice");
            }
            final TestRecords.Tag expected = new TestRecords.Tag(ack.writer(), ack.seq());
            final boolean promised = ack.level() != Durability.BUFFERED;
            if ((promised || ack.lsn() < end) && !expected.equals(found.get(ack.lsn()))) {
                violations.add("acknowledged " + ack + " is " + (ack.lsn() < end ? "missing or different" : "lost")
                        + " after recovery (log ends at " + end + ")");
                lost += promised ? 1 : 0;
            }
        }
        try (Wal wal = Wal.open(FaultSetup.config(directory, secondBackend))) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal, afterRecoveryLsn, Durability.SYNCED);
            if (records.isEmpty()
                    || !new TestRecords.Tag(AFTER_RECOVERY_WRITER, 0)
                            .equals(TestRecords.verify(records.get(0).payload()))) {
                violations.add("the record appended after recovery at " + afterRecoveryLsn + " is gone");
            }
        } catch (final RuntimeException ex) {
            violations.add("the second reopen failed: " + ex);
        }
        return this;
    }

    /** @return what was wrong. */
    List<String> violations() {
        return violations;
    }

    /** @return acknowledged WRITTEN or SYNCED records missing. */
    long lost() {
        return lost;
    }

    /** @return records read back. */
    long recordsChecked() {
        return recordsChecked;
    }
}
