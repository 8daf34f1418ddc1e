package io.walden.crash.kill;

import io.walden.groups.GroupLedger;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import io.walden.groups.GroupModel;
import io.walden.groups.GroupWorkload;
import io.walden.groups.PurgeReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The program {@link GroupLogKillTest} runs in a child JVM and kills with SIGKILL: it opens (and so
 * recovers) a group log on real files through the FileChannel backend, then appends the steps of {@link
 * GroupWorkload} drawn from its seed, one thread, and purges every {@value #PURGE_EVERY} steps (which
 * frees segments and relocates the group that never truncates), until it is killed. It reports on
 * standard output, one line per event, each written with one {@code KillChild.write(2)} of less than {@code
 * PIPE_BUF} bytes, so a line is either whole in the pipe or absent:
 *
 * <pre>
 *   O                        about to open the log (recovery runs next)
 *   R g:first:last ...       open; each workload group's bounds as recovery left them
 *   s step                   about to append step number {@code step}: from now on it may be in the log
 *   a step lsn level         its append returned at level B, W or S; lsn is its last record's position
 *   p                        about to purge
 *   P relocated freed        the purge returned: records relocated, segments freed
 *   E text                   unexpected failure; the child exits with status 2
 * </pre>
 *
 * <p>The steps are not reported, only their numbers: the parent draws them again from the seed and the
 * groups it expects the log to hold, which the {@code R} line lets it check.
 *
 * <p>Arguments: log directory, random seed.
 *
 * <p><b>Threading:</b> the main thread only.
 */
public final class GroupKillChild {
    /** A purge after every this many steps. */
    static final int PURGE_EVERY = 3;
    /** A child whose parent has gone stops after this long, so that no orphan fills the disk. */
    private static final long MAX_RUN_NS = TimeUnit.SECONDS.toNanos(60);

    private GroupKillChild() {}

    /**
     * The configuration of the group log in a directory, for the child and the parent that checks it:
     * {@link KillSetup}'s small segments and buffer, and relocation after one round of pinning.
     *
     * @param directory the log directory.
     * @return the configuration.
     */
    static GroupLogConfig config(final Path directory) {
        return GroupLogConfig.builder(KillSetup.config(directory, "nio"))
                .relocateAfterRounds(1)
                .readers(1)
                .build();
    }

    /**
     * Runs the child.
     *
     * @param args directory, seed.
     */
    public static void main(final String[] args) {
        try {
            final Path directory = Path.of(args[0]);
            final SplittableRandom random = new SplittableRandom(Long.parseLong(args[1]));
            KillChild.write("O");
            final GroupLog log = GroupLog.open(config(directory));
            final GroupModel recovered = GroupModel.of(log);
            final StringBuilder bounds = new StringBuilder("R");
            for (final long g : GroupWorkload.groups()) {
                bounds.append(' ')
                        .append(g)
                        .append(':')
                        .append(recovered.first(g))
                        .append(':')
                        .append(recovered.last(g));
            }
            KillChild.write(bounds.toString());
            run(log, new GroupLedger(recovered), random);
        } catch (final Throwable ex) {
            KillChild.fail(ex);
        }
    }

    private static void run(final GroupLog log, final GroupLedger ledger, final SplittableRandom random)
            throws IOException {
        final long deadlineNs = System.nanoTime() + MAX_RUN_NS;
        for (int step = 0; System.nanoTime() - deadlineNs < 0; step++) {
            final GroupWorkload.Next next = GroupWorkload.next(ledger.current(), random);
            KillChild.write("s " + step);
            final long lsn = ledger.append(log, next.step(), next.durability());
            KillChild.write(
                    "a " + step + " " + lsn + " " + next.durability().name().charAt(0));
            if (step % PURGE_EVERY == PURGE_EVERY - 1) {
                KillChild.write("p");
                final PurgeReport purged = log.purge();
                KillChild.write("P " + purged.relocatedRecords() + " " + purged.segmentsFreed());
            }
        }
        // Only reached when the parent never killed this child.
        KillChild.write("E no kill within " + TimeUnit.NANOSECONDS.toSeconds(MAX_RUN_NS) + " s");
        Runtime.getRuntime().halt(KillChild.EXIT_FAILED);
    }
}
