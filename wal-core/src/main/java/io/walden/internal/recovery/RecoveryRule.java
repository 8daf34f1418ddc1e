package io.walden.internal.recovery;

import io.walden.internal.state.Invariants;

/**
 * Recovery's torn-versus-corrupt rule, as a pure function of what a segment holds and what the log
 * recorded about itself. It never looks at the shape of the damage (zero sectors, which bytes are
 * wrong): only at ground truth.
 *
 * <p>The facts, all offsets within one segment:
 *
 * <ul>
 *   <li><b>valid end</b>: where the run of valid frames from the segment's first frame ends (the
 *       capacity if they fill it);
 *   <li><b>data after</b>: whether any byte at or after the valid end is non-zero (an invalid frame,
 *       stray bytes, or valid frames found further on);
 *   <li><b>proven durable offset</b>: the highest durable offset carried by any valid frame of the
 *       segment, before or after the valid end: a frame proves that everything below its durable offset
 *       reached stable storage;
 *   <li><b>clean end</b>: where the log ended if its segment header records a clean close, else -1;
 *   <li><b>later segment holds data</b>: the roll fence allows it only once this one is complete and
 *       synced;
 *   <li><b>open batch</b>: where the batch the valid frames leave open starts, else -1 (never
 *       acknowledged: a batch is acknowledged once its last frame is written).
 * </ul>
 *
 * <table>
 *   <caption>Decision, first matching row wins</caption>
 *   <tr><th>condition</th><th>verdict</th></tr>
 *   <tr><td>a later segment holds data and the valid end is before the capacity</td>
 *       <td>{@link Verdict#CORRUPT_BEFORE_LATER_SEGMENT}</td></tr>
 *   <tr><td>clean end recorded, valid end equals it, nothing after, no open batch</td>
 *       <td>{@link Verdict#END}</td></tr>
 *   <tr><td>clean end recorded, anything else</td><td>{@link Verdict#CORRUPT_AFTER_CLEAN_CLOSE}</td></tr>
 *   <tr><td>valid end below the proven durable offset</td><td>{@link Verdict#CORRUPT_BELOW_DURABLE}</td></tr>
 *   <tr><td>nothing after the valid end, no open batch</td><td>{@link Verdict#END}</td></tr>
 *   <tr><td>data after the valid end, or an open batch, at or past the proven durable offset</td>
 *       <td>{@link Verdict#TORN_TAIL}</td></tr>
 * </table>
 *
 * <p>Where the log ends ({@link #endOffset}): at the valid end, or, when a batch is open there, at
 * that batch's start, so that a batch is kept whole or not at all; the open batch is cut even below
 * the proven durable offset, since none of it was acknowledged.
 *
 * <p>What it cannot tell apart (DURABILITY.md): damage to synced data past the proven durable offset
 * of a log that was not closed cleanly looks exactly like a torn write, and is cut (kept as
 * evidence).
 *
 * <p><b>Threading:</b> stateless.
 */
final class RecoveryRule {
    public enum Verdict {
        /** Nothing was written from the valid end on: the log ends there. */
        END,
        /** Unsynced data past everything proven durable, after a crash: a torn write, to be cut. */
        TORN_TAIL,
        /** Damage below an offset that a valid frame proves was synced. */
        CORRUPT_BELOW_DURABLE,
        /** Damage in a segment whose header records a clean close, which leaves no torn write. */
        CORRUPT_AFTER_CLEAN_CLOSE,
        /** Damage in a segment that a later segment with data follows. */
        CORRUPT_BEFORE_LATER_SEGMENT;

        public boolean corrupt() {
            return this != END && this != TORN_TAIL;
        }
    }

    private RecoveryRule() {}

    public static Verdict judge(
            final long validEndOffset,
            final long capacityBytes,
            final boolean dataAfter,
            final long provenDurableOffset,
            final long cleanEndOffset,
            final boolean laterSegmentHoldsData,
            final long openBatchOffset) {
        Invariants.check(
                validEndOffset <= capacityBytes, "valid end %d past capacity %d", validEndOffset, capacityBytes);
        Invariants.check(
                openBatchOffset < validEndOffset, "open batch at %d, valid end %d", openBatchOffset, validEndOffset);
        final boolean batchOpen = openBatchOffset >= 0;
        if (laterSegmentHoldsData && validEndOffset < capacityBytes) {
            return Verdict.CORRUPT_BEFORE_LATER_SEGMENT;
        }
        if (cleanEndOffset >= 0) {
            return validEndOffset == cleanEndOffset && !dataAfter && !batchOpen
                    ? Verdict.END
                    : Verdict.CORRUPT_AFTER_CLEAN_CLOSE;
        }
        if (validEndOffset < provenDurableOffset) {
            return Verdict.CORRUPT_BELOW_DURABLE;
        }
        return dataAfter || batchOpen ? Verdict.TORN_TAIL : Verdict.END;
    }

    public static long endOffset(final long validEndOffset, final long openBatchOffset) {
        return openBatchOffset >= 0 ? openBatchOffset : validEndOffset;
    }

    /** Where a corruption verdict puts the damage: the valid end, or a recorded clean end before it. */
    public static long damageOffset(final Verdict verdict, final long validEndOffset, final long cleanEndOffset) {
        return verdict == Verdict.CORRUPT_AFTER_CLEAN_CLOSE ? Math.min(validEndOffset, cleanEndOffset) : validEndOffset;
    }
}
