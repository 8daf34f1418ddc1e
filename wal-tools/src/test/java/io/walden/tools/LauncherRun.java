package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the {@code walden} launcher script, with bash, in a child process: its exit code and
 * output. The child gets this JVM's Java as {@code JAVA_HOME}, and no {@code WALDEN_JAR}.
 *
 * @param exitCode the script's exit code.
 * @param out standard output.
 * @param err standard error.
 */
record LauncherRun(int exitCode, String out, String err) {
    /**
     * Runs the launcher.
     *
     * @param script the script.
     * @param workDirectory where the child runs.
     * @param args the tool's arguments.
     * @return the run.
     * @throws IOException if the process cannot be started or its output read.
     * @throws InterruptedException if interrupted while waiting.
     */
    static LauncherRun run(final Path script, final Path workDirectory, final String... args)
            throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        final Path out = Files.createTempFile(workDirectory, "launcher-", ".out");
        final Path err = Files.createTempFile(workDirectory, "launcher-", ".err");
        final ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDirectory.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        final Map<String, String> environment = builder.environment();
        environment.remove("WALDEN_JAR");
        environment.remove("JAVA_OPTS");
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        final Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the launcher ends: " + command);
        return new LauncherRun(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /**
     * Asserts the exit code, with the whole run in the message if it differs.
     *
     * @param expected the exit code.
     * @return this.
     */
    LauncherRun assertExit(final int expected) {
        assertEquals(expected, exitCode, this::toString);
        return this;
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out ---\n" + out + "\n--- err ---\n" + err;
    }
}
