package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The depth rule: depth is tried at first; it stays on while writes beside others take little longer
 * than writes alone (storage with a deep queue) and goes off where they take much longer (storage that
 * serialises flushes), then is probed again after a while, and comes back if the storage changed.
 */
class WriteDepthPolicyTest {
    private static final long ALONE_NS = 200_000;

    /** Runs writes until the probe in progress ends: alone ones, and beside ones of a latency. */
    private static void completeProbe(final WriteDepthPolicy policy, final long besideNs) {
        for (int i = 0; i < WriteDepthPolicy.PROBE_WRITES; i++) {
            policy.onCompleted(ALONE_NS, false);
            assertTrue(policy.allowsBeside(), "depth stays on while a probe measures it");
            policy.onCompleted(besideNs, true);
        }
    }

    @Test
    void shouldAllowDepthBeforeAnythingIsMeasured() {
        assertTrue(new WriteDepthPolicy().allowsBeside());
    }

    @Test
    void shouldKeepDepthWhereWritesBesideOthersAreAboutAsFast() {
        final WriteDepthPolicy policy = new WriteDepthPolicy();
        completeProbe(policy, ALONE_NS * 105 / 100);
        assertTrue(policy.allowsBeside());
        for (int i = 0; i < 10 * WriteDepthPolicy.PROBE_INTERVAL_WRITES; i++) {
            policy.onCompleted(ALONE_NS * 108 / 100, true);
            assertTrue(policy.allowsBeside());
        }
    }

    @Test
    void shouldTurnDepthOffWhereWritesBesideOthersTakeMuchLongerAndProbeAgainLater() {
        final WriteDepthPolicy policy = new WriteDepthPolicy();
        completeProbe(policy, ALONE_NS * 2);
        assertFalse(policy.allowsBeside(), "a write beside another takes twice as long");
        for (int i = 1; i < WriteDepthPolicy.PROBE_INTERVAL_WRITES; i++) {
            policy.onCompleted(ALONE_NS, false);
            assertFalse(policy.allowsBeside(), "off until the next probe, write " + i);
        }
        policy.onCompleted(ALONE_NS, false);
        assertTrue(policy.allowsBeside(), "the probe after " + WriteDepthPolicy.PROBE_INTERVAL_WRITES + " writes");
        assertEquals(-1, policy.besideNs(), "a probe measures afresh");

        // The same storage: off again. Then storage that keeps up: on.
        completeProbe(policy, ALONE_NS * 2);
        assertFalse(policy.allowsBeside());
        for (int i = 0; i < WriteDepthPolicy.PROBE_INTERVAL_WRITES; i++) {
            policy.onCompleted(ALONE_NS, false);
        }
        completeProbe(policy, ALONE_NS);
        assertTrue(policy.allowsBeside());
    }

    @Test
    void shouldJudgeAtTheRatioBound() {
        final long atBound = (long) (ALONE_NS * WriteDepthPolicy.BESIDE_LATENCY_RATIO_MAX);
        final WriteDepthPolicy at = new WriteDepthPolicy();
        completeProbe(at, atBound);
        assertTrue(at.allowsBeside());
        final WriteDepthPolicy past = new WriteDepthPolicy();
        completeProbe(past, atBound + ALONE_NS / 10);
        assertFalse(past.allowsBeside());
    }
}
