package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.WalView;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import picocli.CommandLine.Command;

/**
 * {@code walden stat DIR}: the state of a log at a glance. Its segments (name, base position, size on
 * disk, header), its positions as a reader sees them ({@link WalView}: start, written, durable), its
 * records and clean-close state (from {@link Wal#inspect}), whether a process has it open (the lock,
 * looked up without touching it), other files in the directory and the evidence recovery kept.
 *
 * <p>Exit code: 0, also for a torn tail (what a crash or a write in progress leaves); 2 if the log is
 * corrupt; 3 no readable log.
 */
@Command(
        name = "stat",
        description = {
            "Prints the log's segments (name, base, size, header; in use or prepared ahead, as verify counts them),"
                    + " positions (start, written, durable), records,"
                    + " total bytes, clean-close state, whether a process has it open, and the recovery evidence"
                    + " kept in its directory.",
            "Exit code: 0 (also with a torn tail), 2 corruption, 3 no readable log."
        })
public final class StatCommand extends LogCommand {
    /** Creates the command; picocli fills its options. */
    public StatCommand() {
        // Options only.
    }

    @Override
    int run() throws IOException {
        final LogDirectory log = LogDirectory.open(directory);
        final LockProbe.Holder holder = LockProbe.holder(directory);
        long[] positions = null;
        String positionsProblem = null;
        try (WalView view = Wal.openReadOnly(directory)) {
            positions = new long[] {view.startPosition(), view.writtenPosition(), view.durablePosition()};
        } catch (final WalException ex) {
            positionsProblem = ex.getMessage();
        }
        final LogInspection inspection = Inspection.of(directory).inspection();
        if (json()) {
            final LineWriter out = new LineWriter(spec.commandLine().getOut());
            new StatJson(out).write(log, positions, positionsProblem, inspection, holder);
            out.flush();
        } else {
            text(log, positions, positionsProblem, inspection, holder);
        }
        if (inspection.verdict() == LogInspection.Verdict.CORRUPTION) {
            if (!json()) {
                spec.commandLine()
                        .getErr()
                        .println("walden stat: " + inspection.corruption().getMessage());
                spec.commandLine().getErr().flush();
            }
            return Walden.EXIT_CORRUPTION;
        }
        return Walden.EXIT_OK;
    }

    private void text(
            final LogDirectory log,
            final long[] positionsFound,
            final String positionsProblem,
            final LogInspection inspection,
            final LockProbe.Holder holder)
            throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final RecoveryReport report = inspection.report();
        final String positions = positionsFound == null
                ? "unavailable: " + positionsProblem
                : "start " + positionsFound[0] + ", written " + positionsFound[1] + ", durable " + positionsFound[2];

        out.println("directory:        " + directory.toAbsolutePath());
        out.println("log identity:     " + String.format("%016x", report.logId()));
        out.println("segment capacity: " + report.segmentCapacityBytes() + " bytes ("
                + human(report.segmentCapacityBytes()) + ")");
        final long total =
                log.segments().stream().mapToLong(LogDirectory.Segment::size).sum();
        final SegmentCount count = SegmentCount.of(log, inspection);
        out.println("segments:         " + count.text() + "; " + total + " bytes on disk (" + human(total) + ")");
        for (int i = 0; i < log.segments().size(); i++) {
            final LogDirectory.Segment segment = log.segments().get(i);
            out.println("  " + segment.name() + "  base " + segment.base() + "  size " + segment.size() + "  "
                    + headerSummary(segment) + (count.isPrepared(i) ? "  (prepared ahead, empty)" : ""));
        }
        out.println("positions:        " + positions);
        out.println("records:          " + report.records() + " valid data record(s), " + report.bytesScanned()
                + " bytes of frames"
                + (inspection.verdict() == LogInspection.Verdict.CORRUPTION ? " (before the damage)" : ""));
        out.println("records end at:   " + report.recoveredEndPosition() + ", proven durable to "
                + report.provenDurablePosition());
        out.println("closed cleanly:   " + (report.closedCleanly() ? "yes" : "no"));
        out.println("lock:             " + holder.describe());
        out.println("verdict:          " + inspection.verdict() + verdictNote(inspection, holder));
        if (inspection.corruption() != null) {
            out.println("corruption:       " + inspection.corruption().getMessage());
        }
        boolean evidence = false;
        for (final LogDirectory.Entry entry : log.others()) {
            if (entry.directory() && entry.name().equals(SegmentNames.EVIDENCE_DIRECTORY_NAME)) {
                evidence = true;
                out.println("evidence:         " + entry.name() + "/ holds "
                        + entry.files().size() + " file(s), " + entry.size() + " bytes");
                for (final LogDirectory.Segment file : entry.files()) {
                    out.println("  " + file.name() + "  " + file.size() + " bytes");
                }
            }
        }
        if (!evidence) {
            out.println("evidence:         none (no " + SegmentNames.EVIDENCE_DIRECTORY_NAME + "/)");
        }
        for (final LogDirectory.Entry entry : log.others()) {
            if (!(entry.directory() && entry.name().equals(SegmentNames.EVIDENCE_DIRECTORY_NAME))) {
                out.println("other entry:      " + entry.name() + (entry.directory() ? "/" : "") + "  "
                        + (entry.size() < 0 ? "unreadable" : entry.size() + " bytes") + describe(entry));
            }
        }
        out.flush();
    }

    private static String headerSummary(final LogDirectory.Segment segment) throws IOException {
        final SegmentHeader header;
        try {
            header = SegmentHeader.read(segment.path(), segment.base());
        } catch (final NoSuchFileException ex) {
            return "deleted since the listing";
        }
        if (header.problem() != null) {
            return "header BAD: " + header.problem();
        }
        return "header ok  closed-cleanly " + (header.closedCleanly() ? "yes" : "no") + "  durable-position "
                + header.durablePosition();
    }

    private static String verdictNote(final LogInspection inspection, final LockProbe.Holder holder) {
        switch (inspection.verdict()) {
            case CLEAN:
                return " (opening the log changes nothing)";
            case TORN_TAIL:
                return holder.state() == LockProbe.State.HELD
                        ? " (a write in progress on the open log, or a torn tail; `walden verify` has the details)"
                        : " (opening the log cuts " + inspection.report().tornTailBytesCut() + " byte(s) at the end;"
                                + " `walden verify` has the details)";
            default:
                return " (opening the log fails under the default policy)";
        }
    }

    private static String describe(final LogDirectory.Entry entry) {
        final String name = entry.name();
        if (name.equals(SegmentNames.LOCK_FILE_NAME)) {
            return "  (the lock file)";
        }
        if (name.endsWith(SegmentNames.TEMPORARY_SUFFIX)) {
            return "  (a segment being prepared, or an interrupted preparation that opening deletes)";
        }
        if (SegmentNames.parseFreeName(name) >= 0) {
            return "  (a segment file retention freed, kept to become a next segment: recycledSegmentsMax)";
        }
        return "  (not Walden's; ignored)";
    }

    private static String human(final long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
}
