package io.walden.tools;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code walden truncate-after DIR LSN}: removes every record after the one at {@code LSN} from a log
 * no process has open, keeping what it removes as evidence. It opens the log ({@link OfflineLog}:
 * recovery runs as at any open, under the default policy, and the lock is held throughout), checks
 * that a record starts at {@code LSN} and counts those after it, copies their bytes into {@code
 * recovery-evidence/} ({@link EvidenceCopy}, synced), then calls {@link Wal#truncateAfter(long)},
 * which is crash-safe (the old log or the truncated one, never a mix), closes the log and inspects it
 * again. {@code LSN} -1 removes every record.
 *
 * <p>Exit code: 0 done (or nothing after {@code LSN}: nothing changed); 2 the log is corrupt (run
 * {@code walden repair} first); 3 no readable log; 4 a process has the log open; 64 no record starts
 * at {@code LSN}.
 */
@Command(
        name = "truncate-after",
        description = {
            "Removes every record after the one at LSN (-1: every record) from a log that no process has open,"
                    + " crash-safely, keeping the removed bytes in recovery-evidence/. Positions are never given"
                    + " out twice: the log continues in the next segment.",
            "Exit code: 0 done, 2 corruption (run repair first), 3 no readable log, 4 the log is open in a"
                    + " process, 64 no record starts at LSN."
        })
public final class TruncateAfterCommand extends LogCommand {
    @Parameters(
            index = "1",
            paramLabel = "LSN",
            description = "The position of the last record to keep (as `walden dump` shows it), or -1 to keep none.")
    private long lsn;

    /** Creates the command; picocli fills its options. */
    public TruncateAfterCommand() {
        // Options only.
    }

    /**
     * What lies after the kept record.
     *
     * @param cutPosition where the removed range starts: the end of the kept record's frame.
     * @param records how many records lie after it.
     */
    private record After(long cutPosition, long records) {}

    @Override
    int run() throws IOException {
        if (lsn < -1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "LSN must be a record's position or -1 (keep none), not " + lsn);
        }
        final RecoveryReport opened;
        final After after;
        final long endPosition;
        List<Path> evidence = List.of();
        long continuePosition = -1;
        try (Wal wal = OfflineLog.open(directory, RecoveryPolicy.FAIL, "truncate-after")) {
            opened = wal.recoveryReport();
            after = after(wal);
            endPosition = wal.writtenPosition();
            if (after.records() > 0) {
                evidence = new EvidenceCopy(directory)
                        .keep(after.cutPosition(), endPosition, opened.segmentCapacityBytes());
                try {
                    continuePosition = wal.truncateAfter(lsn);
                } catch (final WalException ex) {
                    if (ex.errorCode() == WalException.ErrorCode.POSITION) {
                        deleteQuietly(evidence); // nothing was truncated: the copies are of nothing removed
                    }
                    throw ex;
                }
            }
        }
        final LogInspection now = Wal.inspect(directory);
        final long kept = opened.records() - after.records();
        if (json()) {
            final LineWriter out = new LineWriter(spec.commandLine().getOut());
            new Json(out)
                    .begin()
                    .field("command", "truncate-after")
                    .field("directory", directory.toString())
                    .field("lsn", lsn)
                    .field("changed", after.records() > 0)
                    .field("recordsKept", kept)
                    .field("recordsRemoved", after.records())
                    .field("cutPosition", after.cutPosition())
                    .field("endPosition", endPosition)
                    .field("continuePosition", continuePosition)
                    .array("evidence", evidence.stream().map(Path::toString).toList())
                    .array(
                            "openingEvidence",
                            opened.evidence().stream().map(Path::toString).toList())
                    .array("openingFindings", opened.findings())
                    .field("verdict", now.verdict().name())
                    .field("records", now.report().records())
                    .endLine();
            out.flush();
        } else {
            text(opened, after, kept, endPosition, continuePosition, evidence, now);
        }
        return now.verdict() == LogInspection.Verdict.CLEAN ? Walden.EXIT_OK : Walden.EXIT_CORRUPTION;
    }

    private void text(
            final RecoveryReport opened,
            final After after,
            final long kept,
            final long endPosition,
            final long continuePosition,
            final List<Path> evidence,
            final LogInspection now)
            throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        if (opened.tornTailFile() != null || !opened.evidence().isEmpty()) {
            out.println("opening:   recovery cut a torn tail first (" + opened.tornTailBytesCut() + " byte(s) in "
                    + opened.tornTailFile() + "), kept in " + opened.evidence());
        }
        if (after.records() == 0) {
            out.println("unchanged: no record after " + lsn + " in " + directory + " (" + kept
                    + " record(s)); nothing to remove");
        } else {
            out.println("truncated: " + directory + " after " + (lsn < 0 ? "no record (-1)" : "LSN " + lsn) + ": kept "
                    + kept + " record(s), removed " + after.records() + " (positions [" + after.cutPosition() + ", "
                    + endPosition + "))");
            out.println("continues: at position " + continuePosition
                    + " (the next record appended goes there: positions are never given out twice)");
            for (final Path file : evidence) {
                out.println("evidence:  " + file + " (" + Files.size(file) + " bytes, the removed frames byte for"
                        + " byte)");
            }
        }
        out.println("now:       " + now.verdict() + ", " + now.report().records() + " record(s)"
                + (now.verdict() == LogInspection.Verdict.CLEAN
                        ? ""
                        : ": "
                                + (now.corruption() == null
                                        ? ""
                                        : now.corruption().getMessage())));
        out.flush();
    }

    /** Checks that a record starts at the LSN and counts the records after it. */
    private After after(final Wal wal) {
        final long from = lsn < 0 ? wal.startPosition() : lsn;
        final long[] first = {-1, 0}; // position and length of the first record delivered
        final long delivered;
        try (WalReader reader = wal.reader(from, Durability.WRITTEN)) {
            delivered = reader.replay((buffer, offset, length, position) -> {
                if (first[0] < 0) {
                    first[0] = position;
                    first[1] = length;
                }
            });
        } catch (final WalException ex) {
            if (ex.errorCode() == WalException.ErrorCode.POSITION) {
                throw notARecord(ex);
            }
            throw ex;
        }
        if (lsn < 0) {
            return new After(from, delivered);
        }
        if (delivered == 0 || first[0] != lsn) {
            throw notARecord(null);
        }
        final long frameBytes = FrameDescriptor.HEADER_LENGTH + first[1];
        final long aligned = (frameBytes + FrameDescriptor.FRAME_ALIGNMENT - 1) & -FrameDescriptor.FRAME_ALIGNMENT;
        return new After(lsn + aligned, delivered - 1);
    }

    private ToolException notARecord(final Throwable cause) {
        return new ToolException(
                Walden.EXIT_USAGE,
                "no record starts at LSN " + lsn + " in " + directory + ": give the position of the last record"
                        + " to keep, as `walden dump` shows it, or -1 to keep none. No record was removed",
                cause);
    }

    private static void deleteQuietly(final List<Path> files) {
        for (final Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (final IOException ex) {
                // Left as it is: a copy of bytes that are still in the log.
            }
        }
    }
}
