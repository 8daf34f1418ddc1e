package io.walden.examples.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.Durability;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link JournalConsumer} in a child JVM follows a {@link Journal} this JVM writes: every event is
 * printed once, in order, with its LSN, and the child stops when its standard input closes or its
 * time runs out.
 */
final class JournalConsumerTest {
    private static final int EVENTS = 300;
    /** The longest wait for the child: its start, every event, its exit. */
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);
    /** What the stdout reader queues when the child's output ends. */
    private static final String END = "\u0000end of output";

    @TempDir
    Path journalDirectory;

    @TempDir
    Path workDirectory;

    private Process child;

    @AfterEach
    void destroyChild() throws InterruptedException {
        if (child != null && child.isAlive()) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aConsumerInAnotherProcessPrintsEveryEventOnceInOrder() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        try (Journal journal = Journal.open(journalDirectory)) {
            final Path stderr = workDirectory.resolve("consumer.stderr");
            child = startConsumer(journalDirectory, 120, stderr);
            final BlockingQueue<String> lines = readLines(child);

            // The first half may be written before the child has opened the journal (it catches up
            // from the start); the second half once it has printed the first (it follows the log).
            final List<String> expected = new ArrayList<>();
            final List<String> printed = new ArrayList<>();
            appendEvents(journal, 0, EVENTS / 2, expected);
            awaitLines(lines, EVENTS / 2, printed, deadline, stderr);
            appendEvents(journal, EVENTS / 2, EVENTS, expected);
            awaitLines(lines, EVENTS, printed, deadline, stderr);
            assertEquals(expected, printed);

            // Closing its standard input stops the consumer, which prints nothing more.
            child.getOutputStream().close();
            assertExits(child, deadline, stderr);
            assertEquals(END, lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
            assertTrue(Files.readString(stderr).contains("printed " + EVENTS + " events"), Files.readString(stderr));
        }
    }

    @Test
    void theConsumerStopsWhenItsTimeRunsOut() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        try (Journal journal = Journal.open(journalDirectory)) {
            journal.append("the only event", Durability.SYNCED);
            final Path stderr = workDirectory.resolve("consumer.stderr");
            // Standard input stays open: only the consumer's own deadline stops it.
            child = startConsumer(journalDirectory, 1, stderr);
            final BlockingQueue<String> lines = readLines(child);

            assertExits(child, deadline, stderr);
            final String first = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertTrue(first != null && first.endsWith(" the only event"), String.valueOf(first));
            assertEquals(END, lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
            assertTrue(Files.readString(stderr).contains("its time (1 s) ran out"), Files.readString(stderr));
        }
    }

    @Test
    void aJournalTakesWrittenOrSyncedEventsOfOneLine() {
        try (Journal journal = Journal.open(journalDirectory)) {
            assertThrows(IllegalArgumentException.class, () -> journal.append("an event", Durability.BUFFERED));
            assertThrows(IllegalArgumentException.class, () -> journal.append("two\nlines", Durability.SYNCED));
            assertEquals(journalDirectory, journal.directory());
        }
    }

    /** Appends events {@code from} to {@code to}, alternately WRITTEN and SYNCED, and notes the line each should print. */
    private static void appendEvents(
            final Journal journal, final int from, final int to, final List<String> expectedLines) {
        for (int i = from; i < to; i++) {
            final String event = "event " + i + " of " + EVENTS;
            final long lsn = journal.append(event, i % 2 == 0 ? Durability.WRITTEN : Durability.SYNCED);
            expectedLines.add(lsn + " " + event);
        }
    }

    /** Takes the child's lines until {@code count} have been printed in all, failing at the deadline or the output's end. */
    private static void awaitLines(
            final BlockingQueue<String> lines,
            final int count,
            final List<String> printed,
            final long deadline,
            final Path stderr)
            throws InterruptedException {
        while (printed.size() < count) {
            final String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(END)) {
                fail((line == null ? "timed out" : "the consumer's output ended") + " after " + printed.size() + " of "
                        + count + " events; its stderr:\n" + readQuietly(stderr));
            }
            printed.add(line);
        }
    }

    private static void assertExits(final Process process, final long deadline, final Path stderr)
            throws InterruptedException {
        if (!process.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            fail("the consumer did not exit; its stderr:\n" + readQuietly(stderr));
        }
        assertEquals(0, process.exitValue(), () -> "the consumer failed; its stderr:\n" + readQuietly(stderr));
    }

    /**
     * Starts the consumer in a child JVM: this JVM's {@code java} and class path, a small heap and the
     * quick-starting compiler. Its standard input is a pipe this test holds open; its standard error
     * goes to a file.
     */
    private static Process startConsumer(final Path journal, final int seconds, final Path stderr) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseGet(() -> Path.of(
                        System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.add("-Xmx64m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        if (Runtime.version().feature() >= 24) {
            // Agrona uses sun.misc.Unsafe's memory methods, which JDK 24+ warns about.
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JournalConsumer.class.getName());
        command.add(journal.toString());
        command.add(Integer.toString(seconds));
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.to(stderr.toFile()))
                .start();
    }

    /** Reads a child's standard output line by line on a daemon thread; {@link #END} follows the last. */
    private static BlockingQueue<String> readLines(final Process process) {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            lines.add(line);
                        }
                    } catch (final IOException ex) {
                        // The pipe broke with the child: what it printed before was read.
                    } finally {
                        lines.add(END);
                    }
                },
                "consumer-stdout");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private static String readQuietly(final Path file) {
        try {
            return Files.readString(file);
        } catch (final IOException ex) {
            return "(unreadable: " + ex + ")";
        }
    }
}
