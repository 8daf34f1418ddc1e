package io.walden.crash.power;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.crash.CrashTally;
import io.walden.spi.StorageOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power loss while several durable writes (O_DSYNC) are in flight at once: the pipelined group
 * commit. The simulated storage completes the writes in any order, and a crash keeps any subset of
 * those not yet completed, so crash states hold later groups durable behind an earlier one that is
 * missing. Every acknowledged record must survive, nothing after a hole may be revived, and each such
 * hole must read as a torn tail past the proven durable position (never as damage to synced data).
 *
 * <p>The workload: {@value #THREADS} appender threads each append {@value #RECORDS_PER_THREAD}
 * {@code SYNCED} records of a few sizes, up to {@value #IN_FLIGHT_MAX} writes in flight, with buffered
 * and with direct I/O (where each group written beside another ends on a block boundary). The power
 * fails after every event of the disk, with {@value #CHOICES_PER_POINT} random survival choices each,
 * and {@link CrashStateChecker} checks each state. The test fails if no session had more than one
 * write in flight (the run then proved nothing about pipelining).
 */
class PipelinedWritePowerLossTest extends PowerLossSuite {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int MAX_WRITE_BYTES = 16 * 1024;
    private static final int THREADS = 4;
    private static final int RECORDS_PER_THREAD = 24;
    private static final int IN_FLIGHT_MAX = 16;
    private static final int CHOICES_PER_POINT = 3;
    private static final int ATTEMPTS_MAX = 15;

    /** The storage modes in which every write is durable by itself. */
    enum Storage {
        BUFFERED_DSYNC(new StorageOptions(false, true)),
        DIRECT_DSYNC(new StorageOptions(true, true));

        final StorageOptions options;

        Storage(final StorageOptions options) {
            this.options = options;
        }
    }

    @ParameterizedTest
    @EnumSource(Storage.class)
    void everyAcknowledgedRecordSurvivesAPowerLossWithWritesCompletedOutOfOrder(final Storage storage)
            throws Exception {
        final SplittableRandom random = new SplittableRandom(27 + storage.ordinal());
        final CrashStateChecker checker = new CrashStateChecker(workload(storage, 0), 0);
        int events = 0;
        long pipelinedSessions = 0;
        for (int attempt = 0; attempt < ATTEMPTS_MAX && pipelinedSessions == 0; attempt++) {
            final long before = CrashTally.PIPELINED_SESSIONS.get();
            events += crashAtEveryEvent(workload(storage, attempt), checker, random);
            pipelinedSessions = CrashTally.PIPELINED_SESSIONS.get() - before;
        }
        System.out.println("power-loss pipelined writes (" + storage + "): " + checker.checkedCount()
                + " crash states checked, " + events + " disk events");
        assertTrue(
                pipelinedSessions > 0,
                "no session had two writes in flight in " + ATTEMPTS_MAX + " workloads (" + events
                        + " disk events): the test no longer exercises the pipelined group commit");
    }

    private static WorkloadSpec workload(final Storage storage, final int attempt) {
        final List<List<WorkloadSpec.Step>> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final List<WorkloadSpec.Step> steps = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_THREAD; i++) {
                steps.add(new WorkloadSpec.Step(i % 3 == 0 ? 1500 : 200 + 40 * t, Durability.SYNCED, false));
            }
            threads.add(steps);
        }
        return new WorkloadSpec(
                storage.options,
                SEGMENT_BYTES,
                MAX_WRITE_BYTES,
                0,
                0,
                List.of(new WorkloadSpec.Phase(threads, false)),
                -1,
                1_000 + attempt,
                WalConfig.RECYCLED_SEGMENTS_MAX_DEFAULT,
                IN_FLIGHT_MAX);
    }

    /** Runs the workload once and checks a crash after every event of it; returns how many events it had. */
    private static int crashAtEveryEvent(
            final WorkloadSpec spec, final CrashStateChecker checker, final SplittableRandom random) throws Exception {
        final Path tryDirectory = scratch.newTryDirectory();
        final WorkloadRunner.Run run = new WorkloadRunner(spec).run(tryDirectory.resolve("log"));
        return checkEveryEvent(spec, run, tryDirectory, checker, CHOICES_PER_POINT, random);
    }
}
