package io.walden.examples.journal;

import io.walden.Durability;
import io.walden.WalException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes a {@link Journal} from the command line: appends a number of events, or one event per line
 * of standard input, and prints each event once the journal has acknowledged it, as one line {@code
 * <lsn> <event>} on standard output: the line a {@link JournalConsumer} following the journal prints
 * for it.
 *
 * <p>Run: {@code java -cp ... io.walden.examples.journal.JournalProducer <directory> <count | -> [WRITTEN
 * | SYNCED]}. With a count it appends {@code event 1 of <count>} and so on; with {@code -} it appends
 * each line of standard input until it ends (Ctrl-D). Each append waits for the level given (default
 * {@link Durability#SYNCED}). The journal is created if the directory holds none, and is kept: run the
 * producer again to append more. Only one producer may have a journal open at a time (the second is
 * refused); any number of consumers may follow it meanwhile.
 *
 * <p>On standard error it reports when the journal is open ({@code journal producer: appending to
 * ...}) and how many events it appended. It exits with status 0 when done, 1 when the journal cannot
 * be opened or an append fails, 2 on bad arguments.
 */
public final class JournalProducer {
    /** Printed on standard error on bad arguments. */
    public static final String USAGE = "usage: JournalProducer <journal directory> <count | -> [WRITTEN | SYNCED]\n"
            + "  <count>: append events \"event 1 of <count>\" ... \"event <count> of <count>\"\n"
            + "  -: append each line of standard input, until it ends (Ctrl-D)\n"
            + "  WRITTEN or SYNCED: the level each append waits for (default SYNCED)";

    private JournalProducer() {}

    /**
     * Appends to the journal in {@code args[0]}: {@code args[1]} events, or the lines of standard input
     * if {@code args[1]} is {@code -}, each at the level {@code args[2]} (default {@code SYNCED}).
     *
     * @param args the journal's directory, the count or {@code -}, and optionally the level.
     */
    public static void main(final String[] args) {
        final int status = run(args, System.in, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Runs the producer.
     *
     * @param args as for {@link #main(String[])}.
     * @param in the events to append when {@code args[1]} is {@code -}, one per line.
     * @param out where each acknowledged event is printed, as {@code <lsn> <event>}, flushed at once.
     * @param err where the usage, the progress and errors are printed.
     * @return the exit status: 0 done, 1 the journal could not be opened or written, 2 bad arguments.
     */
    public static int run(final String[] args, final InputStream in, final PrintStream out, final PrintStream err) {
        final Options options = Options.parse(args);
        if (options == null) {
            err.println(USAGE);
            return 2;
        }
        final long appended;
        try (Journal journal = Journal.open(options.directory())) {
            err.println("journal producer: appending to " + options.directory() + ", each event " + options.durability()
                    + (options.fromInput() ? ", one per line of standard input" : ""));
            final Appender appender = new Appender(journal, options.durability(), out);
            if (options.fromInput()) {
                appendLines(appender, in);
            } else {
                appendCount(appender, options.count());
            }
            appended = appender.appended;
        } catch (final WalException | UncheckedIOException ex) {
            err.println("journal producer: " + ex.getMessage());
            return 1;
        }
        err.println("journal producer: appended " + appended + " events to " + options.directory());
        return 0;
    }

    private static void appendCount(final Appender appender, final long count) {
        for (long i = 1; i <= count; i++) {
            appender.append("event " + i + " of " + count);
        }
    }

    private static void appendLines(final Appender appender, final InputStream in) {
        final BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = lines.readLine()) != null) {
                appender.append(line);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot read standard input: " + ex.getMessage(), ex);
        }
    }

    /** Appends events, printing each one the journal acknowledged. */
    private static final class Appender {
        private final Journal journal;
        private final Durability durability;
        private final PrintStream out;
        private long appended;

        Appender(final Journal journal, final Durability durability, final PrintStream out) {
            this.journal = journal;
            this.durability = durability;
            this.out = out;
        }

        void append(final String event) {
            final long lsn = journal.append(event, durability);
            appended++;
            out.println(lsn + " " + event);
            out.flush();
        }
    }

    /**
     * The parsed arguments.
     *
     * @param directory the journal's directory.
     * @param count how many events to append, or -1 for the lines of standard input.
     * @param durability the level each append waits for.
     */
    private record Options(Path directory, long count, Durability durability) {
        /** The arguments, or null if they are bad. */
        static Options parse(final String[] args) {
            if (args.length < 2 || args.length > 3 || args[0].isEmpty()) {
                return null;
            }
            final long count = args[1].equals("-") ? -1 : parseCount(args[1]);
            final Durability durability = args.length == 3 ? parseDurability(args[2]) : Durability.SYNCED;
            if (count < -1 || durability == null) {
                return null;
            }
            try {
                return new Options(Path.of(args[0]), count, durability);
            } catch (final InvalidPathException ex) {
                return null;
            }
        }

        boolean fromInput() {
            return count < 0;
        }

        /** A count of zero or more, or -2 if the text is not one. */
        private static long parseCount(final String text) {
            try {
                final long count = Long.parseLong(text);
                return count >= 0 ? count : -2;
            } catch (final NumberFormatException ex) {
                return -2;
            }
        }

        /** WRITTEN or SYNCED (any case), or null. */
        private static Durability parseDurability(final String text) {
            final String level = text.toUpperCase(Locale.ROOT);
            if (level.equals(Durability.WRITTEN.name())) {
                return Durability.WRITTEN;
            }
            return level.equals(Durability.SYNCED.name()) ? Durability.SYNCED : null;
        }
    }
}
