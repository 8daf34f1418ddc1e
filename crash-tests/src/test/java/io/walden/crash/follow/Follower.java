package io.walden.crash.follow;

import io.walden.Durability;
import io.walden.WalReader;
import io.walden.WalView;
import io.walden.testing.TestRecords;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A reader of a {@link WalView} on its own thread, following the live log with {@code poll(handler,
 * limit, timeout)} and checking each record as it is handed out: strictly increasing LSNs (so none
 * twice), the payload intact ({@link TestRecords#verify}), and for a durable ({@link Durability#SYNCED})
 * follower, never a record at or beyond the writer's published quiet-window bound while it is published
 * ({@link FollowedWriter}). After each poll it reports its position to the retention {@link Holds}.
 *
 * <p>It stops once it has read up to a target set after the writer closed, with one more poll that must
 * deliver nothing, or when asked to abort.
 *
 * <p><b>Threading:</b> runs on its own thread; the test thread reads the results after joining it.
 */
final class Follower implements Runnable {
    private static final int POLL_LIMIT = 256;
    private static final long POLL_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String name;
    private final WalView view;
    private final Durability visibility;
    private final FollowControl control;
    private final Holds holds;
    private final int holdIndex;
    private final LongSupplier startPosition;
    private final WriterLedger.Records seen = new WriterLedger.Records();
    private volatile long target = Long.MAX_VALUE;
    private volatile boolean abort;
    private volatile long position = -1;
    // Written by the follower thread; read after the join.
    private long firstPosition = -1;
    private long lastLsn = -1;
    private long beyondQuietBound;
    private long quietChecks;
    private long polls;
    private Throwable failure;

    /**
     * Creates a follower.
     *
     * @param name for messages.
     * @param view the view to read.
     * @param visibility WRITTEN or SYNCED.
     * @param control the control file shared with the writer.
     * @param holds retention holds, where it reports its position.
     * @param holdIndex its hold.
     * @param startPosition where it starts, asked when the thread starts.
     */
    Follower(
            final String name,
            final WalView view,
            final Durability visibility,
            final FollowControl control,
            final Holds holds,
            final int holdIndex,
            final LongSupplier startPosition) {
        this.name = name;
        this.view = view;
        this.visibility = visibility;
        this.control = control;
        this.holds = holds;
        this.holdIndex = holdIndex;
        this.startPosition = startPosition;
    }

    @Override
    public void run() {
        try {
            firstPosition = startPosition.getAsLong();
            try (WalReader reader = view.reader(firstPosition, visibility)) {
                position = reader.position();
                while (!abort) {
                    final int count = reader.poll(this::onRecord, POLL_LIMIT, POLL_TIMEOUT_NS);
                    polls++;
                    position = reader.position();
                    holds.update(holdIndex, position);
                    if (count > 0) {
                        checkPositionVisible(reader.position());
                    }
                    if (lastLsn >= target) {
                        final int extra = reader.poll(this::onRecord, POLL_LIMIT, 0);
                        if (extra != 0) {
                            throw new AssertionError(
                                    name + " delivered " + extra + " record(s) beyond the writer's last record");
                        }
                        break;
                    }
                }
            }
        } catch (final Throwable ex) {
            failure = ex;
        }
    }

    private void onRecord(final org.agrona.DirectBuffer buffer, final int offset, final int length, final long lsn) {
        if (lsn <= lastLsn) {
            throw new AssertionError(name + " delivered LSN " + lsn + " after LSN " + lastLsn);
        }
        final long bound = control.quietBound();
        if (bound != FollowControl.NO_QUIET_WINDOW) {
            quietChecks++;
            if (lsn >= bound) {
                if (visibility == Durability.SYNCED) {
                    throw new AssertionError(name + " handed out the record at LSN " + lsn
                            + " while the writer's durable position was at most " + bound
                            + " (a quiet window was open): it claims durable what is not");
                }
                beyondQuietBound++;
            }
        }
        final byte[] payload = new byte[length];
        buffer.getBytes(offset, payload);
        final TestRecords.Tag tag = TestRecords.verify(payload);
        seen.add(lsn, WriterLedger.tag(tag.writer(), tag.sequence()));
        lastLsn = lsn;
    }

    /** The reader never gets ahead of what its view says is visible now. */
    private void checkPositionVisible(final long readerPosition) {
        final long visible = visibility == Durability.SYNCED ? view.durablePosition() : view.writtenPosition();
        if (readerPosition > visible) {
            throw new AssertionError(name + " read up to " + readerPosition + " while its view shows " + visibility
                    + " records only up to " + visible);
        }
    }

    /**
     * Sets the last record to read: the follower stops after it.
     *
     * @param lastLsn the writer's last record's LSN.
     */
    void stopAfter(final long lastLsn) {
        target = lastLsn;
    }

    /** Stops the follower at its next poll. */
    void abort() {
        abort = true;
    }

    /** @return its reader's position after the last poll, or -1 before the first. */
    long position() {
        return position;
    }

    /** @return its name. */
    String name() {
        return name;
    }

    /** @return the records it read, in order. */
    WriterLedger.Records seen() {
        return seen;
    }

    /** @return where it started. */
    long firstPosition() {
        return firstPosition;
    }

    /** @return records it read while a quiet window was open. */
    long quietChecks() {
        return quietChecks;
    }

    /** @return records it read at or beyond an open quiet window's bound (WRITTEN only). */
    long beyondQuietBound() {
        return beyondQuietBound;
    }

    /** @return polls made. */
    long polls() {
        return polls;
    }

    /** @return what ended it abnormally, or null. */
    Throwable failure() {
        return failure;
    }
}
