package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalCorruptionException;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;

/**
 * {@code walden repair DIR}: makes a corrupt log open again under the default policy, by opening it
 * once with {@link RecoveryPolicy#TRUNCATE}: recovery keeps everything before the first damage and
 * durably discards the rest, keeping every byte it discards in {@code recovery-evidence/} (FORMAT.md,
 * recovery rule 8). Only a log no process has open ({@link OfflineLog}); a log that opens as it is
 * is left alone. It prints what it found, what was cut and where the evidence is, and inspects the
 * log again afterwards.
 *
 * <p>Exit code: 0 repaired, or nothing to repair; 2 the log still does not open (it should not
 * happen: report it); 3 no readable log; 4 a process has the log open.
 */
@Command(
        name = "repair",
        description = {
            "Cuts the damage out of a log that no process has open: opens it once with RecoveryPolicy.TRUNCATE,"
                    + " which keeps everything before the first damage and discards the rest, keeping every"
                    + " discarded byte in recovery-evidence/. A log that opens as it is is left alone.",
            "Exit code: 0 repaired or nothing to repair, 2 still corrupt, 3 no readable log, 4 the log is open in"
                    + " a process."
        })
public final class RepairCommand extends LogCommand {
    /** Creates the command; picocli fills its options. */
    public RepairCommand() {
        // Options only.
    }

    @Override
    int run() {
        OfflineLog.refuseIfOpen(directory, "repair");
        final LogInspection before = Wal.inspect(directory);
        RecoveryReport repaired = null;
        if (before.verdict() != LogInspection.Verdict.CLEAN) {
            try (Wal wal = OfflineLog.open(directory, RecoveryPolicy.TRUNCATE, "repair")) {
                repaired = wal.recoveryReport();
            }
        }
        final LogInspection now = repaired == null ? before : Wal.inspect(directory);
        if (json()) {
            json(before, repaired, now);
        } else {
            text(before, repaired, now);
        }
        return now.verdict() == LogInspection.Verdict.CORRUPTION ? Walden.EXIT_CORRUPTION : Walden.EXIT_OK;
    }

    private void text(final LogInspection before, final RecoveryReport repaired, final LogInspection now) {
        final PrintWriter out = spec.commandLine().getOut();
        out.println("found:     " + before.verdict()
                + (before.corruption() == null ? "" : ": " + before.corruption().getMessage()));
        if (repaired == null) {
            out.println("unchanged: " + directory + " opens as it is; nothing to repair");
        } else {
            out.println("cut:       " + repaired.droppedBytes() + " byte(s) discarded for corruption"
                    + (repaired.tornTailFile() == null
                            ? ""
                            : ", a torn tail of " + repaired.tornTailBytesCut() + " byte(s) in "
                                    + repaired.tornTailFile() + " at offset " + repaired.tornTailOffset())
                    + "; " + repaired.records() + " record(s) kept, the log continues at "
                    + repaired.endPosition());
            for (final String finding : repaired.findings()) {
                out.println("  - " + finding);
            }
            for (final Path file : repaired.evidence()) {
                out.println("evidence:  " + file);
            }
            if (repaired.evidence().isEmpty()) {
                out.println("evidence:  none (nothing but zeros was cut)");
            }
        }
        out.println("now:       " + now.verdict() + ", " + now.report().records() + " record(s)"
                + (now.verdict() == LogInspection.Verdict.CORRUPTION
                        ? ": " + now.corruption().getMessage() + " (repair could not fix it: report it)"
                        : ": the log opens under the default policy"));
        out.flush();
    }

    private void json(final LogInspection before, final RecoveryReport repaired, final LogInspection now) {
        final LineWriter out = new LineWriter(spec.commandLine().getOut());
        final Json json = new Json(out)
                .begin()
                .field("command", "repair")
                .field("directory", directory.toString())
                .field("changed", repaired != null)
                .field("verdictBefore", before.verdict().name());
        corruption(json, before.corruption());
        if (repaired == null) {
            json.nullField("repair");
        } else {
            json.object("repair")
                    .field("droppedBytes", repaired.droppedBytes())
                    .field(
                            "tornTailFile",
                            repaired.tornTailFile() == null
                                    ? null
                                    : repaired.tornTailFile().toString())
                    .field("tornTailOffset", repaired.tornTailOffset())
                    .field("tornTailBytes", repaired.tornTailBytesCut())
                    .field("recordsKept", repaired.records())
                    .field("endPosition", repaired.endPosition())
                    .array(
                            "evidence",
                            repaired.evidence().stream().map(Path::toString).toList())
                    .array("findings", repaired.findings())
                    .end();
        }
        json.field("verdict", now.verdict().name())
                .field("records", now.report().records());
        json.endLine();
        out.flush();
    }

    private static void corruption(final Json json, final WalCorruptionException corruption) {
        if (corruption == null) {
            json.nullField("corruption");
            return;
        }
        json.object("corruption")
                .field("file", String.valueOf(corruption.file()))
                .field("offset", corruption.fileOffset())
                .field("message", corruption.getMessage())
                .end();
    }
}
