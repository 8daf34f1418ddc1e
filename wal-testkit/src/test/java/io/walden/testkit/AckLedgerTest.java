package io.walden.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each check of the ledger, shown to fail on a recovered log that breaks it, and to pass on every
 * prefix that keeps the promises.
 */
final class AckLedgerTest {
    @TempDir
    Path directory;

    private AckLedger ledger;
    private final List<AckLedger.LogRecord> appended = new ArrayList<>();

    /** Five records, the third acknowledged SYNCED (so the first three are promised), then a batch of two. */
    @BeforeEach
    void noteAppends() throws IOException {
        ledger = new AckLedger(SimulatedStorage.create(directory));
        long lsn = 0;
        for (int i = 0; i < 5; i++) {
            final byte[] payload = new byte[100 + i];
            payload[0] = (byte) i;
            ledger.appended(lsn, payload);
            appended.add(new AckLedger.LogRecord(lsn, payload));
            if (i == 2) {
                ledger.synced(lsn);
            }
            lsn += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payload.length));
        }
        final List<byte[]> batch = List.of(new byte[] {7}, new byte[] {8});
        ledger.appendedBatch(lsn, batch);
        appended.add(new AckLedger.LogRecord(lsn, batch.get(0)));
        appended.add(new AckLedger.LogRecord(
                lsn + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(1)), batch.get(1)));
    }

    private List<AckLedger.LogRecord> prefix(final int length) {
        return new ArrayList<>(appended.subList(0, length));
    }

    @Test
    void everyPrefixThatHoldsTheAcknowledgedRecordsPasses() {
        for (final int length : new int[] {3, 4, 5, 7}) {
            assertEquals(List.of(), ledger.violations(prefix(length), Integer.MAX_VALUE), "prefix of " + length);
        }
    }

    @Test
    void aLostSyncedRecordIsAViolation() {
        final List<String> violations = ledger.violations(prefix(2), Integer.MAX_VALUE);
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).contains("acknowledged SYNCED were lost"), violations.toString());
    }

    @Test
    void anAcknowledgementStampedAfterTheCrashPointIsNotRequired() {
        // The acknowledgement was stamped at event 0 of an empty storage: a crash "before" it (-1 events)
        // cannot be asked to keep it.
        assertEquals(List.of(), ledger.violations(prefix(0), -1));
        assertEquals(1, ledger.violations(prefix(0), 0).size());
    }

    @Test
    void aHoleIsAViolation() {
        final List<AckLedger.LogRecord> holed = prefix(5);
        holed.remove(3);
        final List<String> violations = ledger.violations(holed, Integer.MAX_VALUE);
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).startsWith("not a prefix"), violations.toString());
    }

    @Test
    void anInventedRecordIsAViolation() {
        final List<AckLedger.LogRecord> invented = prefix(3);
        invented.add(new AckLedger.LogRecord(appended.get(2).lsn() + 8, new byte[] {1}));
        final List<String> violations = ledger.violations(invented, Integer.MAX_VALUE);
        assertTrue(violations.get(0).startsWith("invented record"), violations.toString());
    }

    @Test
    void anAlteredRecordIsAViolation() {
        final List<AckLedger.LogRecord> altered = prefix(4);
        final byte[] changed = altered.get(3).payload().clone();
        changed[50] ^= 1;
        altered.set(3, new AckLedger.LogRecord(altered.get(3).lsn(), changed));
        final List<String> violations = ledger.violations(altered, Integer.MAX_VALUE);
        assertTrue(violations.get(0).contains("differs from what was appended"), violations.toString());
    }

    @Test
    void aBatchInPartIsAViolation() {
        final List<String> violations = ledger.violations(prefix(6), Integer.MAX_VALUE);
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).contains("survived in part"), violations.toString());
    }
}
