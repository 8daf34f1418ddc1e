package io.walden.internal.io;

import static io.walden.internal.io.GroupCommitPolicy.Decision.HOLD;
import static io.walden.internal.io.GroupCommitPolicy.Decision.NONE;
import static io.walden.internal.io.GroupCommitPolicy.Decision.SYNC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The group commit rules, each pinned by a scenario, and the safety rules checked over many random
 * histories: a lone writer never waits, a hold never outlasts its deadline or the batch limit, a
 * fence or a close always syncs, nothing syncs without a reason, a request is never left without a
 * sync or a deadline.
 */
final class GroupCommitPolicyTest {
    private static final long US = 1_000;
    private static final long MS = 1_000_000;
    private static final long INTERVAL_NS = 1_000 * MS;
    private static final long UNSYNCED_MAX = 16 << 20;
    private static final long BATCH_MAX = 1 << 20;

    private static GroupCommitPolicy policy(final long groupWindowNs, final boolean groupReturnWait) {
        return new GroupCommitPolicy(INTERVAL_NS, UNSYNCED_MAX, groupWindowNs, BATCH_MAX, groupReturnWait, 0);
    }

    /** Decides for a plain state: written 1000, durable 0, not a fence, not closing, no mark. */
    private static GroupCommitPolicy.Decision decide(
            final GroupCommitPolicy policy, final long nowNs, final long requestPosition, final long requestCount) {
        return policy.decide(nowNs, 1000, 0, requestPosition, requestCount, false, false, false);
    }

    /** Runs one sync of a group: submitted at {@code startNs}, done after {@code durationNs}. */
    private static void sync(
            final GroupCommitPolicy policy, final long startNs, final long durationNs, final long requestCount) {
        policy.onSyncSubmitted(requestCount);
        policy.onSyncCompleted(startNs + durationNs, startNs, requestCount);
    }

    @Test
    void shouldDoNothingWithNothingToSync() {
        final GroupCommitPolicy policy = policy(0, true);
        assertEquals(NONE, policy.decide(5 * MS, 1000, 1000, 2000, 7, false, false, false), "nothing unsynced");
        assertEquals(NONE, policy.decide(5 * MS, 1000, 1000, 2000, 7, true, true, false), "even at a fence");
        assertEquals(NONE, policy.decide(5 * MS, 1000, 0, 0, 0, false, false, false), "unsynced but unrequested");
        assertEquals(NONE, policy.decide(5 * MS, 1000, 1000, 0, 0, false, false, true), "a mark, before the interval");
    }

    @Test
    void shouldSyncAtOnceForALoneWriter() {
        final GroupCommitPolicy policy = policy(0, true);
        long requests = 0;
        long nowNs = 0;
        for (int i = 0; i < 1000; i++) {
            requests++;
            assertEquals(SYNC, decide(policy, nowNs, 500, requests), "sync " + i);
            sync(policy, nowNs, 100 * US, requests);
            nowNs += 150 * US;
        }
    }

    @Test
    void shouldSyncAtAFenceAndWhenClosingWhateverElseHolds() {
        final GroupCommitPolicy policy = policy(10 * MS, true);
        // A group of 5 was woken; none is back and a window is open: still a fence syncs.
        sync(policy, 0, 100 * US, 5);
        assertEquals(SYNC, policy.decide(150 * US, 1000, 0, 500, 5, true, false, false));
        assertEquals(SYNC, policy.decide(150 * US, 1000, 0, 0, 5, true, false, false), "fence, unrequested");
        assertEquals(SYNC, policy.decide(150 * US, 1000, 0, 500, 5, false, true, false), "closing");
        assertEquals(SYNC, policy.decide(150 * US, 1000, 0, 0, 5, false, true, false), "closing, unrequested");
        // The same where a hold would apply (no window): a hold never delays a fence or a close.
        final GroupCommitPolicy holding = policy(0, true);
        holding.onSyncSubmitted(0);
        sync(holding, 0, 100 * US, 5);
        assertEquals(HOLD, holding.decide(110 * US, 1000, 0, 500, 6, false, false, false), "a hold applies");
        assertEquals(SYNC, holding.decide(120 * US, 1000, 0, 500, 6, true, false, false), "fence");
        assertEquals(SYNC, holding.decide(120 * US, 1000, 0, 500, 6, false, true, false), "closing");
    }

    @Test
    void shouldSyncPeriodicallyByTimeAndByUnsyncedBytes() {
        final GroupCommitPolicy policy = policy(0, true);
        assertEquals(NONE, policy.decide(INTERVAL_NS - 1, 1000, 0, 0, 0, false, false, false));
        assertEquals(SYNC, policy.decide(INTERVAL_NS, 1000, 0, 0, 0, false, false, false));
        assertEquals(SYNC, policy.decide(1, UNSYNCED_MAX, 0, 0, 0, false, false, false));
        assertEquals(SYNC, policy.decide(INTERVAL_NS, 1000, 1000, 0, 0, false, false, true), "a pending mark");
        final GroupCommitPolicy noInterval = new GroupCommitPolicy(0, UNSYNCED_MAX, 0, BATCH_MAX, true, 0);
        assertEquals(NONE, noInterval.decide(100 * INTERVAL_NS, 1000, 0, 0, 0, false, false, false));
        assertEquals(NONE, noInterval.decide(100 * INTERVAL_NS, 1000, 1000, 0, 0, false, false, true));
    }

    @Test
    void shouldHoldForAReturningGroupUntilItIsBackOrTheDeadline() {
        final GroupCommitPolicy policy = policy(0, true);
        // Requests 1..4 were made while the previous sync was submitted and this one ran: a group of 4.
        policy.onSyncSubmitted(0);
        sync(policy, 0, 200 * US, 4);
        final long doneNs = 200 * US;
        assertEquals(doneNs + 200 * US, policy.holdUntilNs(), "deadline: the last sync's duration");
        assertEquals(HOLD, decide(policy, doneNs + 10 * US, 500, 5), "1 of 4 back");
        assertEquals(4 + 4, policy.groupBackAtRequestCount());
        assertEquals(HOLD, decide(policy, doneNs + 50 * US, 500, 7), "3 of 4 back");
        assertEquals(SYNC, decide(policy, doneNs + 60 * US, 500, 8), "all back");
        assertEquals(GroupCommitPolicy.HOLD_CREDIT_MAX, policy.holdCredit());
    }

    @Test
    void shouldNeverHoldPastTheDeadlineTheBatchLimitOrAnAppendBeyondTheWritten() {
        final GroupCommitPolicy policy = policy(0, true);
        policy.onSyncSubmitted(0);
        sync(policy, 0, 5 * MS, 4);
        final long doneNs = 5 * MS;
        assertEquals(doneNs + GroupCommitPolicy.COHORT_HOLD_NS_MAX, policy.holdUntilNs(), "at most 1 ms");
        assertEquals(SYNC, decide(policy, policy.holdUntilNs(), 500, 5), "deadline reached");
        final GroupCommitPolicy batch = policy(0, true);
        batch.onSyncSubmitted(0);
        sync(batch, 0, 200 * US, 4);
        assertEquals(SYNC, batch.decide(200 * US, BATCH_MAX, 0, 500, 5, false, false, false), "batch full");
        final GroupCommitPolicy ahead = policy(0, true);
        ahead.onSyncSubmitted(0);
        sync(ahead, 0, 200 * US, 4);
        assertEquals(HOLD, decide(ahead, 210 * US, 2000, 8), "all back, one asks past the written: wait for it");
    }

    @Test
    void shouldStopHoldingWhenHoldsKeepMissingAndTryAgainLater() {
        final GroupCommitPolicy policy = policy(0, true);
        long nowNs = 0;
        long requests = 0;
        policy.onSyncSubmitted(requests);
        int syncsWithoutHold = 0;
        for (int round = 0; round < 200; round++) {
            // Groups of 4 of which only 2 ever come back before the deadline.
            requests += 4;
            sync(policy, nowNs, 100 * US, requests);
            nowNs += 100 * US;
            requests += 2;
            GroupCommitPolicy.Decision decision = decide(policy, nowNs + 10 * US, 500, requests);
            if (decision == HOLD) {
                decision = decide(policy, policy.holdUntilNs(), 500, requests);
                nowNs = policy.holdUntilNs();
            } else {
                syncsWithoutHold++;
            }
            assertEquals(SYNC, decision);
        }
        assertTrue(syncsWithoutHold > 150, "holding stopped: " + syncsWithoutHold);
        assertTrue(syncsWithoutHold < 200, "and was tried again: " + syncsWithoutHold);
    }

    @Test
    void shouldWaitOutTheGroupWindowUnlessTheBatchIsFull() {
        final GroupCommitPolicy policy = policy(2 * MS, true);
        assertEquals(NONE, decide(policy, 10 * MS, 500, 1));
        assertEquals(NONE, decide(policy, 11 * MS, 500, 2));
        assertEquals(SYNC, decide(policy, 12 * MS, 500, 3), "window over");
        assertEquals(NONE, decide(policy, 20 * MS, 500, 4), "a new window");
        assertEquals(SYNC, policy.decide(20 * MS + 1, BATCH_MAX, 0, 500, 5, false, false, false), "batch full");
    }

    @Test
    void shouldKeepTheSafetyRulesOverRandomHistories() {
        final SplittableRandom random = new SplittableRandom(20261123);
        for (int history = 0; history < 2000; history++) {
            final long windowNs = random.nextBoolean() ? 0 : random.nextLong(1, 3 * MS);
            final GroupCommitPolicy policy = policy(windowNs, random.nextBoolean());
            long nowNs = 0;
            long written = 0;
            long durable = 0;
            long requestPosition = 0;
            long requests = 0;
            long waitingSinceNs = -1;
            for (int step = 0; step < 200; step++) {
                nowNs += random.nextLong(0, 400 * US);
                written += random.nextInt(4) == 0 ? 0 : random.nextLong(1, 64 * 1024);
                final int newRequests = random.nextInt(4) == 0 ? random.nextInt(1, 20) : random.nextInt(2);
                if (newRequests > 0) {
                    requests += newRequests;
                    requestPosition = Math.max(requestPosition, written - random.nextLong(0, written - durable + 1));
                }
                final boolean fence = random.nextInt(30) == 0;
                final boolean closing = random.nextInt(100) == 0;
                final boolean mark = random.nextInt(10) == 0;
                final GroupCommitPolicy.Decision decision =
                        policy.decide(nowNs, written, durable, requestPosition, requests, fence, closing, mark);
                final String where = "history " + history + " step " + step;
                if (written > durable && (fence || closing)) {
                    assertEquals(SYNC, decision, "a fence or a close syncs: " + where);
                }
                if (decision == SYNC) {
                    assertTrue(
                            written > durable || (mark && (fence || nowNs >= INTERVAL_NS)),
                            "a sync has something to cover: " + where);
                }
                if (decision == HOLD) {
                    assertTrue(nowNs < policy.holdUntilNs(), "a hold within its deadline: " + where);
                    assertTrue(written - durable < BATCH_MAX, "a hold within the batch limit: " + where);
                    assertTrue(policy.holdUntilNs() - nowNs <= GroupCommitPolicy.COHORT_HOLD_NS_MAX, where);
                }
                final boolean requested = requestPosition > durable;
                if (requested && decision != SYNC) {
                    if (waitingSinceNs < 0) {
                        waitingSinceNs = nowNs;
                    }
                    assertTrue(
                            nowNs - waitingSinceNs
                                    <= Math.max(windowNs, GroupCommitPolicy.COHORT_HOLD_NS_MAX) + 400 * US,
                            "a request waits at most a window or a hold: " + where);
                } else {
                    waitingSinceNs = -1;
                }
                if (decision == SYNC) {
                    policy.onSyncSubmitted(requests);
                    final long startNs = nowNs;
                    nowNs += random.nextLong(20 * US, 2 * MS);
                    durable = written;
                    policy.onSyncCompleted(nowNs, startNs, requests);
                }
            }
        }
    }
}
