/**
 * The write path of an open log: everything between a published frame in the log buffer and the
 * positions that acknowledge it. Not API; docs/design/how-it-works.md describes it.
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
 * <p>Vocabulary: <em>the I/O thread</em> is the log's {@code AgentRunner} thread and nothing else;
 * <em>the holder of the I/O duty</em> is whichever thread holds {@link
 * io.walden.internal.io.IoDuty} now (the I/O thread, an appender driving its own record, or the
 * backend's completion thread), so a part "owned by the holder of the I/O duty" may run on any of
 * the three, one at a time.
 *
 * <p>Rules: a sync's durable position is the written position at its submission (group commit); no
 * byte is written to segment n+1 before segment n is completely written and synced (roll fence), so
 * only the newest segment can have a torn tail; the first failed operation fails the log, nothing
 * is acknowledged after it and nothing is retried (fail-stop).
 */
package io.walden.internal.io;
