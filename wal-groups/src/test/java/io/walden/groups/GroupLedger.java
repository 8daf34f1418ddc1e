package io.walden.groups;

import io.walden.Durability;
import io.walden.RecoveryReport;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a crash test appended to a group log and what it was told, to check a log reopened after a
 * power failure: the log must hold exactly the steps (batches) before some point, every step
 * acknowledged {@code SYNCED} among them, each whole or not at all, and every group must then be what
 * those steps make it ({@link GroupModel}). The point is where recovery found the valid records to end
 * ({@link RecoveryReport#recoveredEndPosition()}): a step is in the log if its last record lies before it.
 *
 * <p><b>Threading:</b> not thread-safe; one thread runs the workload.
 */
public final class GroupLedger {
    private final List<Step> steps = new ArrayList<>();
    private final GroupModel kept = new GroupModel();
    private int syncedSteps;

    /** One batch: the operations for the log and, beside them, for the model. */
    public static final class Step {
        private final GroupBatch batch = new GroupBatch();
        private final List<Consumer<GroupModel>> ops = new ArrayList<>();
        private long lastLsn;

        public Step add(final long g, final long i, final byte[] entry) {
            batch.add(g, i, entry);
            ops.add(m -> m.append(g, i, entry));
            return this;
        }

        public Step truncatePrefix(final long g, final long k) {
            batch.truncatePrefix(g, k);
            ops.add(m -> m.truncatePrefix(g, k));
            return this;
        }

        public Step truncateSuffix(final long g, final long k) {
            batch.truncateSuffix(g, k);
            ops.add(m -> m.truncateSuffix(g, k));
            return this;
        }

        public Step reset(final long g, final long n) {
            batch.reset(g, n);
            ops.add(m -> m.reset(g, n));
            return this;
        }

        public Step removeGroup(final long g) {
            batch.removeGroup(g);
            ops.add(m -> m.remove(g));
            return this;
        }

        public Step put(final long g, final String key, final byte[] value) {
            batch.put(g, key, value);
            ops.add(m -> m.put(g, key, value));
            return this;
        }

        void applyTo(final GroupModel model) {
            for (final Consumer<GroupModel> op : ops) {
                op.accept(model);
            }
        }
    }

    /** The model as every step appended so far leaves it, for the workload to choose its next step. */
    public GroupModel current() {
        final GroupModel model = kept.copy();
        for (final Step step : steps) {
            step.applyTo(model);
        }
        return model;
    }

    /**
     * Appends a step; notes it only once the log took it (a refused step is not in the log). An
     * acknowledgement is noted only when the append returns.
     */
    public long append(final GroupLog log, final Step step, final Durability durability) {
        try {
            step.lastLsn = log.append(step.batch, durability);
        } catch (final RuntimeException ex) {
            // Claimed in the log before the wait failed (the power failed): it may be there.
            if (step.batch.size() > 0 && claimed(step)) {
                steps.add(step);
            }
            throw ex;
        }
        steps.add(step);
        if (durability == Durability.SYNCED) {
            syncedSteps = steps.size();
        }
        return step.lastLsn;
    }

    private static boolean claimed(final Step step) {
        try {
            step.lastLsn = step.batch.lsn(step.batch.size() - 1);
            return true;
        } catch (final IllegalStateException notAppended) {
            return false;
        }
    }

    /**
     * Checks a reopened log: throws an {@link AssertionError} that names the first violation; then forgets
     * the steps the log lost, so the workload can go on.
     *
     * @return how many of the noted steps the log holds.
     */
    public int verifyRecovered(final GroupLog log) {
        final long end = log.recoveryReport().recoveredEndPosition();
        int held = 0;
        while (held < steps.size() && steps.get(held).lastLsn < end) {
            held++;
        }
        if (held < syncedSteps) {
            throw new AssertionError("step " + held + " of " + steps.size() + " (last record at "
                    + steps.get(held).lastLsn + ") was acknowledged SYNCED but the log ends at " + end);
        }
        for (int i = 0; i < held; i++) {
            steps.get(i).applyTo(kept);
        }
        steps.clear();
        syncedSteps = 0;
        kept.assertMatches(log, "after recovery, " + held + " steps kept");
        return held;
    }
}
