package io.walden.crash.kill;

import io.walden.Wal;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The program {@link SuffixTruncationKillTest} runs in a child JVM and kills with SIGKILL while it
 * truncates a closed log ({@link Wal#truncateAfter}). It reports on standard output, one line per
 * event, each with one {@code write(2)}:
 *
 * <pre>
 *   U lsn          about to call truncateAfter(lsn)
 *   u next         truncateAfter returned; the log continues at next
 *   E text         unexpected failure; the child exits with status 2
 * </pre>
 *
 * <p>Arguments: log directory, backend name ({@link io.walden.crash.ChildBackends#named}), LSN.
 *
 * <p><b>Threading:</b> the main thread only.
 */
public final class SuffixTruncationChild {
    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

    private SuffixTruncationChild() {}

    /**
     * Runs the child.
     *
     * @param args directory, backend name, LSN of the last record to keep.
     */
    public static void main(final String[] args) {
        try {
            final Path directory = Path.of(args[0]);
            final long lsn = Long.parseLong(args[2]);
            write("U " + lsn);
            final long next = Wal.truncateAfter(KillSetup.config(directory, args[1]), lsn);
            write("u " + next);
        } catch (final Throwable ex) {
            ex.printStackTrace();
            try {
                write("E " + String.valueOf(ex).replace('\n', ' '));
            } catch (final IOException ignored) {
                // The parent is gone; nothing is left to tell.
            }
            Runtime.getRuntime().halt(KillChild.EXIT_FAILED);
        }
    }

    private static void write(final String line) throws IOException {
        OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
