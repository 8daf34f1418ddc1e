package io.walden.crash.kill;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.crash.CrashTally;
import io.walden.uring.UringSupport;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL of a child JVM appending through the io_uring backend (buffered; O_DIRECT in 3 of 8 cycles;
 * O_DSYNC, with several group writes in flight, in 2 of 8) on real files; the same checks as {@link
 * NioKillTest}, counted as {@code kills.uring}.
 * Skipped, with the reason, only where the kernel offers no io_uring.
 */
final class UringKillTest {
    @Test
    void everyWrittenAndSyncedAcknowledgementSurvivesSigkill() throws Exception {
        final String unavailable = UringSupport.unavailableReason();
        assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        final KillCampaign campaign =
                new KillCampaign("uring", Path.of("target", "kill", "uring"), CrashTally.KILLS_URING);
        System.out.println(campaign.run(0.1));
        KillEvidence.check(campaign);
    }
}
