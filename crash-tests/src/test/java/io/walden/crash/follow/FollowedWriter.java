package io.walden.crash.follow;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.crash.ChildBackends;
import io.walden.crash.MixedAppend;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.FileReads;
import io.walden.testing.TestRecords;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The writer that {@link LiveFollowerTest} follows from another JVM. It opens a new log with small
 * segments, so that it rolls every few hundred records, and for a given time appends tagged records
 * ({@link TestRecords#tagged}) from a few threads with mixed durability (SYNCED, WRITTEN, BUFFERED, and
 * BUFFERED followed by an await). A housekeeping thread meanwhile
 *
 * <ul>
 *   <li>deletes old segments with {@code truncateBefore}, up to the position the test confirmed its
 *       followers have read ({@link FollowControl}): retention runs right behind the followers but
 *       never ahead of them, so a follower that misses a record cannot blame retention;
 *   <li>now and then opens a <em>quiet window</em> (below), which lets the test check that a durable
 *       follower never sees a record the writer has not made durable.
 * </ul>
 *
 * <p>Quiet window: with every appender held off (a write lock), the writer syncs; its durable position
 * {@code D} then equals its tail, and no sync can start again until something asks for one: the log is
 * configured without a background sync interval, so a sync starts only when an append or {@code sync}
 * asks for one, at a roll (the fence), once a quarter segment is unsynced, or when a write would pass
 * the segment's durable write limit. The window's appends are WRITTEN only and stay below a quarter
 * segment past {@code D}, the segment's end and the write limit its header records after that sync. So while the
 * window is open the writer's durable position is at most {@code D} (plus a segment header, if {@code
 * D} lies on a segment boundary and the roll is still to come), and the writer publishes that bound in
 * the control file for as long as the window is open. A follower that hands out a record at or beyond
 * the bound while the bound is published claims durable what is not.
 *
 * <p>It reports on standard output, one line per event:
 *
 * <pre>
 *   R start tail                  the log is open
 *   A writer seq lsn level        append of record (writer, seq) returned LSN lsn at level B, W or S
 *                                 (writers 0..threads-1 are the appenders, writer "threads" the
 *                                 housekeeping thread's quiet-window appends)
 *   T lsn deleted                 truncateBefore(lsn) returned, having deleted that many segments
 *   Q bound records               a quiet window with that bound closed after that many appends
 *   C tail                        the log was closed cleanly; the child exits with status 0
 *   E text                        unexpected failure; the child exits with status 2
 * </pre>
 *
 * <p>Arguments: log directory, backend ({@code nio} or {@code uring}), control file, appender thread
 * count, run time in milliseconds, random seed.
 *
 * <p><b>Threading:</b> the appender threads and the housekeeping thread share the log and the output
 * stream (writes to it are serialised on the stream).
 */
public final class FollowedWriter {
    /** Segment capacity: small, so that the log rolls every few hundred records. */
    static final int SEGMENT_CAPACITY_BYTES = 128 * 1024;
    /** Largest record appended. */
    static final int MAX_RECORD_BYTES = 8 * 1024;
    /** Exit status of a child that failed by itself. */
    static final int EXIT_FAILED = 2;

    private static final int BUFFER_CAPACITY_BYTES = 64 * 1024;
    private static final long HOUSEKEEPING_PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long QUIET_WINDOW_EVERY_NS = TimeUnit.MILLISECONDS.toNanos(150);
    private static final long QUIET_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(40);
    private static final long QUIET_APPEND_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    // Room kept free below the background-sync threshold and the segment's end in a quiet window.
    private static final int QUIET_MARGIN_BYTES = 8 * 1024;
    private static final int QUIET_MIN_BYTES = 4 * 1024;
    // Appenders pause up to this long between appends, which keeps the log at a few MB/s.
    private static final int APPEND_PAUSE_NS_MAX = 600_000;

    private static final OutputStream OUT =
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 64 * 1024);

    private final Wal wal;
    private final FollowControl control;
    private final int threadCount;
    private final long seed;
    private final long deadlineNs;
    // Appenders hold it shared around each append (and await); a quiet window holds it exclusively.
    private final ReentrantReadWriteLock quiet = new ReentrantReadWriteLock();

    private FollowedWriter(
            final Wal wal, final FollowControl control, final int threadCount, final long seed, final long runNs) {
        this.wal = wal;
        this.control = control;
        this.threadCount = threadCount;
        this.seed = seed;
        this.deadlineNs = System.nanoTime() + runNs;
    }

    /**
     * Runs the writer.
     *
     * @param args directory, backend, control file, thread count, run time in ms, seed.
     */
    public static void main(final String[] args) {
        try {
            final Path directory = Path.of(args[0]);
            final String backendName = args[1];
            final Path controlFile = Path.of(args[2]);
            final int threadCount = Integer.parseInt(args[3]);
            final long runNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
            final long seed = Long.parseLong(args[5]);
            try (FollowControl control = FollowControl.open(controlFile)) {
                final Wal wal = Wal.open(config(directory, backendName));
                write("R " + wal.startPosition() + " " + wal.tailPosition());
                flush();
                new FollowedWriter(wal, control, threadCount, seed, runNs).run();
                final long tail = wal.tailPosition();
                wal.close();
                write("C " + tail);
                flush();
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
        System.exit(0);
    }

    /**
     * The configuration of the followed log: small segments and buffer, no background sync interval
     * (see the quiet window).
     *
     * @param directory the log directory.
     * @param backendName {@code nio} or {@code uring}.
     * @return the configuration.
     */
    static WalConfig config(final Path directory, final String backendName) {
        return WalConfig.builder(directory)
                .backend(ChildBackends.named(backendName))
                .segmentCapacityBytes(SEGMENT_CAPACITY_BYTES)
                .bufferCapacityBytes(BUFFER_CAPACITY_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .syncIntervalNs(0)
                // The quiet windows need a durable position that moves only when something asks for a
                // sync; in a recycled segment a write that reaches the write limit syncs by itself (the
                // raised limit must be durable first). RecyclingContractTest follows recycled segments
                // with a read-only view instead.
                .recycledSegmentsMax(0)
                .build();
    }

    /**
     * The base position of the segment holding a position.
     *
     * @param position a log position.
     * @return the segment's base position.
     */
    static long segmentBase(final long position) {
        return position & -(long) SEGMENT_CAPACITY_BYTES;
    }

    private void run() throws InterruptedException {
        final Thread[] threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            final int writer = i;
            threads[i] = new Thread(() -> appendLoop(writer), "followed-appender-" + i);
            threads[i].start();
        }
        final Thread housekeeping = new Thread(this::housekeepingLoop, "followed-housekeeping");
        housekeeping.start();
        for (final Thread thread : threads) {
            thread.join();
        }
        housekeeping.join();
    }

    private void appendLoop(final int writer) {
        final SplittableRandom random = new SplittableRandom(seed * 31 + writer);
        try {
            for (int seq = 0; System.nanoTime() - deadlineNs < 0; seq++) {
                final byte[] payload = TestRecords.tagged(writer, seq, recordLength(random));
                final int choice = random.nextInt(100);
                final MixedAppend appended;
                quiet.readLock().lock();
                try {
                    appended = MixedAppend.append(wal, payload, choice, 30, 65, 90, random);
                } finally {
                    quiet.readLock().unlock();
                }
                write("A " + writer + " " + seq + " " + appended.lsn() + " " + appended.level());
                LockSupport.parkNanos(random.nextInt(APPEND_PAUSE_NS_MAX));
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    private void housekeepingLoop() {
        final SplittableRandom random = new SplittableRandom(seed * 31 + threadCount);
        final int[] quietSeq = {0};
        long nextQuietNs = System.nanoTime() + QUIET_WINDOW_EVERY_NS;
        try {
            while (System.nanoTime() - deadlineNs < 0) {
                LockSupport.parkNanos(HOUSEKEEPING_PERIOD_NS);
                final long confirmed = control.confirmedPosition();
                if (segmentBase(confirmed) > wal.startPosition()) {
                    final long deleted = wal.truncateBefore(confirmed);
                    write("T " + confirmed + " " + deleted);
                }
                if (System.nanoTime() - nextQuietNs >= 0) {
                    quietWindow(random, quietSeq);
                    nextQuietNs = System.nanoTime() + QUIET_WINDOW_EVERY_NS;
                }
                flush();
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    /** Appends WRITTEN records while the writer's durable position stands still; see the class comment. */
    private void quietWindow(final SplittableRandom random, final int[] quietSeq) throws IOException {
        quiet.writeLock().lock();
        try {
            wal.sync();
            long bound = wal.durablePosition();
            if (bound < wal.tailPosition()) {
                throw new IllegalStateException(
                        "durable position " + bound + " below the tail " + wal.tailPosition() + " after sync");
            }
            if ((bound & (SEGMENT_CAPACITY_BYTES - 1)) == 0) {
                // The segment is full: its roll, still to come, makes the new header durable.
                bound += SegmentHeaderDescriptor.HEADER_LENGTH;
            }
            final long limit = Math.min(
                    Math.min(
                            bound + SEGMENT_CAPACITY_BYTES / 4 - QUIET_MARGIN_BYTES,
                            segmentBase(bound) + SEGMENT_CAPACITY_BYTES - QUIET_MARGIN_BYTES),
                    segmentBase(bound) + writeLimitOffset(segmentBase(bound)) - QUIET_MARGIN_BYTES);
            int records = 0;
            if (limit - bound >= QUIET_MIN_BYTES) {
                final int writer = threadCount;
                final long endNs = System.nanoTime() + QUIET_WINDOW_NS;
                control.publishQuietBound(bound);
                try {
                    while (System.nanoTime() - endNs < 0) {
                        final int length = TestRecords.TAG_LENGTH + random.nextInt(600);
                        if (wal.tailPosition() + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length))
                                > limit) {
                            break;
                        }
                        final long lsn =
                                wal.append(TestRecords.tagged(writer, quietSeq[0], length), Durability.WRITTEN);
                        write("A " + writer + " " + quietSeq[0] + " " + lsn + " W");
                        quietSeq[0]++;
                        records++;
                        LockSupport.parkNanos(QUIET_APPEND_PAUSE_NS);
                    }
                } finally {
                    control.publishQuietBound(FollowControl.NO_QUIET_WINDOW);
                }
            }
            write("Q " + bound + " " + records);
        } finally {
            quiet.writeLock().unlock();
        }
    }

    /** The write limit the segment's header records (the segment's end if none): a write past it waits for a sync. */
    private int writeLimitOffset(final long base) throws IOException {
        final ByteBuffer header =
                FileReads.readHeader(SegmentNames.segmentPath(wal.config().directory(), base));
        final int limit = header == null ? 0 : SegmentHeaderDecoder.writeLimitOffset(header);
        return limit == 0 ? SEGMENT_CAPACITY_BYTES : limit;
    }

    private static int recordLength(final SplittableRandom random) {
        final int kind = random.nextInt(100);
        if (kind < 70) {
            return TestRecords.TAG_LENGTH + random.nextInt(300);
        }
        if (kind < 95) {
            return TestRecords.TAG_LENGTH + random.nextInt(2000);
        }
        return TestRecords.TAG_LENGTH + random.nextInt(MAX_RECORD_BYTES - TestRecords.TAG_LENGTH + 1);
    }

    private static void write(final String line) throws IOException {
        final byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
        synchronized (OUT) {
            OUT.write(bytes);
        }
    }

    private static void flush() throws IOException {
        synchronized (OUT) {
            OUT.flush();
        }
    }

    private static void fail(final Throwable ex) {
        try {
            ex.printStackTrace();
            final String text = String.valueOf(ex).replace('\n', ' ');
            write("E " + (text.length() > 400 ? text.substring(0, 400) : text));
            flush();
        } catch (final IOException ignored) {
            // The parent is gone (broken pipe); nothing is left to tell.
        } finally {
            Runtime.getRuntime().halt(EXIT_FAILED);
        }
    }
}
