package io.walden.crash.kill;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.crash.CrashTally;
import io.walden.crash.fault.LoopFileSystem;
import io.walden.uring.UringSupport;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kill -9 campaigns of {@link NioKillTest} and {@link UringKillTest} on XFS and btrfs loop file
 * systems ({@link LoopFileSystem}), {@value #KILLS} kills per backend and file system (ext4, the disk
 * the other campaigns run on, gets {@value KillCampaign#CI_KILLS}): every WRITTEN and SYNCED
 * acknowledgement survives and the recovered log is a prefix of what was appended. Counted as {@code
 * kills.nio} and {@code kills.uring}. Needs root to mount (CI is root; another user is skipped with that
 * reason) and {@code xfsprogs} and {@code btrfs-progs} ({@code .ci/run} installs them).
 */
final class FileSystemKillTest {
    private static final int KILLS = 10;
    private static final long FILE_SYSTEM_BYTES = 512L * 1024 * 1024;

    static Stream<Arguments> fileSystemsAndFamilies() {
        return Stream.of(LoopFileSystem.Type.XFS, LoopFileSystem.Type.BTRFS)
                .flatMap(type -> Stream.of("nio", "uring").map(family -> Arguments.of(type, family)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fileSystemsAndFamilies")
    void everyWrittenAndSyncedAcknowledgementSurvivesSigkill(final LoopFileSystem.Type type, final String family)
            throws Exception {
        if (family.equals("uring")) {
            final String unavailable = UringSupport.unavailableReason();
            assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        }
        final String noLoop = LoopFileSystem.unavailableReason();
        assumeTrue(noLoop == null, () -> "skipped: " + noLoop);
        try (LoopFileSystem fileSystem = LoopFileSystem.mount(
                Path.of("target", "kill-fs", type.mountName() + "-" + family), FILE_SYSTEM_BYTES, type)) {
            final KillCampaign campaign = new KillCampaign(
                    family,
                    fileSystem.mountPoint().resolve(family),
                    family.equals("nio") ? CrashTally.KILLS_NIO : CrashTally.KILLS_URING,
                    KILLS);
            System.out.println(type.mountName() + " " + campaign.run(0.0));
        }
    }
}
