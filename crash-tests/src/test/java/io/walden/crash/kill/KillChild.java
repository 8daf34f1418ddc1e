package io.walden.crash.kill;

import io.walden.AckHandler;
import io.walden.AsyncAppender;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.crash.MixedAppend;
import io.walden.format.FrameDescriptor;
import io.walden.testing.TestRecords;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The program the kill test runs in a child JVM and kills with SIGKILL. It opens (and so recovers) the
 * log, then appends tagged records ({@link TestRecords#tagged}) from a few threads with mixed durability
 * until it is killed, 30% of the appends atomic batches of 2 to {@value #BATCH_RECORDS_MAX} records
 * ({@link WalBatch}), and now and then truncates the log. With two threads or more, the last is an
 * open-loop producer: it appends through an {@link AsyncAppender} without waiting and reports each
 * record once its acknowledgement arrives. It reports to the parent on standard output,
 * one line per event, each written with one {@code write(2)} of less than {@code PIPE_BUF} bytes, so a
 * line is either whole in the pipe or absent:
 *
 * <pre>
 *   O                              about to open the log (recovery runs next)
 *   R start end                    open; the recovered log spans [start, end)
 *   A thread seq lsn level         append (and await) of record (cycle, thread, seq) returned at
 *                                  level B, W or S: written only after the call returned (an
 *                                  open-loop record's, once its acknowledgement was delivered)
 *   b thread seq count             about to append records (cycle, thread, seq .. seq+count-1) as
 *                                  one batch: all or none of them may be in the log from now on
 *   B thread seq level lsn...      the append (and await) of that batch returned at level B, W or
 *                                  S, which covers the whole batch; one LSN per record, in order
 *   T lsn                          about to call truncateBefore(lsn)
 *   t lsn deleted                  truncateBefore(lsn) returned
 *   E text                         unexpected failure; the child exits with status 2
 * </pre>
 *
 * <p>Arguments: log directory, backend name ({@link io.walden.crash.ChildBackends#named}), cycle number, appender thread
 * count, random seed. The cycle number goes into every record's writer tag ({@link #writerTag}), so a
 * record identifies the run that appended it.
 *
 * <p><b>Threading:</b> the appender threads share the log and the output stream (writes to it are
 * serialised on the stream).
 */
public final class KillChild {
    /** Most appender threads; a writer tag holds the thread in its low bits. */
    static final int MAX_THREADS = 8;
    /** Most records in a batch; a batch report line stays far below {@code PIPE_BUF}. */
    static final int BATCH_RECORDS_MAX = 12;
    /** Percentage of the appends that append a batch rather than one record. */
    private static final int BATCH_PERCENT = 30;
    /** The most log space a batch's frames may take: what one record of the largest size takes. */
    private static final int BATCH_FRAMED_BYTES_MAX =
            FrameDescriptor.alignedLength(FrameDescriptor.frameLength(KillSetup.MAX_RECORD_BYTES));
    /** Longest pause of the open-loop producer between two appends. */
    private static final long OPEN_LOOP_GAP_NS_MAX = TimeUnit.MICROSECONDS.toNanos(300);
    /** Acknowledgements an open-loop producer may leave pending. */
    private static final int OPEN_LOOP_CAPACITY = 64;
    /** The report's level code of each {@link Durability}, by ordinal. */
    private static final char[] LEVEL_CODES = {'B', 'W', 'S'};
    /** Exit status of a child that failed by itself. */
    static final int EXIT_FAILED = 2;
    /** A child whose parent has gone stops after this long, so that no orphan fills the disk. */
    private static final long MAX_RUN_NS = TimeUnit.SECONDS.toNanos(60);

    // Shared by the appender threads; writes are serialised on it.
    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

    private final Wal wal;
    private final int cycle;
    private final long seed;
    private final long deadlineNs;

    private KillChild(final Wal wal, final int cycle, final long seed) {
        this.wal = wal;
        this.cycle = cycle;
        this.seed = seed;
        this.deadlineNs = System.nanoTime() + MAX_RUN_NS;
    }

    /**
     * Runs the child.
     *
     * @param args directory, backend name, cycle, thread count, seed.
     */
    public static void main(final String[] args) {
        final Path directory = Path.of(args[0]);
        final String backendName = args[1];
        final int cycle = Integer.parseInt(args[2]);
        final int threadCount = Integer.parseInt(args[3]);
        final long seed = Long.parseLong(args[4]);
        if (threadCount < 1 || threadCount > MAX_THREADS) {
            throw new IllegalArgumentException("thread count " + threadCount + " not in [1, " + MAX_THREADS + "]");
        }
        try {
            write("O");
            final Wal wal = Wal.open(KillSetup.config(directory, backendName));
            write("R " + wal.startPosition() + " " + wal.tailPosition());
            new KillChild(wal, cycle, seed).run(threadCount);
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    /**
     * The writer tag of a thread's records in a cycle.
     *
     * @param cycle the cycle.
     * @param thread the thread.
     * @return the tag.
     */
    static int writerTag(final int cycle, final int thread) {
        return cycle * MAX_THREADS + thread;
    }

    private void run(final int threadCount) throws InterruptedException, IOException {
        final Thread[] threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            final int thread = i;
            // With several threads, the last is an open-loop producer (AsyncAppender).
            final boolean openLoop = threadCount > 1 && i == threadCount - 1;
            threads[i] = new Thread(
                    () -> {
                        if (openLoop) {
                            openLoop(thread);
                        } else {
                            appendLoop(thread);
                        }
                    },
                    "kill-child-appender-" + i);
            threads[i].start();
        }
        for (final Thread thread : threads) {
            thread.join();
        }
        // Only reached when the parent never killed this child.
        write("E no kill within " + TimeUnit.NANOSECONDS.toSeconds(MAX_RUN_NS) + " s");
        Runtime.getRuntime().halt(EXIT_FAILED);
    }

    private void appendLoop(final int thread) {
        final SplittableRandom random = new SplittableRandom(seed * 31 + thread);
        final int writer = writerTag(cycle, thread);
        final WalBatch batch = new WalBatch();
        try {
            int seq = 0;
            while (System.nanoTime() < deadlineNs) {
                final long lsn;
                if (random.nextInt(100) < BATCH_PERCENT) {
                    lsn = appendBatch(thread, writer, seq, batch, random);
                    seq += batch.size();
                } else {
                    final byte[] payload = TestRecords.tagged(writer, seq, recordLength(random));
                    final int choice = random.nextInt(100);
                    final MixedAppend appended = MixedAppend.append(wal, payload, choice, 35, 70, 90, random);
                    lsn = appended.lsn();
                    write("A " + thread + " " + seq + " " + lsn + " " + appended.level());
                    seq++;
                }
                if (thread == 0) {
                    maybeTruncate(lsn);
                }
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    /**
     * An open-loop producer: appends single records through an {@link AsyncAppender} without waiting,
     * 35% {@code SYNCED}, 35% {@code WRITTEN}, the rest {@code BUFFERED}, polling after each append; the
     * handler reports each acknowledgement ({@code A}, the line a blocking append that returned at that
     * level would write), so a record is reported only once it reached its level.
     */
    private void openLoop(final int thread) {
        final SplittableRandom random = new SplittableRandom(seed * 31 + thread);
        final int writer = writerTag(cycle, thread);
        final AckHandler reporter = new AckHandler() {
            @Override
            public void acknowledged(final long lsn, final long tag) {
                try {
                    write("A " + thread + " " + (tag >> 2) + " " + lsn + " " + LEVEL_CODES[(int) (tag & 3)]);
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }

            @Override
            public void failed(final long lsn, final long tag, final WalException failure) {
                throw failure;
            }
        };
        try (AsyncAppender appender = wal.asyncAppender(OPEN_LOOP_CAPACITY)) {
            int seq = 0;
            while (System.nanoTime() < deadlineNs) {
                final int choice = random.nextInt(100);
                final Durability level =
                        choice < 35 ? Durability.SYNCED : choice < 70 ? Durability.WRITTEN : Durability.BUFFERED;
                final byte[] payload = TestRecords.tagged(writer, seq, recordLength(random));
                while (appender.append(payload, level, (long) seq << 2 | level.ordinal()) == Wal.BACK_PRESSURED) {
                    appender.poll(reporter);
                    Thread.onSpinWait();
                }
                appender.poll(reporter);
                seq++;
                // Requests arrive with gaps, as at a service: a producer at full speed would fill the
                // segments so fast that retention always has a freed file to recycle, and kills would
                // seldom find a segment under preparation.
                LockSupport.parkNanos(random.nextLong(OPEN_LOOP_GAP_NS_MAX));
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    /**
     * Appends records {@code seq, seq + 1, ...} as one batch: says so first ({@code b}), so that the
     * parent knows the batch even if the kill comes before its acknowledgement, then reports the
     * acknowledgement with every record's LSN ({@code B}). Returns the LSN of the batch's last record.
     */
    private long appendBatch(
            final int thread, final int writer, final int seq, final WalBatch batch, final SplittableRandom random)
            throws IOException {
        batch.clear();
        final int count = 2 + random.nextInt(BATCH_RECORDS_MAX - 1);
        int framedLeft = BATCH_FRAMED_BYTES_MAX;
        for (int i = 0; i < count && framedLeft >= framed(TestRecords.TAG_LENGTH); i++) {
            // Keep room for a second record; a record that does not fit is cut to what is left.
            final int room = framedLeft - (i == 0 ? framed(TestRecords.TAG_LENGTH) : 0);
            int length = recordLength(random);
            if (framed(length) > room) {
                length = room - FrameDescriptor.HEADER_LENGTH;
            }
            batch.add(TestRecords.tagged(writer, seq + i, length));
            framedLeft -= framed(length);
        }
        write("b " + thread + " " + seq + " " + batch.size());
        final MixedAppend appended = MixedAppend.appendBatch(wal, batch, random.nextInt(100), 35, 70, 90, random);
        final StringBuilder line = new StringBuilder("B ")
                .append(thread)
                .append(' ')
                .append(seq)
                .append(' ')
                .append(appended.level());
        for (int i = 0; i < batch.size(); i++) {
            line.append(' ').append(batch.lsn(i));
        }
        write(line.toString());
        return batch.lsn(batch.size() - 1);
    }

    private static int framed(final int length) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
    }

    /** Keeps the log at a few segments: truncates two segments behind the newest record. */
    private void maybeTruncate(final long lsn) throws IOException {
        final long keepBytes = 2L * KillSetup.SEGMENT_CAPACITY_BYTES;
        if (lsn - wal.startPosition() < 2 * keepBytes) {
            return;
        }
        final long truncateLsn = lsn - keepBytes;
        write("T " + truncateLsn);
        final long deleted = wal.truncateBefore(truncateLsn);
        write("t " + truncateLsn + " " + deleted);
    }

    private static int recordLength(final SplittableRandom random) {
        final int kind = random.nextInt(100);
        if (kind < 70) {
            return TestRecords.TAG_LENGTH + random.nextInt(300);
        }
        if (kind < 95) {
            return TestRecords.TAG_LENGTH + random.nextInt(3000);
        }
        return TestRecords.TAG_LENGTH + random.nextInt(KillSetup.MAX_RECORD_BYTES - TestRecords.TAG_LENGTH + 1);
    }

    /**
     * Reports a line to the parent with one {@code write(2)}; shared with the other children of this package.
     *
     * @param line the line, without its terminator.
     * @throws IOException if the parent is gone.
     */
    static void write(final String line) throws IOException {
        final byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
        synchronized (OUT) {
            OUT.write(bytes);
        }
    }

    /**
     * Reports an unexpected failure ({@code E}) and halts with {@link #EXIT_FAILED}.
     *
     * @param ex the failure.
     */
    static void fail(final Throwable ex) {
        try {
            ex.printStackTrace();
            final String text = String.valueOf(ex).replace('\n', ' ');
            write("E " + (text.length() > 400 ? text.substring(0, 400) : text));
        } catch (final IOException ignored) {
            // The parent is gone (broken pipe); nothing is left to tell.
        } finally {
            Runtime.getRuntime().halt(EXIT_FAILED);
        }
    }
}
