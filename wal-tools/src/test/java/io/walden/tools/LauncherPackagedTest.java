package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The distribution as users get it: {@code target/walden-<version>-bin.tar.gz}, unpacked with tar,
 * its {@code bin/walden} run on logs this test writes, with the shaded jar. Runs after the package
 * phase (surefire's {@code packaged} execution in the pom, phase integration-test); the unit-test
 * phase leaves it out, since the archive does not exist yet then.
 */
class LauncherPackagedTest {
    private Path root;
    private Path log;

    @BeforeEach
    void createLog() throws IOException {
        root = TestLogs.newRoot("launcher-packaged");
        log = root.resolve("log");
        TestLogs.cleanLog(log, 20, 100);
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void theUnpackedDistributionVerifiesAndRepairsALog() throws Exception {
        final Path archive = archive();
        final Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", root.toString())
                .inheritIO()
                .start();
        assertEquals(0, tar.waitFor(), "tar -xzf " + archive);
        final String base = archive.getFileName().toString().replace("-bin.tar.gz", "");
        final Path bin = root.resolve(base).resolve("bin").resolve("walden");
        assertTrue(Files.isRegularFile(root.resolve(base).resolve("lib").resolve("walden.jar")), base);
        assertTrue(Files.getPosixFilePermissions(bin).contains(PosixFilePermission.OWNER_EXECUTE), bin::toString);

        final LauncherRun verify =
                LauncherRun.run(bin, root, "verify", log.toString()).assertExit(0);
        assertTrue(verify.out().startsWith("verdict: CLEAN (exit 0)"), verify::toString);
        assertTrue(verify.out().contains("records: 20 valid"), verify::toString);

        final Path corrupt = root.resolve("corrupt");
        TestLogs.corruptOlderSegment(corrupt);
        LauncherRun.run(bin, root, "verify", corrupt.toString()).assertExit(2);
        final LauncherRun dryRun = LauncherRun.run(
                        bin,
                        root,
                        "repair",
                        "--dry-run",
                        "--scratch",
                        root.resolve("scratch").toString(),
                        corrupt.toString())
                .assertExit(0);
        assertTrue(dryRun.out().contains("then:      CLEAN"), dryRun::toString);
        LauncherRun.run(bin, root, "repair", corrupt.toString()).assertExit(0);
        LauncherRun.run(bin, root, "verify", corrupt.toString()).assertExit(0);
    }

    private static Path archive() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            final List<Path> archives = files.filter(
                            file -> file.getFileName().toString().matches("walden-.*-bin\\.tar\\.gz"))
                    .collect(Collectors.toList());
            assertEquals(1, archives.size(), () -> "one distribution in target/ (run after package): " + archives);
            return archives.get(0).toAbsolutePath();
        }
    }
}
