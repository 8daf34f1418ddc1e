package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks that a campaign's kills landed in the moments it aims at, so that a change that makes the
 * triggers miss (a faster roll, a slower child) shows up as a failure rather than as a weaker test.
 *
 * <p><b>Threading:</b> stateless.
 */
final class KillEvidence {
    private KillEvidence() {}

    /**
     * Fails unless some kill interrupted a segment preparation, a truncation and an open, and some kill
     * found the child's files ending inside a batch.
     *
     * @param campaign a finished campaign.
     */
    static void check(final KillCampaign campaign) {
        assertTrue(campaign.interruptedPreparations() > 0, "no kill interrupted a segment preparation");
        assertTrue(campaign.interruptedTruncations() > 0, "no kill interrupted a truncation");
        assertTrue(campaign.interruptedOpens() > 0, "no kill interrupted the opening of a log");
        assertTrue(campaign.tornBatchKills() > 0, "no kill found the child's files ending inside a batch");
    }
}
