package io.walden.crash.kill;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.testing.TestRecords;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The program {@link SuffixTruncationKillTest} runs in a child JVM and kills with SIGKILL while it
 * truncates a log with {@code truncateAfter}: a closed one ({@link Wal#truncateAfter(io.walden.WalConfig,
 * long)}), or, in mode {@code online}, an open one ({@link Wal#truncateAfter(long)}) while a thread
 * appends {@code SYNCED} records tagged writer {@value #ONLINE_WRITER}. It reports on standard output,
 * one line per event, each with one {@code write(2)}:
 *
 * <pre>
 *   A seq lsn      online: the append of record seq returned (SYNCED) at lsn
 *   U lsn          about to call truncateAfter(lsn)
 *   u next         truncateAfter returned; the log continues at next
 *   E text         unexpected failure; the child exits with status 2
 * </pre>
 *
 * <p>Arguments: log directory, backend name ({@link io.walden.crash.ChildBackends#named}), LSN, and
 * optionally {@code online}.
 *
 * <p><b>Threading:</b> the main thread; online, also one appender thread.
 */
public final class SuffixTruncationChild {
    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);
    /** The writer tag of the records appended while an open log is truncated. */
    static final int ONLINE_WRITER = 1;
    /** Acknowledged appends before the online truncation begins, and again after it returned. */
    static final int ONLINE_APPENDS_AROUND = 20;
    /** Payload length of the records appended online, tag included. */
    static final int ONLINE_RECORD_BYTES = TestRecords.TAG_LENGTH + 200;

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
            if (args.length > 3 && args[3].equals("online")) {
                truncateOnline(KillSetup.config(directory, args[1]), lsn);
                return;
            }
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

    /**
     * Opens the log, appends from a thread, truncates the open log once some appends were
     * acknowledged, and closes it once as many more were acknowledged after.
     */
    private static void truncateOnline(final WalConfig config, final long lsn) throws Exception {
        try (Wal wal = Wal.open(config)) {
            final Object progress = new Object();
            final AtomicLong acknowledged = new AtomicLong();
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread appender = new Thread(() -> {
                try {
                    for (int seq = 0; !stop.get(); seq++) {
                        final long appended = wal.append(
                                TestRecords.tagged(ONLINE_WRITER, seq, ONLINE_RECORD_BYTES), Durability.SYNCED);
                        write("A " + seq + " " + appended);
                        synchronized (progress) {
                            acknowledged.incrementAndGet();
                            progress.notifyAll();
                        }
                    }
                } catch (final Throwable ex) {
                    synchronized (progress) {
                        failure.set(ex);
                        progress.notifyAll();
                    }
                }
            });
            appender.start();
            awaitAcknowledged(progress, acknowledged, ONLINE_APPENDS_AROUND, failure);
            write("U " + lsn);
            final long next = wal.truncateAfter(lsn);
            write("u " + next);
            awaitAcknowledged(progress, acknowledged, acknowledged.get() + ONLINE_APPENDS_AROUND, failure);
            stop.set(true);
            appender.join();
            if (failure.get() != null) {
                throw new IllegalStateException("an append failed", failure.get());
            }
        }
    }

    private static void awaitAcknowledged(
            final Object progress,
            final AtomicLong acknowledged,
            final long count,
            final AtomicReference<Throwable> failure)
            throws InterruptedException {
        synchronized (progress) {
            while (acknowledged.get() < count) {
                if (failure.get() != null) {
                    throw new IllegalStateException("an append failed", failure.get());
                }
                progress.wait();
            }
        }
    }

    private static void write(final String line) throws IOException {
        OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
