package io.walden.bench.harness;

import io.walden.bench.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Starts a subcommand of this jar in a fresh JVM, as JMH forks do: every scenario gets its own heap,
 * JIT and threads, so one scenario's garbage, compiled code or leftover threads cannot colour the
 * next. The child's output lines are handed to a consumer as they arrive; a child that outlives its
 * time limit is killed.
 *
 * <p><b>Threading:</b> {@link #run} blocks the calling thread until the child exits.
 */
final class ChildJvm {
    /** Allowance per child for JVM start, opening and closing the target. */
    static final long STARTUP_ALLOWANCE_MS = 800;

    /**
     * The {@code --add-opens}/{@code --add-exports} flags Chronicle Queue's documentation lists for
     * Java 17. Given to every scenario JVM so that all run with the same flags.
     */
    static final List<String> CHRONICLE_FLAGS = List.of(
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED");

    /** The first JDK whose Foreign Function API is final, and that knows the native access flag as such. */
    private static final int NATIVE_ACCESS_FEATURE = 22;

    /** Heap of every scenario JVM. */
    static final String SCENARIO_HEAP = "-Xmx1g";

    private ChildJvm() {}

    /** What a child did. */
    record Outcome(int exitStatus, boolean timedOut, String lastLines) {}

    /**
     * Runs {@code java <jvmFlags> -cp <this class path> io.walden.bench.Main <arguments>}.
     *
     * @param jvmFlags flags before the class path, e.g. {@code -Xmx64m}.
     * @param arguments the subcommand and its options.
     * @param timeoutMs time limit; the child is killed after it.
     * @param lines receives each output line (stdout and stderr merged).
     * @return the exit status, whether it was killed, and its last lines.
     */
    static Outcome run(
            final List<String> jvmFlags,
            final List<String> arguments,
            final long timeoutMs,
            final Consumer<String> lines) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(CHRONICLE_FLAGS);
        if (Runtime.version().feature() >= NATIVE_ACCESS_FEATURE) {
            // The ring-owning io_uring backend (and jasyncfio, RocksDB) call native code.
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.add("-Dwalden.checks=false");
        command.add("-Dchronicle.analytics.disable=true");
        command.add("-Dchronicle.announcer.disable=true");
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(arguments);
        final StringBuilder tail = new StringBuilder();
        try {
            final Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            final Thread reader = new Thread(
                    () -> {
                        try (BufferedReader in = new BufferedReader(
                                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = in.readLine()) != null) {
                                lines.accept(line);
                                synchronized (tail) {
                                    if (!line.startsWith(ScenarioCommand.HISTOGRAM_PREFIX)) {
                                        tail.append(line).append('\n');
                                        if (tail.length() > 4000) {
                                            tail.delete(0, tail.length() - 4000);
                                        }
                                    }
                                }
                            }
                        } catch (final IOException ignored) {
                            // The child is gone; its status tells the rest.
                        }
                    },
                    "child-output");
            reader.setDaemon(true);
            reader.start();
            final boolean exited = process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor();
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
            synchronized (tail) {
                return new Outcome(exited ? process.exitValue() : -1, !exited, tail.toString());
            }
        } catch (final IOException ex) {
            return new Outcome(-1, false, "cannot start a JVM: " + ex);
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new Outcome(-1, false, "interrupted");
        }
    }
}
