package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Wal;
import io.walden.nio.NioStorageBackend;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The {@code walden} launcher script (src/main/bin/walden), run with bash on logs this test writes,
 * in both layouts it serves: a distribution ({@code bin/walden}, {@code lib/walden.jar}), also through
 * a symbolic link, and a checkout ({@code wal-tools/src/main/bin/walden}, {@code
 * wal-tools/target/walden.jar}); and without a jar, when it says how to build one. The shaded jar is
 * made only after the tests, so the jar here is a stand-in: a manifest naming the tool's main class
 * and class path. {@code LauncherPackagedTest} runs the packaged distribution itself.
 */
class LauncherTest {
    private static final Path SCRIPT = Path.of("src", "main", "bin", "walden").toAbsolutePath();

    private Path root;
    private Path log;

    @BeforeEach
    void createLog() throws IOException {
        root = TestLogs.newRoot("launcher");
        log = root.resolve("log");
        TestLogs.cleanLog(log, 20, 100);
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        TestLogs.delete(root);
    }

    @Test
    void theDistributionLayoutRunsVerifyAndPassesTheExitCode() throws Exception {
        final Path bin = install(root.resolve("walden-dist").resolve("bin"), root.resolve("walden-dist/lib"));
        final LauncherRun clean =
                LauncherRun.run(bin, root, "verify", log.toString()).assertExit(0);
        assertTrue(clean.out().startsWith("verdict: CLEAN (exit 0)"), clean::toString);
        assertTrue(clean.out().contains("records: 20 valid"), clean::toString);

        final Path corrupt = root.resolve("corrupt");
        TestLogs.corruptOlderSegment(corrupt);
        final LauncherRun refused =
                LauncherRun.run(bin, root, "verify", corrupt.toString()).assertExit(2);
        assertTrue(refused.err().startsWith("walden verify: corruption in "), refused::toString);

        // Through a symbolic link, as from a directory on the PATH.
        final Path onPath = Files.createDirectories(root.resolve("path")).resolve("walden");
        Files.createSymbolicLink(onPath, bin);
        LauncherRun.run(onPath, root, "verify", log.toString()).assertExit(0);
    }

    @Test
    void theCheckoutLayoutFindsTheBuiltJar() throws Exception {
        final Path module = root.resolve("checkout").resolve("wal-tools");
        final Path bin = install(module.resolve("src/main/bin"), module.resolve("target"));
        final LauncherRun run =
                LauncherRun.run(bin, root, "verify", log.toString()).assertExit(0);
        assertTrue(run.out().startsWith("verdict: CLEAN (exit 0)"), run::toString);
    }

    @Test
    void withoutAJarItSaysHowToBuildIt() throws Exception {
        final Path module = Files.createDirectories(root.resolve("checkout").resolve("wal-tools"));
        Files.writeString(module.resolve("pom.xml"), "<project/>");
        final Path bin = Files.createDirectories(module.resolve("src/main/bin")).resolve("walden");
        Files.copy(SCRIPT, bin);
        final LauncherRun run =
                LauncherRun.run(bin, root, "verify", log.toString()).assertExit(69);
        assertEquals("", run.out(), run::toString);
        assertTrue(run.err().contains("wal-tools is not built"), run::toString);
        assertTrue(run.err().contains("mvn -B install -DskipTests -pl wal-tools -am"), run::toString);
    }

    /** Copies the script into {@code bin} and a stand-in walden.jar into {@code lib}. */
    private static Path install(final Path bin, final Path lib) throws IOException, URISyntaxException {
        Files.createDirectories(bin);
        Files.createDirectories(lib);
        final Path script = bin.resolve("walden");
        Files.copy(SCRIPT, script);
        final Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Walden.class.getName());
        final String classPath = Stream.of(
                        Walden.class, Wal.class, NioStorageBackend.class, CommandLine.class, DirectBuffer.class)
                .map(LauncherTest::location)
                .distinct()
                .collect(Collectors.joining(" "));
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        try (OutputStream out = Files.newOutputStream(lib.resolve("walden.jar"));
                JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        return script;
    }

    private static String location(final Class<?> type) {
        try {
            return type.getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI()
                    .toString();
        } catch (final URISyntaxException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
