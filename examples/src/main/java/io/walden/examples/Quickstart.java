package io.walden.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The README's Quickstart as a program: opens a log, appends one record {@link Durability#SYNCED}
 * and one {@link Durability#WRITTEN}, replays the log from its start, printing each record, then
 * truncates it at both ends as the README shows.
 *
 * <p>A reader sees durable ({@link Durability#SYNCED}) records by default, and the {@code WRITTEN}
 * record is durable only once a sync covers it (the background sync runs once a second): without the
 * {@link Wal#sync()} before the replay, the replay would print the first record only. Opening the
 * reader with {@code wal.reader(position, Durability.WRITTEN)} instead would see both as well.
 *
 * <p>Run: {@code java -cp ... io.walden.examples.Quickstart [directory]}. Without a directory the log
 * goes to a new temporary directory, which is deleted at the end (the log's segment files take 64 MiB
 * each); a directory given is kept, with the log in it.
 */
public final class Quickstart {
    private Quickstart() {}

    /**
     * Runs the Quickstart in the directory given, which it keeps, or in a new temporary directory, which
     * it deletes at the end.
     *
     * @param args the log directory, optional.
     * @throws IOException if the temporary directory cannot be created or deleted.
     */
    public static void main(final String[] args) throws IOException {
        if (args.length > 1) {
            System.err.println("usage: Quickstart [log directory, kept; default: a temporary one, deleted]");
            System.exit(2);
        }
        if (args.length == 1) {
            run(Path.of(args[0]), System.out);
            return;
        }
        final Path directory;
        try (TemporaryDirectory temporary = TemporaryDirectory.create("walden-quickstart")) {
            directory = temporary.path();
            run(directory, System.out);
        }
        System.out.println("deleted the temporary log directory " + directory);
    }

    /**
     * Runs the Quickstart on a directory, printing to a stream.
     *
     * @param directory the log directory; created if missing.
     * @param out where each record and each step is printed.
     */
    public static void run(final Path directory, final PrintStream out) {
        out.println("log directory: " + directory);
        final WalConfig config = WalConfig.builder(directory).build();
        try (Wal wal = Wal.open(config)) {
            out.println("backend: " + wal.stats().backend());
            final long lsn = wal.append("put k1 v1".getBytes(UTF_8), Durability.SYNCED); // survives power loss
            wal.append("put k2 v2".getBytes(UTF_8), Durability.WRITTEN); // survives kill -9

            // A default reader sees durable records only: make "put k2 v2" durable first.
            wal.sync();
            try (WalReader reader = wal.reader(wal.startPosition())) { // replay: k1, k2
                final long replayed = reader.replay((buffer, offset, length, position) -> out.println(
                        "record at " + position + ": " + buffer.getStringWithoutLengthUtf8(offset, length)));
                out.println("replayed " + replayed + " records");
            }

            // After a checkpoint: delete whole segments below an LSN. The log has one segment, which
            // is being written, so nothing is deleted.
            final long deleted = wal.truncateBefore(lsn);
            out.println("truncateBefore(" + lsn + "): " + deleted + " segments deleted");

            // Discard every record after lsn, crash-safely (Raft, after a leader change): "put k2 v2" goes.
            final long next = wal.truncateAfter(lsn);
            out.println("truncateAfter(" + lsn + "): the records after it are discarded; the log continues at " + next);
        }
    }
}
