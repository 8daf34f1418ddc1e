package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kill check itself must be able to fail: {@link KillLedger} is given logs and reports that are
 * wrong in one known way each, and must name exactly that.
 */
final class KillLedgerTest {
    private static final Path DIRECTORY = Path.of("target", "kill", "ledger-test");
    private static final int RECORD_BYTES = 1000;

    private final ChildReport report = new ChildReport();
    private final List<Long> lsns = new ArrayList<>();

    @BeforeEach
    void appendRecords() throws Exception {
        TestFiles.deleteRecursively(DIRECTORY);
        try (Wal wal = Wal.open(KillSetup.config(DIRECTORY, "nio"))) {
            for (int seq = 0; seq < 200; seq++) {
                final long lsn = wal.append(
                        TestRecords.tagged(KillChild.writerTag(0, 0), seq, RECORD_BYTES), Durability.WRITTEN);
                lsns.add(lsn);
                report.accept("A 0 " + seq + " " + lsn + " W");
            }
        }
    }

    @Test
    void logHoldingEveryAcknowledgementPasses() {
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, report);
        assertEquals(List.of(), outcome.violations());
        assertEquals(200, outcome.recordsChecked());
    }

    @Test
    void batchWholeInTheLogPasses() {
        // Records 10 to 12 were appended one by one; reported as a batch, they are one, whole.
        final ChildReport batchReport = new ChildReport();
        batchReport.accept("b 0 10 3");
        batchReport.accept("B 0 10 W " + lsns.get(10) + " " + lsns.get(11) + " " + lsns.get(12));
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, batchReport);
        assertEquals(List.of(), outcome.violations());
        assertEquals(1, outcome.batchesChecked());
    }

    @Test
    void batchRecoveredInPartIsReported() {
        // Records 198 and 199 are in the log, 200 and 201 never were: as a batch, it is torn.
        report.accept("b 0 198 4");
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, report);
        assertEquals(1, outcome.violations().size(), outcome.violations().toString());
        assertTrue(
                outcome.violations().get(0).contains("recovered in part (2 of 4 records"),
                outcome.violations().toString());
    }

    @Test
    void batchAcknowledgedWithoutAnnouncementIsReported() {
        final ChildReport batchReport = new ChildReport();
        batchReport.accept("B 0 10 W " + lsns.get(10) + " " + lsns.get(11));
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, batchReport);
        assertEquals(1, outcome.violations().size(), outcome.violations().toString());
        assertTrue(
                outcome.violations().get(0).contains("did not announce"),
                outcome.violations().toString());
    }

    @Test
    void acknowledgementBeyondTheLogIsCountedLost() {
        report.accept("A 0 200 " + (lsns.get(199) + 4096) + " S");
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, report);
        assertEquals(1, outcome.lostAcknowledged(), outcome.violations().toString());
        assertTrue(
                outcome.violations().stream().anyMatch(violation -> violation.contains("is lost")),
                outcome.violations().toString());
        // The reopened log continues at its end, before the acknowledged position: given twice.
        assertTrue(
                outcome.violations().stream()
                        .anyMatch(violation -> violation.contains("a position a reader may have seen")),
                outcome.violations().toString());
    }

    @Test
    void acknowledgementOfAnotherRecordAtAnLsnIsReported() {
        report.accept("A 1 0 " + lsns.get(100) + " W");
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 0, report);
        assertEquals(1, outcome.violations().size(), outcome.violations().toString());
        assertTrue(
                outcome.violations().get(0).contains("missing or different"),
                outcome.violations().toString());
    }

    @Test
    void recordsOfAnotherCycleAfterThePreviousEndAreReported() {
        final KillLedger.Outcome outcome = new KillLedger().check(DIRECTORY, "nio", 1, new ChildReport());
        assertEquals(200, outcome.violations().size(), outcome.violations().get(0));
        assertTrue(
                outcome.violations().get(0).contains("not one of cycle 1"),
                outcome.violations().get(0));
    }

    @Test
    void segmentsDeletedWithoutATruncationRequestAreReported() {
        final KillLedger ledger = new KillLedger();
        assertEquals(List.of(), ledger.check(DIRECTORY, "nio", 0, report).violations());
        try (Wal wal = Wal.open(KillSetup.config(DIRECTORY, "nio"))) {
            assertTrue(wal.truncateBefore(lsns.get(150)) > 0, "nothing truncated");
        }
        final List<String> violations =
                ledger.check(DIRECTORY, "nio", 1, new ChildReport()).violations();
        assertTrue(violations.get(0).startsWith("log starts at"), violations.toString());
        assertTrue(violations.stream().anyMatch(violation -> violation.contains("is gone")), violations.toString());
        assertTrue(violations.size() > 100, "every record below the new start is reported gone: " + violations);
    }
}
