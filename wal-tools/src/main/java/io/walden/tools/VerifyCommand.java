package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryReport;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentNames;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code walden verify DIR}: what opening the log would find, without opening it. Runs the same
 * validation and the same rule as recovery ({@link io.walden.Wal#inspect}), read-only and without the
 * lock, and prints the verdict, the recovery report and the throughput of the scan.
 *
 * <p>With {@code --live}, for a log a process has open and writes: every frame up to the end of the
 * valid frames is verified as always, and bytes past everything the log proves durable (what {@code
 * Wal.inspect} calls a torn tail) are taken for the writer's write in progress, exit 0. That holds only
 * while a process holds the log's lock (or the lock table cannot be read): an open log was recovered
 * when it was opened, so such bytes cannot be a crash's. With the lock free they are a crash's torn
 * tail, exit 1 as without {@code --live}. Damage below them is corruption either way.
 *
 * <p>Exit code: 0 clean (or, with {@code --live}, a live tail), 1 a torn tail only (opening cuts it;
 * on a live log without {@code --live}, possibly a write in progress), 2 corruption (opening fails
 * under the default policy), 3 no readable log.
 */
@Command(
        name = "verify",
        description = {
            "Checks every header and frame of the log as opening it would, read-only and without the lock,"
                    + " and prints the verdict and the recovery report.",
            "Exit code: 0 clean (with --live: or a write in progress), 1 torn tail only, 2 corruption, 3 no"
                    + " readable log."
        })
public final class VerifyCommand extends LogCommand {
    private static final String LIVE_MEANING = "every frame up to the live tail is valid; a process holds the log"
            + " and is writing past what it has proven durable";

    @Option(
            names = "--live",
            description = "The log is open in a process that writes it: while a process holds its lock, bytes"
                    + " past what the log proves durable are that writer's write in progress (exit 0), not a"
                    + " torn tail. Damage below them is still corruption (exit 2).")
    private boolean live;

    /** Creates the command; picocli fills its options. */
    public VerifyCommand() {
        // Options only.
    }

    @Override
    int run() {
        final LogDirectory log = LogDirectory.open(directory);
        final LockProbe.Holder holder = LockProbe.holder(directory);
        final Inspection result = Inspection.of(directory);
        final LogInspection inspection = result.inspection();
        final SegmentCount segments = SegmentCount.of(log, inspection);
        final boolean liveTail = live
                && inspection.verdict() == LogInspection.Verdict.TORN_TAIL
                && (holder.state() == LockProbe.State.HELD || holder.state() == LockProbe.State.UNKNOWN);
        final int exitCode = liveTail ? Walden.EXIT_OK : exitCode(inspection.verdict());
        final PrintWriter out = spec.commandLine().getOut();
        if (json()) {
            final LineWriter line = new LineWriter(out);
            json(line, inspection, exitCode, liveTail, result, holder, segments);
            line.flush();
        } else {
            text(out, inspection, exitCode, liveTail, result, holder, segments);
        }
        out.flush();
        if (inspection.verdict() == LogInspection.Verdict.CORRUPTION && !json()) {
            final PrintWriter err = spec.commandLine().getErr();
            err.println("walden verify: " + inspection.corruption().getMessage());
            err.flush();
        }
        return exitCode;
    }

    private static int exitCode(final LogInspection.Verdict verdict) {
        switch (verdict) {
            case CLEAN:
                return Walden.EXIT_OK;
            case TORN_TAIL:
                return Walden.EXIT_TORN_TAIL;
            default:
                return Walden.EXIT_CORRUPTION;
        }
    }

    private void text(
            final PrintWriter out,
            final LogInspection inspection,
            final int exitCode,
            final boolean liveTail,
            final Inspection result,
            final LockProbe.Holder holder,
            final SegmentCount segments) {
        final RecoveryReport report = inspection.report();
        out.println("verdict: " + inspection.verdict() + (liveTail ? ", live" : "") + " (exit " + exitCode + "): "
                + (liveTail ? LIVE_MEANING : meaning(inspection.verdict())));
        out.println("log:     " + directory + ", identity " + String.format("%016x", report.logId()) + ", "
                + segments.text() + ", of " + report.segmentCapacityBytes() + " bytes each");
        out.println("lock:    " + holder.describe());
        out.println("records: " + report.records() + " valid, positions [" + report.startPosition() + ", "
                + (report.endPosition() < 0 ? "?" : Long.toString(report.endPosition())) + ")");
        out.println("scanned: " + report.bytesScanned() + " bytes of frames in "
                + String.format(Locale.ROOT, "%.1f ms (%s)", report.durationNs() / 1e6, rate(report))
                + "; wall clock " + String.format(Locale.ROOT, "%.1f ms", result.wallNs() / 1e6));
        out.println("closed cleanly: " + (report.closedCleanly() ? "yes" : "no"));
        out.println("records end at " + report.recoveredEndPosition() + ", proven durable to "
                + report.provenDurablePosition());
        if (report.tornTailFile() != null && liveTail) {
            out.println("live tail: " + report.tornTailBytesCut() + " byte(s) in " + report.tornTailFile()
                    + " from offset " + report.tornTailOffset() + ", past everything proven durable: the"
                    + " writer's write in progress (--live, and " + holder.describe() + ")");
        } else if (report.tornTailFile() != null) {
            out.println("torn tail: " + report.tornTailBytesCut() + " byte(s) holding " + report.tornTailRecordsCut()
                    + " valid record(s) in " + report.tornTailFile() + " at offset " + report.tornTailOffset()
                    + ": past everything proven durable; opening the log cuts it and keeps it in "
                    + SegmentNames.EVIDENCE_DIRECTORY_NAME + "/"
                    + (holder.state() == LockProbe.State.HELD
                            ? " (the log is open: this may be a write in progress; --live says so)"
                            : live ? " (--live, but no process holds the log: a crash left it)" : ""));
        }
        if (inspection.corruption() != null) {
            final WalCorruptionException corruption = inspection.corruption();
            out.println("corruption: " + corruption.file()
                    + (corruption.fileOffset() >= 0 ? " at offset " + corruption.fileOffset() : "") + ": "
                    + corruption.getMessage());
        }
        final List<String> findings = report.findings();
        out.println("findings: " + (findings.isEmpty() ? "none" : ""));
        for (final String finding : findings) {
            out.println("  - " + finding);
        }
        out.println("summary: " + report.summary());
    }

    private static String meaning(final LogInspection.Verdict verdict) {
        switch (verdict) {
            case CLEAN:
                return "opening the log changes nothing";
            case TORN_TAIL:
                return "opening the log cuts a torn tail (bytes past everything proven durable, what a crash or a"
                        + " write in progress leaves)";
            default:
                return "opening the log fails under the default policy (RecoveryPolicy.FAIL): damage to data the log"
                        + " proves durable, or structural damage";
        }
    }

    private static String rate(final RecoveryReport report) {
        if (report.durationNs() <= 0) {
            return "- GB/s";
        }
        return String.format(Locale.ROOT, "%.2f GB/s", (double) report.bytesScanned() / report.durationNs());
    }

    private void json(
            final LineWriter out,
            final LogInspection inspection,
            final int exitCode,
            final boolean liveTail,
            final Inspection result,
            final LockProbe.Holder holder,
            final SegmentCount segments) {
        final RecoveryReport report = inspection.report();
        final Json json = new Json(out).begin();
        json.field("directory", directory.toString())
                .field("verdict", inspection.verdict().name())
                .field("exitCode", exitCode)
                .field("live", live)
                .field("liveTail", liveTail)
                .field("logId", String.format("%016x", report.logId()))
                .field("segmentCapacityBytes", report.segmentCapacityBytes())
                .field("segments", report.segments())
                .field("segmentFiles", segments.files())
                .field("segmentsPrepared", segments.prepared())
                .field("records", report.records())
                .field("bytesScanned", report.bytesScanned())
                .field("durationNs", report.durationNs())
                .field("wallNs", result.wallNs())
                .field(
                        "bytesPerSecond",
                        report.durationNs() <= 0 ? 0 : report.bytesScanned() * 1_000_000_000L / report.durationNs())
                .field("startPosition", report.startPosition())
                .field("endPosition", report.endPosition())
                .field("closedCleanly", report.closedCleanly())
                .field("recoveredEndPosition", report.recoveredEndPosition())
                .field("provenDurablePosition", report.provenDurablePosition())
                .field("lock", holder.state().name())
                .field("lockPid", holder.pid());
        if (report.tornTailFile() == null) {
            json.nullField("tornTail");
        } else {
            json.object("tornTail")
                    .field("file", report.tornTailFile().toString())
                    .field("offset", report.tornTailOffset())
                    .field("bytes", report.tornTailBytesCut())
                    .field("records", report.tornTailRecordsCut())
                    .end();
        }
        if (inspection.corruption() == null) {
            json.nullField("corruption");
        } else {
            json.object("corruption")
                    .field("file", String.valueOf(inspection.corruption().file()))
                    .field("offset", inspection.corruption().fileOffset())
                    .field("message", inspection.corruption().getMessage())
                    .end();
        }
        json.array("evidence", report.evidence().stream().map(Path::toString).toList());
        json.array("findings", report.findings());
        json.endLine();
    }
}
