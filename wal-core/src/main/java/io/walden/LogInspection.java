package io.walden;

/**
 * What a read-only inspection of a log directory found ({@link Wal#inspect}): the same validation and
 * the same rule as opening the log under {@link RecoveryPolicy#FAIL}, without changing a byte or a
 * directory entry.
 *
 * @param verdict what opening would do.
 * @param report what was found: positions, records, the torn tail recovery would cut, findings. For
 *     corruption, it covers what was scanned before the damage; its end position is then -1.
 * @param corruption the damage that makes opening fail, naming file and offset; null unless the
 *     verdict is {@link Verdict#CORRUPTION}.
 */
public record LogInspection(Verdict verdict, RecoveryReport report, WalCorruptionException corruption) {
    /** What opening the log would do. */
    public enum Verdict {
        /** Open as it is: a clean close, or a crash that left nothing after the last valid frame. */
        CLEAN,
        /** Cut a torn tail (bytes past everything proven durable after a crash), then open. */
        TORN_TAIL,
        /** Refuse under the default policy: damage to data the log proves durable, or structural damage. */
        CORRUPTION
    }
}
