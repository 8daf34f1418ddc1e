package io.walden.examples.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A main class run in a child JVM, with this JVM's {@code java} ({@code java.home}) and class path, a
 * small heap and the quick-starting compiler. Daemon threads queue the lines of its standard output
 * and standard error as they come, so that a test waits for a line (a handshake) instead of sleeping;
 * every wait is bounded by a deadline, and fails with both streams' lines so far. Its standard input
 * is a pipe the test writes and closes. {@link #close()} kills it if it is still running.
 */
final class ChildJvm implements AutoCloseable {
    /** What a stream's queue holds after its last line. */
    private static final String END = "\u0000end of stream";

    private final String name;
    private final Process process;
    private final Stream stdout;
    private final Stream stderr;

    private ChildJvm(final String name, final Process process) {
        this.name = name;
        this.process = process;
        this.stdout = new Stream(process.getInputStream(), name + "-stdout");
        this.stderr = new Stream(process.getErrorStream(), name + "-stderr");
    }

    /**
     * Starts a main class in a child JVM.
     *
     * @param mainClass the class whose {@code main} runs.
     * @param args its arguments.
     * @return the running child.
     * @throws IOException if the JVM cannot be started.
     */
    static ChildJvm start(final Class<?> mainClass, final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        if (Runtime.version().feature() >= 24) {
            // Agrona uses sun.misc.Unsafe's memory methods, which JDK 24+ warns about.
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        return new ChildJvm(mainClass.getSimpleName(), new ProcessBuilder(command).start());
    }

    /**
     * Takes the next line of standard output.
     *
     * @param deadline a {@link System#nanoTime()}: fails if no line came by then.
     * @return the line, or null if the output ended.
     * @throws InterruptedException if interrupted while waiting.
     */
    String nextOutput(final long deadline) throws InterruptedException {
        return stdout.next(deadline);
    }

    /**
     * Takes lines of standard output until {@code count} came; fails if the output ends first.
     *
     * @param count how many.
     * @param deadline a {@link System#nanoTime()}: fails if they did not all come by then.
     * @return the lines.
     * @throws InterruptedException if interrupted while waiting.
     */
    List<String> nextOutputs(final int count, final long deadline) throws InterruptedException {
        final List<String> lines = new ArrayList<>();
        while (lines.size() < count) {
            final String line = stdout.next(deadline);
            if (line == null) {
                fail(name + "'s output ended after " + lines.size() + " of " + count + " lines\n" + transcript());
            }
            lines.add(line);
        }
        return lines;
    }

    /**
     * Takes every line of standard output until it ends.
     *
     * @param deadline a {@link System#nanoTime()}: fails if it did not end by then.
     * @return the lines.
     * @throws InterruptedException if interrupted while waiting.
     */
    List<String> remainingOutput(final long deadline) throws InterruptedException {
        final List<String> lines = new ArrayList<>();
        for (String line = stdout.next(deadline); line != null; line = stdout.next(deadline)) {
            lines.add(line);
        }
        return lines;
    }

    /**
     * Skips lines of standard error until one starts with a prefix: the child's word that it has
     * reached a point (a handshake).
     *
     * @param prefix the line's start.
     * @param deadline a {@link System#nanoTime()}: fails if no such line came by then.
     * @return the line.
     * @throws InterruptedException if interrupted while waiting.
     */
    String awaitError(final String prefix, final long deadline) throws InterruptedException {
        for (String line = stderr.next(deadline); line != null; line = stderr.next(deadline)) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        return fail(name + "'s standard error ended without a line starting \"" + prefix + "\"\n" + transcript());
    }

    /**
     * Writes one line to standard input, flushed.
     *
     * @param line the line, without its line break.
     * @throws IOException if the pipe is broken (the child exited).
     */
    void writeLine(final String line) throws IOException {
        final OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /**
     * Closes standard input: the child reads its end.
     *
     * @throws IOException if closing fails.
     */
    void closeInput() throws IOException {
        process.getOutputStream().close();
    }

    /**
     * Waits for the child to exit and checks its status.
     *
     * @param expected the exit status expected.
     * @param deadline a {@link System#nanoTime()}: fails if it has not exited by then.
     * @throws InterruptedException if interrupted while waiting.
     */
    void assertExits(final int expected, final long deadline) throws InterruptedException {
        if (!process.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            fail(name + " did not exit\n" + transcript());
        }
        assertEquals(expected, process.exitValue(), () -> name + "'s exit status\n" + transcript());
    }

    /**
     * Both streams' lines so far, for a failure's message.
     *
     * @return the lines.
     */
    String transcript() {
        return name + "'s standard output so far:\n" + stdout.seen() + name + "'s standard error so far:\n"
                + stderr.seen();
    }

    /** Kills the child if it is still running, and waits a while for it to go. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One of the child's output streams, read line by line on a daemon thread. */
    private final class Stream {
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer seen = new StringBuffer();
        private boolean ended;

        Stream(final InputStream in, final String threadName) {
            final Thread reader = new Thread(() -> read(in), threadName);
            reader.setDaemon(true);
            reader.start();
        }

        private void read(final InputStream in) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    seen.append(line).append('\n');
                    lines.add(line);
                }
            } catch (final IOException ex) {
                seen.append("(reading failed: ").append(ex).append(")\n");
            } finally {
                lines.add(END);
            }
        }

        /** The next line, or null at the end (and after it); fails at the deadline. */
        String next(final long deadline) throws InterruptedException {
            if (ended) {
                return null;
            }
            final String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                fail("timed out waiting for a line from " + name + "\n" + transcript());
            }
            ended = line.equals(END);
            return ended ? null : line;
        }

        String seen() {
            return seen.toString();
        }
    }
}
