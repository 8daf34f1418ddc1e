package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code walden repair DIR}: makes a corrupt log open again, by opening it once with a recovery
 * policy that handles the damage: {@link RecoveryPolicy#TRUNCATE} by default, which keeps everything
 * before the first damage and durably discards the rest; {@link RecoveryPolicy#SKIP} with {@code
 * --skip-damaged}, which keeps the valid frames after the damage too. Recovery keeps every byte it
 * cuts or discards in {@code recovery-evidence/} (FORMAT.md, recovery rules 7 and 8). The tool decides
 * nothing itself: what is kept, cut and skipped is the core's recovery, as an application opening the
 * log with that policy would get it.
 *
 * <p>With {@code --dry-run} recovery runs on a copy of the log ({@link ScratchCopy}) and the log is not
 * changed by a byte; the figures printed are those the repair would print. Only a log no process has
 * open ({@link OfflineLog}); a log that opens as it is is left alone. It prints what it found, what
 * was cut, skipped or discarded (records, bytes, positions), one line for the evidence, and inspects
 * the log again afterwards.
 *
 * <p>Exit code: 0 the log opens under the default policy (repaired, or nothing to repair; under
 * {@code --skip-damaged} recovery covers each skipped range with a discard frame, so this is the rule);
 * 2 recovery refused the log, nothing changed, or the log still does not open (it should not happen:
 * report it); 3 no readable log; 4 a process has the log open; 5 {@code --skip-damaged} kept the
 * records but some damage stays, skipped (inside a batch, with no room for the discard frame that would
 * end the batch before the next 4096-byte block): the log opens with {@link RecoveryPolicy#SKIP} only.
 * A dry run exits as the repair would.
 */
@Command(
        name = "repair",
        description = {
            "Makes a damaged log open again; only a log no process has open. A log that opens as it is is left"
                    + " alone. Every byte cut or discarded is kept in recovery-evidence/ (one line says where).",
            "Which to choose: run --dry-run first (with --skip-damaged too, to compare): it says what each would"
                    + " keep and give up, in records, bytes and positions (LSN ranges), from a copy of the log, and"
                    + " changes nothing.",
            "Default (RecoveryPolicy.TRUNCATE): keeps everything before the first damage, discards everything"
                    + " after it, later segments too; the log then opens under the default policy. Choose it when"
                    + " the records after the damage are not needed or come back from elsewhere (a replica), when"
                    + " the damage is at the end anyway, or when --skip-damaged refuses.",
            "--skip-damaged (RecoveryPolicy.SKIP): keeps every valid record after the damage too; only the"
                    + " damaged frames are lost. Choose it when the records after the damage matter. A damaged end"
                    + " or a torn tail is cut, as by the default; damage inside the log is kept in"
                    + " recovery-evidence/ and covered by a discard frame, so the log then opens under the default"
                    + " policy (exit 0). Only damage inside a batch with no room for a discard frame before the"
                    + " next 4096-byte block stays in place, skipped on every open: the log then opens with"
                    + " RecoveryPolicy.SKIP only (exit 5). It refuses, changing nothing (exit 2), a missing middle"
                    + " segment,"
                    + " a bad segment header, a foreign file or a segment of another log (the default repair cuts"
                    + " the log before those), and a lost newest segment (no repair opens that).",
            "Exit code: 0 the log opens under the default policy (repaired, or nothing to repair), 2 refused or"
                    + " still corrupt, 3 no readable log, 4 the log is open in a process, 5 --skip-damaged: records"
                    + " kept, but damage inside a batch stays, skipped: opens with RecoveryPolicy.SKIP only."
                    + " --dry-run exits as the repair would."
        })
public final class RepairCommand extends LogCommand {
    @Option(
            names = "--skip-damaged",
            description = "Repair with RecoveryPolicy.SKIP instead of TRUNCATE: keep the valid records after the"
                    + " damage, give up only the damaged frames.")
    private boolean skipDamaged;

    @Option(
            names = "--dry-run",
            description = "Change nothing: run the repair on a copy of the log (in --scratch, deleted afterwards)"
                    + " and print what it would keep, cut, skip and discard.")
    private boolean dryRun;

    @Option(
            names = "--scratch",
            paramLabel = "DIR",
            description = "Where --dry-run copies the log (needs up to the log's size; zero-filled ranges are"
                    + " left as holes). Default: the system's temporary directory (java.io.tmpdir).")
    private Path scratch;

    /** Creates the command; picocli fills its options. */
    public RepairCommand() {
        // Options only.
    }

    @Override
    int run() throws IOException {
        final LogDirectory log = OfflineLog.refuseIfOpen(directory, "repair");
        final RecoveryPolicy policy = skipDamaged ? RecoveryPolicy.SKIP : RecoveryPolicy.TRUNCATE;
        final LogInspection before = Wal.inspect(directory);
        final RepairOutcome outcome;
        if (before.verdict() == LogInspection.Verdict.CLEAN) {
            outcome = RepairOutcome.nothingToRepair(policy, dryRun, before);
        } else if (dryRun) {
            outcome = dryRun(log, policy, before);
        } else {
            outcome = repair(directory, policy, before, null);
        }
        final RepairOutput output = new RepairOutput(directory, outcome);
        if (json()) {
            final LineWriter out = new LineWriter(spec.commandLine().getOut());
            output.json(out);
            out.flush();
        } else {
            output.text(spec.commandLine().getOut());
        }
        return outcome.exitCode();
    }

    /** Repairs a copy of the log; a refusal names the log, not the copy. */
    private RepairOutcome dryRun(final LogDirectory log, final RecoveryPolicy policy, final LogInspection before)
            throws IOException {
        try (ScratchCopy copy =
                ScratchCopy.of(log, scratchRoot(), before.report().segmentCapacityBytes())) {
            try {
                return repair(copy.path(), policy, before, copy.path());
            } catch (final ToolException ex) {
                throw new ToolException(
                        ex.exitCode(),
                        ex.getMessage().replace(copy.path().toString(), directory.toString())
                                + " (--dry-run: recovery ran on a copy of the log, which is deleted)",
                        ex.getCause());
            }
        }
    }

    /** Opens the log (or its copy) once with the policy, as an application would, and inspects it again. */
    private RepairOutcome repair(
            final Path logPath, final RecoveryPolicy policy, final LogInspection before, final Path copy)
            throws IOException {
        final RecoveryReport report;
        try (Wal wal = OfflineLog.open(logPath, policy, "repair", refusal(policy))) {
            report = wal.recoveryReport();
        }
        return new RepairOutcome(
                policy,
                dryRun,
                before,
                report,
                Wal.inspect(logPath),
                GivenUpRanges.of(report),
                RepairOutcome.Evidence.of(report.evidence()),
                copy);
    }

    private String refusal(final RecoveryPolicy policy) {
        if (policy == RecoveryPolicy.SKIP) {
            return "--skip-damaged (RecoveryPolicy.SKIP) skips damaged frames only, and refuses structural damage: a"
                    + " missing middle segment, a bad segment header, a foreign file or a segment of another log;"
                    + " `walden repair " + directory + "` without --skip-damaged cuts the log before it, keeping what"
                    + " it cuts as evidence (a lost newest segment no repair opens: restore it from a copy)";
        }
        return "even RecoveryPolicy.TRUNCATE refuses this log, as it refuses a lost newest segment (DURABILITY.md,"
                + " \"Lost segments\"): restore the missing segment file from a backup or a copy of the log";
    }

    private Path scratchRoot() {
        return scratch != null ? scratch : Path.of(System.getProperty("java.io.tmpdir"));
    }
}
