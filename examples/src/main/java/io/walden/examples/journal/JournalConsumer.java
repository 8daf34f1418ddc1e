package io.walden.examples.journal;

import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.WalView;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.agrona.DirectBuffer;

/**
 * Follows a {@link Journal} from another process and prints each event once, in order, as one line
 * {@code <lsn> <event>} on standard output. It opens the journal with {@link Wal#openReadOnly(Path)},
 * which takes no lock and changes nothing, so it runs beside the journal's writer; its reader sees
 * every event written so far ({@link Durability#WRITTEN} visibility) and waits in {@link
 * WalReader#poll(RecordHandler, int, long)} for more, without spinning.
 *
 * <p>Run: {@code java -cp ... io.walden.examples.journal.JournalConsumer <directory> [seconds]}. The
 * journal must exist: {@link JournalProducer} creates it. Once the journal is open the consumer
 * reports on standard error {@code journal consumer: following <directory>; ...}: from then on,
 * every event written is printed. It stops when its standard input closes (so it does
 * not outlive a parent that started it with a pipe) or after the given seconds (default {@value
 * #DEFAULT_SECONDS}); it reports how many events it printed on standard error. It exits with status 0
 * when it stops, 1 when the journal cannot be read (no log in the directory, damage), 2 on bad
 * arguments.
 *
 * <p>It reads from the start of the journal each time it starts: a consumer that must not print an
 * event twice across restarts would store the position after the last event it handled and start
 * its reader there.
 *
 * <p>WRITTEN visibility shows an event as soon as it is written, before it is synced: if the
 * machine loses power, an event the consumer printed may be gone from the journal after recovery. A
 * consumer that must only act on events that survive power loss reads with {@link Durability#SYNCED}
 * visibility instead, and sees each event once a later sync proves it durable.
 */
public final class JournalConsumer {
    /** How long the consumer runs at most when no time is given, in seconds. */
    public static final long DEFAULT_SECONDS = 600;

    /** Printed on standard error on bad arguments. */
    public static final String USAGE = "usage: JournalConsumer <journal directory> [seconds, default "
            + DEFAULT_SECONDS + "]\n"
            + "  follows the journal (create it first, with JournalProducer) and prints each event as\n"
            + "  \"<lsn> <event>\" until standard input ends (Ctrl-D) or the seconds have passed";

    private static final int POLL_LIMIT = 256;
    private static final long POLL_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private JournalConsumer() {}

    /**
     * Follows the journal in {@code args[0]} until standard input closes or {@code args[1]} seconds
     * (default {@value #DEFAULT_SECONDS}) have passed.
     *
     * @param args the journal's directory, and optionally the most seconds to run.
     */
    public static void main(final String[] args) {
        final int status = run(args, System.in, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Runs the consumer.
     *
     * @param args as for {@link #main(String[])}.
     * @param in read to its end on a daemon thread: the consumer stops when it ends.
     * @param out where each event is printed, as {@code <lsn> <event>}.
     * @param err where the usage, the line {@code journal consumer: following ...} once the journal is
     *     open, the count of events printed and errors go.
     * @return the exit status: 0 stopped, 1 the journal could not be read, 2 bad arguments.
     */
    public static int run(final String[] args, final InputStream in, final PrintStream out, final PrintStream err) {
        final long seconds = args.length == 2 ? parseSeconds(args[1]) : DEFAULT_SECONDS;
        final Path directory = args.length >= 1 && args.length <= 2 ? parseDirectory(args[0]) : null;
        if (directory == null || seconds <= 0) {
            err.println(USAGE);
            return 2;
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        final AtomicBoolean inputClosed = new AtomicBoolean();
        final Thread inputWatcher = new Thread(() -> awaitEnd(in, inputClosed), "journal-consumer-stdin");
        inputWatcher.setDaemon(true);
        inputWatcher.start();

        final long events;
        try {
            events = follow(
                    directory,
                    out,
                    () -> err.println("journal consumer: following " + directory
                            + "; stops when standard input ends or after " + seconds + " s"),
                    () -> inputClosed.get() || System.nanoTime() - deadline >= 0);
        } catch (final WalException ex) {
            err.println("journal consumer: " + ex.getMessage());
            return 1;
        }
        err.println("journal consumer: printed " + events + " events; stopped because "
                + (inputClosed.get() ? "standard input closed" : "its time (" + seconds + " s) ran out"));
        return 0;
    }

    /**
     * Prints the journal's events, from its start, as they are written, until told to stop.
     *
     * @param directory the journal's directory.
     * @param out where each event is printed, as {@code <lsn> <event>}; flushed after every poll that
     *     printed something.
     * @param following run once the journal and its reader are open: every event in the journal
     *     then, and every event written after, will be printed.
     * @param stop asked after each poll (at least every 100 ms) whether to stop; the first poll is
     *     always made.
     * @return how many events were printed.
     * @throws WalException if the directory holds no log, or the reader meets damage.
     */
    public static long follow(
            final Path directory, final PrintStream out, final Runnable following, final BooleanSupplier stop) {
        final EventPrinter printer = new EventPrinter(out);
        try (WalView view = Wal.openReadOnly(directory);
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            following.run();
            do {
                if (reader.poll(printer, POLL_LIMIT, POLL_TIMEOUT_NS) > 0) {
                    out.flush();
                }
            } while (!stop.getAsBoolean());
        }
        return printer.printed;
    }

    /** The directory argument, or null if it is not a path. */
    private static Path parseDirectory(final String text) {
        try {
            return text.isEmpty() ? null : Path.of(text);
        } catch (final InvalidPathException ex) {
            return null;
        }
    }

    /** The seconds argument, or -1 if it is not a whole number. */
    private static long parseSeconds(final String text) {
        try {
            return Long.parseLong(text);
        } catch (final NumberFormatException ex) {
            return -1;
        }
    }

    /** Reads a stream until its end (or an error), then sets a flag. */
    private static void awaitEnd(final InputStream in, final AtomicBoolean closed) {
        final byte[] discard = new byte[256];
        try {
            while (in.read(discard) >= 0) {
                // Input carries no commands; only its end matters.
            }
        } catch (final IOException ex) {
            // A broken pipe is an end as well.
        } finally {
            closed.set(true);
        }
    }

    /** Prints each record as {@code <lsn> <event>}. */
    private static final class EventPrinter implements RecordHandler {
        private final PrintStream out;
        private long printed;

        EventPrinter(final PrintStream out) {
            this.out = out;
        }

        @Override
        public void onRecord(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
            out.println(lsn + " " + buffer.getStringWithoutLengthUtf8(offset, length));
            printed++;
        }
    }
}
