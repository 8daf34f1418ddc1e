package io.walden.groups;

/**
 * What one {@link GroupLog#purge()} did.
 *
 * @param segmentsFreed segments deleted or kept for recycling, no group having a live record in them.
 * @param startPosition the log's first position after the purge.
 * @param pinningGroups the groups whose live records hold the oldest segment that is left, oldest first
 *     (at most {@link GroupLogConfig#pinningGroupsReported()}): a Raft node frees it by taking a snapshot of
 *     them and truncating their prefix.
 * @param relocatedRecords records this purge copied to the head of the log for groups that pinned the
 *     oldest segment for {@link GroupLogConfig#relocateAfterRounds()} rounds.
 * @param relocatedBytes the bytes of those records.
 */
public record PurgeReport(
        long segmentsFreed, long startPosition, long[] pinningGroups, long relocatedRecords, long relocatedBytes) {}
