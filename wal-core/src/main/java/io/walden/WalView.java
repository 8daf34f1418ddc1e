package io.walden;

import io.walden.codec.RecordCodec;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.read.DirectoryTracker;
import io.walden.internal.read.LogReader;
import io.walden.internal.recovery.LiveInspection;
import java.nio.file.Path;
import java.util.List;

/**
 * A read-only view of a log, which another process may be writing: readers follow it as it grows,
 * and nothing in its directory is ever changed. Opened with {@link Wal#openReadOnly(Path)}.
 *
 * <p>What is visible: with {@link Durability#WRITTEN}, every record up to the last valid frame written
 * so far; with {@link Durability#SYNCED}, every record below the highest position that valid frames or
 * the segment header prove durable (the newest records once a later frame, a durability mark or a roll
 * proves them). Every frame is validated before it is handed out. Segment rolls and retention are
 * followed; a frame that does not validate before a later segment that holds data is reported as {@link
 * WalCorruptionException} to the readers that reach it, while a write in progress simply is not visible
 * yet.
 *
 * <p>No lock is taken: any number of views, in any processes, may follow one log beside its writer.
 * {@link #inspect()} checks the whole log as opening would.
 *
 * <p><b>Threading:</b> thread-safe; each {@link WalReader} is for one thread.
 */
public final class WalView implements AutoCloseable {
    private static final int READ_BUFFER_RECORD_BYTES = WalConfig.MAX_RECORD_BYTES_DEFAULT;

    private final Path directory;
    private final DirectoryTracker tracker;
    private final CodecTable codecs;
    private volatile boolean closed;

    private WalView(final Path directory, final DirectoryTracker tracker, final CodecTable codecs) {
        this.directory = directory;
        this.tracker = tracker;
        this.codecs = codecs;
    }

    static WalView open(final Path directory, final List<RecordCodec> codecs) {
        return new WalView(
                directory,
                DirectoryTracker.open(directory),
                CodecTable.discovered().with(codecs));
    }

    /**
     * Opens a reader that sees durable records.
     *
     * @param fromLsn the first record to read, or {@link #startPosition()}.
     * @return the reader; close it when done.
     */
    public WalReader reader(final long fromLsn) {
        return reader(fromLsn, Durability.SYNCED);
    }

    /**
     * Opens a reader.
     *
     * @param fromLsn the first record to read, or {@link #startPosition()}.
     * @param visibility {@link Durability#SYNCED} for durable records, {@link Durability#WRITTEN} for
     *     every record written so far.
     * @return the reader; close it when done.
     * @throws WalException if the position was truncated away, or the view is closed.
     */
    public WalReader reader(final long fromLsn, final Durability visibility) {
        checkOpen();
        return new LogReader(
                new LogReader.Log(directory, tracker.logId(), tracker.capacityBytes(), new long[0], codecs),
                tracker,
                READ_BUFFER_RECORD_BYTES,
                fromLsn,
                visibility);
    }

    /** @return the first position the log holds now (its oldest segment). */
    public long startPosition() {
        return tracker.startPosition();
    }

    /** @return the position after the last valid frame written so far. */
    public long writtenPosition() {
        return tracker.visiblePosition(Durability.WRITTEN);
    }

    /** @return the highest position that the files prove durable. */
    public long durablePosition() {
        return tracker.visiblePosition(Durability.SYNCED);
    }

    /** @return the whole log checked as opening it would, changing nothing: {@link Wal#inspect(Path)}. */
    public LogInspection inspect() {
        return LiveInspection.inspect(directory);
    }

    /** Releases the view's buffer. Readers already opened stay usable until closed. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            tracker.close();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new WalException(WalException.ErrorCode.CLOSED, "the view of " + directory + " is closed");
        }
    }
}
