/**
 * The write path of an open log: everything between a published frame in the log buffer and the
 * positions that acknowledge it. Not API.
 *
 * <pre>
 *   appenders ──publish──► LogBuffer ──► IoRound: FrameScanner ─► WriteStage ─► SyncStage ─► LogState
 *                                            │         (checksum)     (write)      (sync)    (written,
 *                                            ├─ SegmentRoller (roll fence) ─ SegmentPreparer  durable,
 *                                            ├─ DurabilityMarker (header mark, clean close)   waiters)
 *                                            ├─ SegmentTruncation (deletes), AsyncCompletions (futures)
 *                                            └─ FailStop (first failure fails the log)
 *   who runs a round: IoAgent, by the IoDuty (the I/O thread, an appender, the completion thread)
 *   built by IoRound (IoAssembly); positions in IoPositions; completion tokens laid out by CompletionToken;
 *   closing by IoShutdown; group commit's decision by GroupCommitPolicy; idling by IoIdleStrategy
 * </pre>
 *
 * <p>Vocabulary, used the same way in every comment of this package: <em>the I/O thread</em> is the
 * log's {@code AgentRunner} thread, and nothing else; <em>the holder of the I/O duty</em> (or duty
 * holder) is whichever thread holds {@link io.walden.internal.io.IoDuty} now: the I/O thread, an
 * appender driving its own record, or the backend's completion thread in a completion round. A part
 * "owned by the holder of the I/O duty" may run on any of the three, one at a time.
 *
 * <p>Group commit: a sync's durable position is the written position at its submission, so it never
 * covers a write that completed after it was issued, and writes continue while a sync is in flight.
 * Roll fence: no byte is written to segment n+1 before segment n is completely written and synced, so
 * after a crash damage in any segment but the newest is corruption, never a torn tail. Fail-stop: the
 * first failed operation fails the log; nothing is acknowledged after it and no operation is retried.
 */
package io.walden.internal.io;
