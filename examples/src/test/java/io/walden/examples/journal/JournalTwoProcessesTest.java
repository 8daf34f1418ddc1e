package io.walden.examples.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal as the examples' README runs it: a {@link JournalProducer} and a {@link JournalConsumer}
 * in two child JVMs. The consumer prints every event the producer acknowledged, in order, with the
 * same line. No test sleeps: each waits for the line that says the other side has reached its point
 * (the consumer's {@code following} before the producer writes, an acknowledgement before the
 * consumer's line), and the deadline only bounds a failure.
 */
final class JournalTwoProcessesTest {
    private static final int EVENTS = 200;
    private static final int LINES = 20;
    /** The longest a test waits in all: JVM starts, every event, the exits (a busy machine included). */
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);
    /** Longer than any test: the consumer stops because its input closes, not its time. */
    private static final String CONSUMER_SECONDS = "600";

    @TempDir
    Path directory;

    @Test
    void theConsumerPrintsEveryEventTheProducerAcknowledgedInOrder() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        final Path journal = directory.resolve("journal");
        // The consumer needs an existing journal: the producer creates it (with no event).
        assertEquals(0, runInProcess(journal.toString(), "0"));

        try (ChildJvm consumer = ChildJvm.start(JournalConsumer.class, journal.toString(), CONSUMER_SECONDS)) {
            consumer.awaitError("journal consumer: following " + journal, deadline);
            final List<String> acknowledged;
            try (ChildJvm producer = ChildJvm.start(JournalProducer.class, journal.toString(), "" + EVENTS)) {
                acknowledged = producer.remainingOutput(deadline);
                producer.assertExits(0, deadline);
            }
            assertAcknowledgedInOrder(acknowledged);

            // Line by line: a missing, extra or reordered event fails at once, with both sides' lines.
            for (final String line : acknowledged) {
                assertEquals(line, consumer.nextOutput(deadline), consumer::transcript);
            }
            consumer.closeInput();
            consumer.assertExits(0, deadline);
            assertEquals(List.of(), consumer.remainingOutput(deadline), consumer::transcript);
            consumer.awaitError("journal consumer: printed " + EVENTS + " events", deadline);
        }
    }

    @Test
    void eachLineTheProducerReadsReachesTheConsumerBeforeTheNext() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        final Path journal = directory.resolve("new").resolve("journal");
        try (ChildJvm producer = ChildJvm.start(JournalProducer.class, journal.toString(), "-", "WRITTEN")) {
            producer.awaitError("journal producer: appending to " + journal, deadline);
            try (ChildJvm consumer = ChildJvm.start(JournalConsumer.class, journal.toString(), CONSUMER_SECONDS)) {
                consumer.awaitError("journal consumer: following " + journal, deadline);
                for (int i = 1; i <= LINES; i++) {
                    producer.writeLine("line " + i + " ✓");
                    final String acknowledged = producer.nextOutput(deadline);
                    assertTrue(
                            acknowledged != null && acknowledged.matches("\\d+ line " + i + " ✓"),
                            () -> acknowledged + "\n" + producer.transcript());
                    assertEquals(acknowledged, consumer.nextOutput(deadline), consumer::transcript);
                }
                producer.closeInput();
                producer.assertExits(0, deadline);
                producer.awaitError("journal producer: appended " + LINES + " events", deadline);
                consumer.closeInput();
                consumer.assertExits(0, deadline);
                consumer.awaitError("journal consumer: printed " + LINES + " events", deadline);
            }
        }
    }

    @Test
    void badArgumentsPrintTheUsage() {
        final String journal = directory.resolve("journal").toString();
        for (final String[] args : List.of(
                new String[] {},
                new String[] {journal},
                new String[] {journal, "many"},
                new String[] {journal, "-1"},
                new String[] {journal, "5", "BUFFERED"},
                new String[] {journal, "5", "SYNCED", "more"})) {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(2, JournalProducer.run(args, InputStream.nullInputStream(), System.out, print(err)));
            assertTrue(text(err).startsWith("usage: JournalProducer"), text(err));
        }
        for (final String[] args :
                List.of(new String[] {}, new String[] {journal, "0"}, new String[] {journal, "soon"}, new String[] {
                    journal, "1", "2"
                })) {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(2, JournalConsumer.run(args, InputStream.nullInputStream(), System.out, print(err)));
            assertTrue(text(err).startsWith("usage: JournalConsumer"), text(err));
        }
    }

    @Test
    void aConsumerOfNoJournalSaysSo() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] args = {directory.resolve("none").toString(), "1"};
        assertEquals(1, JournalConsumer.run(args, InputStream.nullInputStream(), System.out, print(err)));
        assertTrue(text(err).contains("no Walden log"), text(err));
    }

    /** Each line is {@code <lsn> event <i> of <EVENTS>}, i from 1, LSNs increasing. */
    private static void assertAcknowledgedInOrder(final List<String> acknowledged) {
        assertEquals(EVENTS, acknowledged.size(), () -> String.join("\n", acknowledged));
        long previous = -1;
        for (int i = 0; i < EVENTS; i++) {
            final String[] parts = acknowledged.get(i).split(" ", 2);
            assertEquals("event " + (i + 1) + " of " + EVENTS, parts[1]);
            final long lsn = Long.parseLong(parts[0]);
            assertTrue(lsn > previous, acknowledged.get(i));
            previous = lsn;
        }
    }

    /** Runs the producer in this JVM, with no input, and returns its exit status. */
    private static int runInProcess(final String... args) {
        return JournalProducer.run(args, InputStream.nullInputStream(), System.out, print(new ByteArrayOutputStream()));
    }

    private static PrintStream print(final ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private static String text(final ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
