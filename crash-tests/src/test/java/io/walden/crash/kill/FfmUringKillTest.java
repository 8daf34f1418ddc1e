package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.crash.ChildBackends;
import io.walden.crash.CrashTally;
import io.walden.spi.StorageBackendProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL of a child JVM appending through the io_uring backend that owns its ring (wal-uring-ffm:
 * buffered; O_DIRECT in 3 of 8 cycles; O_DSYNC, with several group writes in flight, in 2 of 8) on
 * real files; the same checks as {@link NioKillTest}, counted as {@code kills.uringFfm}. It runs where
 * the build runs on JDK 22 or later (the crash-tests pom excludes it below that, so that it is never
 * a skip); there it fails if the backend is missing, and is skipped, with the reason, only where the
 * kernel offers no io_uring.
 */
final class FfmUringKillTest {
    @Test
    void everyWrittenAndSyncedAcknowledgementSurvivesSigkill() throws Exception {
        final StorageBackendProvider provider = ChildBackends.ffmUringProvider();
        assertNotNull(provider, "wal-uring-ffm is not on the test class path (the jdk22-modules profile adds it)");
        final String unavailable = provider.unavailableReason();
        assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        final KillCampaign campaign = new KillCampaign(
                ChildBackends.FFM_URING, Path.of("target", "kill", "uring-ffm"), CrashTally.KILLS_URING_FFM);
        System.out.println(campaign.run(0.1));
        KillEvidence.check(campaign);
    }
}
