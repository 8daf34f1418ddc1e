package io.walden.crash.kill;

import io.walden.crash.CrashTally;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL of a child JVM appending through the FileChannel backend (buffered; O_DIRECT in 3 of 8 cycles;
 * O_DSYNC in 2 of 8) on real files: every WRITTEN and SYNCED acknowledgement survives and the recovered log
 * is a prefix of what was appended ({@link KillLedger}). {@value KillCampaign#CI_KILLS} kills per run,
 * counted as {@code kills.nio}.
 */
final class NioKillTest {
    @Test
    void everyWrittenAndSyncedAcknowledgementSurvivesSigkill() throws Exception {
        final KillCampaign campaign = new KillCampaign("nio", Path.of("target", "kill", "nio"), CrashTally.KILLS_NIO);
        System.out.println(campaign.run(0.1));
        KillEvidence.check(campaign);
    }
}
