package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Assertions shared by the structural and policy suites: how a refused open must name the damage,
 * what a clean reopen looks like, what a report's findings must say.
 *
 * <p><b>Threading:</b> stateless.
 */
final class RecoveryAssertions {
    private RecoveryAssertions() {}

    /**
     * Asserts that opening fails with a {@link WalCorruptionException} naming a file and an offset.
     *
     * @param log the damaged log.
     * @param backend the backend to open with.
     * @param policy the recovery policy.
     * @param file the file the exception must name.
     * @param fileOffset the offset it must name, or -1 for the whole file.
     * @param messageParts further text the message must hold.
     * @return the exception.
     */
    static WalCorruptionException assertOpenFails(
            final SampleLog log,
            final CorruptionBackend backend,
            final RecoveryPolicy policy,
            final Path file,
            final long fileOffset,
            final String... messageParts) {
        final WalCorruptionException ex = assertThrows(WalCorruptionException.class, () -> {
            try (Wal wal = Wal.open(SampleLog.config(log.directory(), backend, policy))) {
                fail("open under " + policy + " must fail, but recovered: "
                        + wal.recoveryReport().summary());
            }
        });
        final String message = ex.getMessage();
        assertEquals(WalException.ErrorCode.CORRUPTION, ex.errorCode(), message);
        assertEquals(file, ex.file(), message);
        assertEquals(fileOffset, ex.fileOffset(), message);
        assertTrue(message.contains(file.getFileName().toString()), () -> "the message names the file: " + message);
        if (fileOffset >= 0) {
            assertTrue(message.contains("at offset " + fileOffset), () -> "the message names the offset: " + message);
        }
        for (final String part : messageParts) {
            assertTrue(message.contains(part), () -> "the message says \"" + part + "\": " + message);
        }
        return ex;
    }

    /**
     * Reopens with the default policy and checks that recovery finds nothing at all to report and
     * the log holds exactly the expected records.
     *
     * @param log the log.
     * @param backend the backend.
     * @param expected the records it must hold.
     */
    static void assertCleanReopen(
            final SampleLog log, final CorruptionBackend backend, final List<LogRecord> expected) {
        try (Wal wal = Wal.open(SampleLog.config(log.directory(), backend, RecoveryPolicy.FAIL))) {
            final RecoveryReport report = wal.recoveryReport();
            assertFalse(report.newLog(), report::summary);
            assertNull(report.tornTailFile(), report::summary);
            assertEquals(0, report.tornTailBytesCut(), report::summary);
            assertEquals(0, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertTrue(report.findings().isEmpty(), report::summary);
            assertEquals(expected.size(), report.records(), report::summary);
            SampleLog.assertRecords(expected, SampleLog.readAll(wal));
        }
    }

    /**
     * Asserts that one finding of a report holds every given part.
     *
     * @param report the report.
     * @param parts the text a single finding must hold.
     */
    static void assertFinding(final RecoveryReport report, final String... parts) {
        assertTrue(
                report.findings().stream().anyMatch(finding -> {
                    for (final String part : parts) {
                        if (!finding.contains(part)) {
                            return false;
                        }
                    }
                    return true;
                }),
                () -> "a finding must mention " + List.of(parts) + ": " + report.findings());
    }

    /**
     * Total size of the segment files at or above a base position.
     *
     * @param log the log.
     * @param fromBase the base position.
     * @return bytes.
     * @throws IOException on an I/O failure.
     */
    static long segmentBytesFrom(final SampleLog log, final long fromBase) throws IOException {
        long bytes = 0;
        for (final Path path : log.segmentFiles()) {
            if (SegmentNames.parseSegmentName(path.getFileName().toString()) >= fromBase) {
                bytes += Files.size(path);
            }
        }
        return bytes;
    }

    /**
     * A list with one more record.
     *
     * @param records the records.
     * @param appended the record after them.
     * @return a new list.
     */
    static List<LogRecord> plus(final List<LogRecord> records, final LogRecord appended) {
        final List<LogRecord> all = new ArrayList<>(records);
        all.add(appended);
        return all;
    }
}
