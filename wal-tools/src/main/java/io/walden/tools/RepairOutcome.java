package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What one {@code walden repair} found and did, or, in a dry run, would do: the inspection before,
 * the report of the recovery that ran (on the log, or on a copy of it), the positions it gave up and
 * the evidence it kept, and the inspection after, under the default policy.
 *
 * @param policy the recovery policy the repair opens the log with.
 * @param dryRun whether recovery ran on a copy, the log unchanged.
 * @param before what {@code Wal.inspect} found before.
 * @param report what recovery found and did, or null if the log opened as it was (nothing to repair).
 * @param now what {@code Wal.inspect} finds afterwards (in a dry run, in the copy).
 * @param ranges the positions given up ({@link GivenUpRanges}).
 * @param evidence the evidence files recovery wrote: count, bytes and the stamp their names begin with.
 * @param copy in a dry run, the path of the copy recovery ran on (deleted since), else null.
 */
record RepairOutcome(
        RecoveryPolicy policy,
        boolean dryRun,
        LogInspection before,
        RecoveryReport report,
        LogInspection now,
        List<GivenUpRanges.Range> ranges,
        Evidence evidence,
        Path copy) {

    /**
     * The evidence one recovery kept, summed up.
     *
     * @param files how many files.
     * @param bytes their size.
     * @param stamp the stamp their names begin with (one recovery, one stamp), or "" if none.
     * @param paths the files (in a dry run, in the copy, deleted since).
     */
    record Evidence(int files, long bytes, String stamp, List<Path> paths) {
        /** No evidence. */
        static final Evidence NONE = new Evidence(0, 0, "", List.of());

        /**
         * Sums up the evidence files of a recovery; they must still exist.
         *
         * @param paths the files.
         * @return the summary.
         * @throws IOException if a file cannot be read.
         */
        static Evidence of(final List<Path> paths) throws IOException {
            long bytes = 0;
            for (final Path file : paths) {
                bytes += Files.size(file);
            }
            final String first =
                    paths.isEmpty() ? "" : paths.get(0).getFileName().toString();
            return new Evidence(
                    paths.size(),
                    bytes,
                    first.indexOf('-') < 0 ? first : first.substring(0, first.indexOf('-')),
                    paths);
        }
    }

    /**
     * The outcome of a repair that had nothing to do.
     *
     * @param policy the policy asked for.
     * @param dryRun whether it was a dry run.
     * @param before the inspection, which found the log opens as it is.
     * @return the outcome.
     */
    static RepairOutcome nothingToRepair(
            final RecoveryPolicy policy, final boolean dryRun, final LogInspection before) {
        return new RepairOutcome(policy, dryRun, before, null, before, List.of(), Evidence.NONE, null);
    }

    /**
     * Names the log where a text from recovery on the copy names the copy.
     *
     * @param directory the log directory.
     * @param text a finding or a message.
     * @return the text, naming the log directory.
     */
    String inLog(final Path directory, final String text) {
        return copy == null ? text : text.replace(copy.toString(), directory.toString());
    }

    /** @return whether recovery ran (on the log, or in a dry run on its copy). */
    boolean repaired() {
        return report != null;
    }

    /**
     * Whether the damage stays in place after the repair, skipped: {@code SKIP} kept the records after
     * it, but opening under the default policy still refuses the log.
     *
     * @return whether the log now opens with {@link RecoveryPolicy#SKIP} only.
     */
    boolean opensWithSkipOnly() {
        return repaired() && policy == RecoveryPolicy.SKIP && now.verdict() == LogInspection.Verdict.CORRUPTION;
    }

    /** @return the exit code: 0 opens under the default policy, 5 with SKIP only, 2 still corrupt. */
    int exitCode() {
        if (now.verdict() != LogInspection.Verdict.CORRUPTION) {
            return Walden.EXIT_OK;
        }
        return opensWithSkipOnly() ? Walden.EXIT_SKIP_ONLY : Walden.EXIT_CORRUPTION;
    }
}
