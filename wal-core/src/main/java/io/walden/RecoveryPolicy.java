package io.walden;

/**
 * What opening a log does when it finds damage that is not a torn tail.
 *
 * <p>A torn tail, the bytes after the last valid frame of the newest segment that a crash left
 * incomplete, is always cut: it holds only writes that no sync covered. Everything else is
 * corruption: a bad frame followed by more data, a bad frame with no sign of a torn write, a missing
 * middle segment, a bad segment header, a segment of another log.
 *
 * <table>
 *   <caption>Decision table</caption>
 *   <tr><th>finding</th><th>{@link #FAIL}</th><th>{@link #TRUNCATE}</th><th>{@link #SKIP}</th></tr>
 *   <tr><td>torn tail</td><td>cut</td><td>cut</td><td>cut</td></tr>
 *   <tr><td>bad frame in the middle</td><td>throw</td><td>cut there, drop the rest</td><td>skip to
 *       the next valid frame</td></tr>
 *   <tr><td>missing middle segment</td><td>throw</td><td>cut at the gap</td><td>throw</td></tr>
 *   <tr><td>bad header, foreign file, other log</td><td>throw</td><td>cut before it</td><td>throw</td></tr>
 * </table>
 */
public enum RecoveryPolicy {
    /** Refuse to open, with an exception naming the file and offset. The default. */
    FAIL,
    /** Keep everything before the first corruption and durably discard everything after it. */
    TRUNCATE,
    /**
     * Skip corrupt frames inside a segment and keep the valid frames after them; readers skip the
     * same ranges. Structural damage (headers, missing segments) still fails.
     */
    SKIP
}
