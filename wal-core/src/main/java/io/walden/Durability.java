package io.walden;

/**
 * How far an append must get before it is acknowledged. Chosen per append; one log mixes levels.
 *
 * <table>
 *   <caption>What each level survives</caption>
 *   <tr><th>level</th><th>acknowledged when</th><th>survives</th></tr>
 *   <tr><td>{@link #BUFFERED}</td><td>copied into the log buffer</td><td>nothing: lost if the
 *       process dies</td></tr>
 *   <tr><td>{@link #WRITTEN}</td><td>the write to the OS completed</td><td>a process crash
 *       (kill -9), not power loss</td></tr>
 *   <tr><td>{@link #SYNCED}</td><td>covered by a completed fdatasync, or by a completed O_DSYNC
 *       write</td><td>power loss, on a device that honours flushes</td></tr>
 * </table>
 */
public enum Durability {
    /** Acknowledged once copied into the log buffer. */
    BUFFERED,
    /** Acknowledged once handed to the operating system by a completed write. */
    WRITTEN,
    /** Acknowledged once a completed sync covers the record. */
    SYNCED
}
