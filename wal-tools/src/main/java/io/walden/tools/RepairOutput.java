package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalCorruptionException;
import io.walden.format.SegmentNames;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints a {@link RepairOutcome}: as text, a few labelled lines (what was found, kept, skipped, cut,
 * discarded, one line for the evidence, the state now), or with {@code --json} as one object. A dry
 * run prints the same figures, saying that they are what the repair would do.
 *
 * <p><b>Threading:</b> one thread.
 */
final class RepairOutput {
    /** Ranges listed in text before "and N more". */
    private static final int RANGES_SHOWN = 8;

    private final Path directory;
    private final RepairOutcome outcome;

    /**
     * Creates the printer.
     *
     * @param directory the log directory, as given.
     * @param outcome what the repair found and did.
     */
    RepairOutput(final Path directory, final RepairOutcome outcome) {
        this.directory = directory;
        this.outcome = outcome;
    }

    /**
     * Prints the outcome as text.
     *
     * @param out where to.
     */
    void text(final PrintWriter out) {
        final LogInspection before = outcome.before();
        out.println("found:     " + before.verdict()
                + (before.corruption() == null ? "" : ": " + before.corruption().getMessage()));
        final RecoveryReport report = outcome.report();
        if (report == null) {
            out.println("unchanged: " + directory + " opens as it is; nothing to repair");
        } else {
            out.println((outcome.dryRun() ? "dry run:   " : "repair:    ")
                    + policyText()
                    + (outcome.dryRun()
                            ? "; nothing in " + directory + " was changed: the repair ran on a copy (deleted), and"
                                    + " would do this:"
                            : ""));
            given(out, report);
            out.println("evidence:  " + evidenceText());
        }
        out.println((outcome.dryRun() && report != null ? "then:      " : "now:       ") + nowText());
        out.flush();
    }

    private String policyText() {
        return outcome.policy() == RecoveryPolicy.SKIP
                ? "RecoveryPolicy.SKIP (--skip-damaged): keeps the valid frames after the damage"
                : "RecoveryPolicy.TRUNCATE: keeps what precedes the first damage, discards the rest";
    }

    private void given(final PrintWriter out, final RecoveryReport report) {
        final long beforeDamage = outcome.before().report().records();
        out.println("kept:      " + report.records() + " record(s)"
                + (outcome.before().verdict() == LogInspection.Verdict.CORRUPTION
                        ? ", " + beforeDamage + " before the first damage and " + (report.records() - beforeDamage)
                                + " after it"
                        : "")
                + "; the log continues at position " + report.endPosition());
        if (report.skippedBytes() > 0 || !ranges("skipped").isEmpty()) {
            out.println("skipped:   " + report.skippedBytes() + " byte(s) of damaged frames, whose records are lost;"
                    + " positions " + rangesText("skipped"));
        }
        if (report.tornTailFile() != null) {
            out.println("cut:       a torn tail of " + report.tornTailBytesCut() + " byte(s) holding "
                    + report.tornTailRecordsCut() + " record(s) never acknowledged, in " + tornTailFile(report)
                    + " at offset " + report.tornTailOffset() + "; positions " + rangesText("cut"));
        }
        if (report.droppedBytes() > 0 || !ranges("discarded").isEmpty()) {
            out.println("discarded: " + report.droppedBytes() + " byte(s) of data; positions " + rangesText("discarded")
                    + " given up");
        }
        for (final String finding : report.findings()) {
            out.println("  - " + outcome.inLog(directory, finding));
        }
    }

    private List<GivenUpRanges.Range> ranges(final String what) {
        return outcome.ranges().stream()
                .filter(range -> range.what().equals(what))
                .collect(Collectors.toList());
    }

    private String rangesText(final String what) {
        final List<GivenUpRanges.Range> ranges = ranges(what);
        if (ranges.isEmpty()) {
            return "none";
        }
        final String shown = ranges.stream()
                .limit(RANGES_SHOWN)
                .map(GivenUpRanges.Range::toString)
                .collect(Collectors.joining(" "));
        return ranges.size() <= RANGES_SHOWN
                ? shown
                : shown + " and " + (ranges.size() - RANGES_SHOWN) + " more (--json lists them all)";
    }

    private String evidenceText() {
        final RepairOutcome.Evidence evidence = outcome.evidence();
        if (evidence.files() == 0) {
            return "none (nothing but zeros was cut)";
        }
        return (outcome.dryRun() ? "would keep " : "") + evidence.files() + " file(s), " + evidence.bytes()
                + " bytes, in " + evidenceDirectory() + "/"
                + (outcome.dryRun() ? "" : " (this repair's names begin with " + evidence.stamp() + ")");
    }

    private Path evidenceDirectory() {
        return directory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
    }

    private String nowText() {
        final LogInspection now = outcome.now();
        if (now.verdict() != LogInspection.Verdict.CORRUPTION) {
            return now.verdict() + ", " + now.report().records() + " record(s): the log opens under the default"
                    + " policy";
        }
        if (outcome.opensWithSkipOnly()) {
            return "CORRUPTION under the default policy ("
                    + outcome.inLog(directory, now.corruption().getMessage())
                    + "): damaged frames inside a batch stay in place, skipped (no discard frame, which would end"
                    + " the batch, fits before the next 4096-byte block). Open the log with RecoveryPolicy.SKIP"
                    + " (WalConfig.Builder.recoveryPolicy), which keeps the "
                    + outcome.report().records()
                    + " record(s) above on every open; `walden repair " + directory + "` without --skip-damaged"
                    + " makes it open under the default policy, discarding everything after the damage";
        }
        return "CORRUPTION, " + now.report().records() + " record(s): "
                + outcome.inLog(directory, now.corruption().getMessage())
                + " (repair could not fix it: report it)";
    }

    /**
     * Prints the outcome as one JSON object.
     *
     * @param out where to.
     */
    void json(final LineWriter out) {
        final RecoveryReport repaired = outcome.report();
        final Json json = new Json(out)
                .begin()
                .field("command", "repair")
                .field("directory", directory.toString())
                .field("policy", outcome.policy().name())
                .field("dryRun", outcome.dryRun())
                .field("changed", repaired != null && !outcome.dryRun())
                .field("verdictBefore", outcome.before().verdict().name());
        corruption(json, outcome.before().corruption());
        if (repaired == null) {
            json.nullField("repair");
        } else {
            repairJson(json.object("repair"), repaired);
        }
        final LogInspection now = outcome.now();
        json.field("verdict", now.verdict().name())
                .field("records", now.report().records())
                .field(
                        "opensWith",
                        now.verdict() != LogInspection.Verdict.CORRUPTION
                                ? RecoveryPolicy.FAIL.name()
                                : outcome.opensWithSkipOnly() ? RecoveryPolicy.SKIP.name() : null)
                .field("exitCode", outcome.exitCode());
        json.endLine();
    }

    private void repairJson(final Json json, final RecoveryReport repaired) {
        json.field("recordsKept", repaired.records())
                .field("recordsBeforeDamage", outcome.before().report().records())
                .field("droppedBytes", repaired.droppedBytes())
                .field("skippedBytes", repaired.skippedBytes())
                .field(
                        "tornTailFile",
                        repaired.tornTailFile() == null
                                ? null
                                : tornTailFile(repaired).toString())
                .field("tornTailOffset", repaired.tornTailOffset())
                .field("tornTailBytes", repaired.tornTailBytesCut())
                .field("tornTailRecords", repaired.tornTailRecordsCut())
                .field("endPosition", repaired.endPosition());
        json.array("ranges");
        for (final GivenUpRanges.Range range : outcome.ranges()) {
            json.begin()
                    .field("what", range.what())
                    .field("from", range.from())
                    .field("to", range.to())
                    .end();
        }
        json.end();
        final RepairOutcome.Evidence evidence = outcome.evidence();
        json.field("evidenceDirectory", evidenceDirectory().toString())
                .field("evidenceFiles", evidence.files())
                .field("evidenceBytes", evidence.bytes())
                .array(
                        "evidence",
                        outcome.dryRun()
                                ? List.of()
                                : evidence.paths().stream().map(Path::toString).toList())
                .array(
                        "findings",
                        repaired.findings().stream()
                                .map(finding -> outcome.inLog(directory, finding))
                                .toList())
                .end();
    }

    /** The torn tail's file in the log directory (in a dry run, recovery cut it in the copy). */
    private Path tornTailFile(final RecoveryReport report) {
        return directory.resolve(report.tornTailFile().getFileName().toString());
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
