package io.walden.examples.journal;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * An event journal: each event is a line of text appended to a log as one record, with the
 * durability its writer chooses. Other processes follow it with {@link JournalConsumer}, which reads
 * the log through a read-only view while this process keeps writing it. {@link JournalProducer} is a
 * writer to run from the command line.
 *
 * <p>Which level to choose: {@link Durability#WRITTEN} returns once the event is handed to the
 * operating system, which is enough to survive a crash of this process (kill -9) and makes the event
 * visible to a consumer reading with {@code WRITTEN} visibility; {@link Durability#SYNCED} returns
 * once the event would also survive power loss.
 *
 * <p><b>Threading:</b> thread-safe: any number of threads may append; events are ordered by their
 * LSNs.
 */
public final class Journal implements AutoCloseable {
    private final Wal wal;

    private Journal(final Wal wal) {
        this.wal = wal;
    }

    /**
     * Opens a journal with the default configuration, creating it if the directory holds none.
     *
     * @param directory the journal's directory.
     * @return the open journal.
     * @throws io.walden.WalException if the log cannot be opened (for one, another process has it open
     *     for writing).
     */
    public static Journal open(final Path directory) {
        return open(WalConfig.builder(directory).build());
    }

    /**
     * Opens a journal, creating it if the directory holds none.
     *
     * @param config the log's configuration.
     * @return the open journal.
     * @throws io.walden.WalException if the log cannot be opened.
     */
    public static Journal open(final WalConfig config) {
        return new Journal(Wal.open(config));
    }

    /**
     * Appends an event and waits until it reaches a durability level.
     *
     * @param event the event: a line of text (no line breaks, so that a consumer prints one line per
     *     event).
     * @param durability {@link Durability#WRITTEN} or {@link Durability#SYNCED}.
     * @return the event's LSN.
     * @throws IllegalArgumentException if the event holds a line break, or the level is {@link
     *     Durability#BUFFERED} (which acknowledges an event that a crash may lose).
     * @throws io.walden.WalException if the event could not be appended or did not reach the level.
     */
    public long append(final String event, final Durability durability) {
        Objects.requireNonNull(event, "event");
        if (event.indexOf('\n') >= 0 || event.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("an event is one line: " + event);
        }
        if (durability == Durability.BUFFERED) {
            throw new IllegalArgumentException("a journal appends WRITTEN or SYNCED, not BUFFERED");
        }
        return wal.append(event.getBytes(StandardCharsets.UTF_8), durability);
    }

    /**
     * The journal's directory, where consumers open their read-only views.
     *
     * @return the directory.
     */
    public Path directory() {
        return wal.config().directory();
    }

    /** Closes the journal; every event appended is synced first. Idempotent. */
    @Override
    public void close() {
        wal.close();
    }
}
