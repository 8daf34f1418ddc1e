package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The depth rule over its states: off until the first probe; a probe's window of writes beside others
 * turns depth on where their median latency stays within the ratio of a write alone (storage with a
 * deep queue) and off where it does not (storage that serialises flushes); each later window is judged
 * again; depth that is off is probed again after an interval; a stall in a window does not decide it;
 * a lone writer's writes never move it.
 */
class WriteDepthPolicyTest {
    private static final long ALONE_NS = 200_000;

    /** Completes writes alone until the next probe begins; returns how many it took. */
    private static int aloneUntilProbe(final WriteDepthPolicy policy) {
        int writes = 0;
        while (!policy.allowsBeside()) {
            policy.onCompleted(ALONE_NS, false);
            writes++;
        }
        return writes;
    }

    /** Completes one window of writes beside others, each of a latency. */
    private static void besideWindow(final WriteDepthPolicy policy, final long... latenciesNs) {
        for (int i = 0; i < WriteDepthPolicy.PROBE_WRITES; i++) {
            assertTrue(policy.allowsBeside(), "depth allowed while the window fills, write " + i);
            policy.onCompleted(latenciesNs[i % latenciesNs.length], true);
        }
    }

    @Test
    void shouldKeepOneWriteAtATimeUntilTheFirstProbe() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        assertFalse(policy.allowsBeside());
        final int writes = aloneUntilProbe(policy);
        assertTrue(writes == WriteDepthPolicy.FIRST_PROBE_AFTER_WRITES, "probe after " + writes);
    }

    @Test
    void shouldUseDepthWhereWritesBesideOthersAreAboutAsFastAndKeepJudgingIt() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        aloneUntilProbe(policy);
        besideWindow(policy, ALONE_NS * 13 / 10);
        assertTrue(policy.on());
        for (int window = 0; window < 100; window++) {
            besideWindow(policy, ALONE_NS * 12 / 10, ALONE_NS);
            assertTrue(policy.on(), "window " + window);
        }
        // The storage stops keeping up: the next window turns depth off.
        besideWindow(policy, ALONE_NS * 3);
        assertFalse(policy.allowsBeside());
    }

    @Test
    void shouldTurnDepthOffWhereWritesBesideOthersTakeMuchLongerAndProbeAgainLater() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        aloneUntilProbe(policy);
        besideWindow(policy, ALONE_NS * 2);
        assertFalse(policy.allowsBeside());
        final int writes = aloneUntilProbe(policy);
        assertTrue(writes == 2 * WriteDepthPolicy.PROBE_INTERVAL_WRITES_MIN, "probe again after " + writes);
        // Storage that keeps up now: on.
        besideWindow(policy, ALONE_NS);
        assertTrue(policy.on());
    }

    @Test
    void shouldJudgeAtTheRatioBound() {
        final long atBound = (long) (ALONE_NS * WriteDepthPolicy.BESIDE_LATENCY_RATIO_MAX);
        final WriteDepthPolicy at = new WriteDepthPolicy(true);
        aloneUntilProbe(at);
        besideWindow(at, atBound);
        assertTrue(at.on());
        final WriteDepthPolicy past = new WriteDepthPolicy(true);
        aloneUntilProbe(past);
        besideWindow(past, atBound + ALONE_NS / 10);
        assertFalse(past.on());
    }

    @Test
    void shouldNotLetAFewStallsDecideAWindow() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        aloneUntilProbe(policy);
        // Five stalls of 100x in a window of sixteen: the median is a normal write's.
        besideWindow(policy, ALONE_NS * 100, ALONE_NS, ALONE_NS);
        assertTrue(policy.on());
    }

    @Test
    void shouldNotMoveForALoneWriter() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        aloneUntilProbe(policy);
        for (int i = 0; i < 10 * WriteDepthPolicy.PROBE_INTERVAL_WRITES_MAX; i++) {
            policy.onCompleted(ALONE_NS, false);
        }
        assertTrue(policy.allowsBeside(), "a probe waits for a write beside others, costing a lone writer nothing");
        assertFalse(policy.on());
    }

    @Test
    void shouldAlwaysAllowDepthWhenNotMeasured() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(false);
        assertTrue(policy.allowsBeside());
        besideWindow(policy, ALONE_NS * 10);
        assertTrue(policy.allowsBeside(), "unmeasured: slow writes beside others do not turn it off");
    }

    @Test
    void shouldProbeEverMoreRarelyWhileDepthFailsAndSoonAgainOnceItWasOn() {
        final WriteDepthPolicy policy = new WriteDepthPolicy(true);
        aloneUntilProbe(policy);
        int expected = WriteDepthPolicy.PROBE_INTERVAL_WRITES_MIN;
        for (int probe = 0; probe < 8; probe++) {
            besideWindow(policy, ALONE_NS * 2);
            expected = Math.min(WriteDepthPolicy.PROBE_INTERVAL_WRITES_MAX, expected * 2);
            final int writes = aloneUntilProbe(policy);
            assertTrue(writes == expected, "probe " + probe + " after " + writes + ", expected " + expected);
        }
        // On, then off again: the next probe comes after the shortest interval.
        besideWindow(policy, ALONE_NS);
        assertTrue(policy.on());
        besideWindow(policy, ALONE_NS * 2);
        assertFalse(policy.allowsBeside());
        final int writes = aloneUntilProbe(policy);
        assertTrue(writes == WriteDepthPolicy.PROBE_INTERVAL_WRITES_MIN, "after being on, a probe after " + writes);
    }
}
