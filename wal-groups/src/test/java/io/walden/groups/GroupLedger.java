package io.walden.groups;

import io.walden.Durability;
import io.walden.RecoveryReport;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a crash test appended to a group log and what it was told, to check a log reopened after a
 * crash: the log must hold exactly the steps (batches) before some point, every step acknowledged at a
 * level that survives the crash among them ({@code SYNCED} for a power failure, {@code WRITTEN} too for
 * a killed process), each whole or not at all, and every group must then be what those steps make it
 * ({@link GroupModel}). The point is where recovery found the valid records to end ({@link
 * RecoveryReport#recoveredEndPosition()}): a step is in the log if its last record lies before it. A
 * step whose append never returned has no known position; it is in the log if the groups show it.
 *
 * <p>A test that appends in this process uses {@link #append}; one whose appends ran in a process it
 * killed notes what that process reported ({@link #noteAcknowledged}, {@link #noteUnacknowledged}).
 *
 * <p><b>Threading:</b> not thread-safe; one thread runs the workload.
 */
public final class GroupLedger {
    /** The position of a step whose append never returned: unknown, so after every known one. */
    private static final long UNKNOWN_LSN = Long.MAX_VALUE;

    private final List<Step> steps = new ArrayList<>();
    private final GroupModel kept;
    // How many of the noted steps the crash must keep: up to the last one acknowledged at a level it keeps.
    private int promisedSteps;

    /** A ledger of an empty log. */
    public GroupLedger() {
        this(new GroupModel());
    }

    /**
     * A ledger of a log that already holds what a model shows (a process that reopened it).
     *
     * @param held what the log holds; copied.
     */
    public GroupLedger(final GroupModel held) {
        this.kept = held.copy();
    }

    /**
     * A check that found acknowledged steps missing.
     *
     * <p><b>Threading:</b> immutable.
     */
    public static final class AcknowledgedStepsLost extends AssertionError {
        private static final long serialVersionUID = 1L;
        private final int lostSteps;

        AcknowledgedStepsLost(final String message, final int lostSteps) {
            super(message);
            this.lostSteps = lostSteps;
        }

        /** @return how many acknowledged steps the log lacks. */
        public int lostSteps() {
            return lostSteps;
        }
    }

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
            promisedSteps = steps.size();
        }
        return step.lastLsn;
    }

    /**
     * Notes a step that another process appended and reported appended: its append returned.
     *
     * @param step the step, as that process made it.
     * @param lastLsn the position of its last record, as the append returned it.
     * @param promised whether the level it was acknowledged at promises to survive the crash checked.
     */
    public void noteAcknowledged(final Step step, final long lastLsn, final boolean promised) {
        if (!steps.isEmpty() && steps.get(steps.size() - 1).lastLsn == UNKNOWN_LSN) {
            throw new IllegalStateException("a step is noted after one whose append never returned");
        }
        step.lastLsn = lastLsn;
        steps.add(step);
        if (promised) {
            promisedSteps = steps.size();
        }
    }

    /**
     * Notes a step that another process began to append and died before its append returned: the last
     * step it appended, in the log whole or not at all, at a position nobody was told.
     *
     * @param step the step, as that process made it.
     */
    public void noteUnacknowledged(final Step step) {
        noteAcknowledged(step, UNKNOWN_LSN, false);
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
     * Checks a reopened log: throws an {@link AssertionError} that names the first violation ({@link
     * AcknowledgedStepsLost} if acknowledged steps are missing); then forgets the steps the log lost, so
     * the workload can go on.
     *
     * @return how many of the noted steps the log holds.
     */
    public int verifyRecovered(final GroupLog log) {
        final long end = log.recoveryReport().recoveredEndPosition();
        int held = 0;
        while (held < steps.size() && steps.get(held).lastLsn < end) {
            held++;
        }
        if (held < promisedSteps) {
            throw new AcknowledgedStepsLost(
                    "step " + held + " of " + steps.size() + " (last record at " + steps.get(held).lastLsn
                            + ") was acknowledged at a level that survives this crash but the log ends at " + end,
                    promisedSteps - held);
        }
        final boolean unknownLast = held == steps.size() - 1 && steps.get(held).lastLsn == UNKNOWN_LSN;
        if (unknownLast && matches(log, held + 1)) {
            held++;
        }
        for (int i = 0; i < held; i++) {
            steps.get(i).applyTo(kept);
        }
        steps.clear();
        promisedSteps = 0;
        kept.assertMatches(
                log,
                "after recovery, " + held + " steps kept"
                        + (unknownLast ? " (the log shows neither all nor none of the last, unacknowledged one)" : ""));
        return held;
    }

    /** Whether the log is what the kept model and the first {@code count} noted steps make it. */
    private boolean matches(final GroupLog log, final int count) {
        final GroupModel model = kept.copy();
        for (int i = 0; i < count; i++) {
            steps.get(i).applyTo(model);
        }
        try {
            model.assertMatches(log, "");
            return true;
        } catch (final AssertionError differs) {
            return false;
        }
    }
}
