package io.walden.examples.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);

    @TempDir
    Path journalDirectory;

    @Test
    void aConsumerInAnotherProcessPrintsEveryEventOnceInOrder() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        try (Journal journal = Journal.open(journalDirectory);
                ChildJvm child = ChildJvm.start(JournalConsumer.class, journalDirectory.toString(), "120")) {
            // The first half may be written before the child has opened the journal (it catches up
            // from the start); the second half once it has printed the first (it follows the log).
            final List<String> expected = new ArrayList<>();
            appendEvents(journal, 0, EVENTS / 2, expected);
            final List<String> printed = new ArrayList<>(child.nextOutputs(EVENTS / 2, deadline));
            appendEvents(journal, EVENTS / 2, EVENTS, expected);
            printed.addAll(child.nextOutputs(EVENTS - EVENTS / 2, deadline));
            assertEquals(expected, printed);

            // Closing its standard input stops the consumer, which prints nothing more.
            child.closeInput();
            child.assertExits(0, deadline);
            assertEquals(List.of(), child.remainingOutput(deadline), child::transcript);
            child.awaitError("journal consumer: printed " + EVENTS + " events", deadline);
        }
    }

    @Test
    void theConsumerStopsWhenItsTimeRunsOut() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        try (Journal journal = Journal.open(journalDirectory)) {
            journal.append("the only event", Durability.SYNCED);
            // Standard input stays open: only the consumer's own deadline stops it.
            try (ChildJvm child = ChildJvm.start(JournalConsumer.class, journalDirectory.toString(), "1")) {
                child.assertExits(0, deadline);
                final List<String> printed = child.remainingOutput(deadline);
                assertEquals(1, printed.size(), child::transcript);
                assertTrue(printed.get(0).endsWith(" the only event"), child::transcript);
                child.awaitError(
                        "journal consumer: printed 1 events; stopped because its time (1 s) ran out", deadline);
            }
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
}
