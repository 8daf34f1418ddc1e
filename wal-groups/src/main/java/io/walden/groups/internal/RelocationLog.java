package io.walden.groups.internal;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.groups.EntryHandler;
import io.walden.groups.RelocatedRecordDescriptor;
import java.nio.file.Files;
import org.agrona.CloseHelper;

/**
 * The second Walden log of a group log: the live entries purge moves out of the main log's oldest
 * segments, each once, and the records that later dropped such entries ({@link
 * RelocatedRecordDescriptor}). Entries of groups that never truncate are thus copied once rather than
 * at every turn of the main log. Opened when the group log opens if its directory exists, else at the
 * first relocation: a group log that never relocates has no second log, thread or buffer.
 *
 * <p><b>Threading:</b> written only by the purger (under its lock); read by any thread once open. The
 * log and its readers are published through a volatile field.
 */
public final class RelocationLog implements AutoCloseable {
    private final WalConfig config;
    private final int readerCount;
    // Set once, by the opening or the purger's thread; read by every reader.
    private volatile Opened opened;
    private boolean closed;

    private record Opened(Wal wal, ReaderPool readers) {}

    public RelocationLog(final WalConfig config, final int readerCount) {
        this.config = config;
        this.readerCount = readerCount;
    }

    /** Opens the log if its directory holds one; false if there is none yet. */
    public synchronized boolean openIfPresent() {
        if (opened == null && Files.isDirectory(config.directory())) {
            open();
        }
        return opened != null;
    }

    /** The log, opened (and created) if it was not. */
    public synchronized Wal wal() {
        if (opened == null) {
            open();
        }
        return opened.wal();
    }

    /** Whether the log is open. */
    public boolean isOpen() {
        return opened != null;
    }

    /** Appends copies built with {@link RelocatedRecordDescriptor}'s header, unsynced. */
    public void append(final WalBatch copies) {
        wal().append(copies, Durability.BUFFERED);
    }

    /** Waits until every copy up to {@code position} is durable. */
    public void awaitSynced(final long position) {
        wal().await(position, Durability.SYNCED);
    }

    /** Reads the record at a relocation log position; false if none is there. */
    public boolean read(final long position, final ReaderPool.RecordVisitor visitor) {
        return opened.readers().read(position, visitor);
    }

    /** Reads the entry a relocated position ({@link LogPlaces}) holds, waiting until it is written. */
    public boolean readEntry(final long lsn, final long groupId, final long index, final EntryHandler handler) {
        final Opened log = opened;
        final long position = LogPlaces.positionOf(lsn);
        if (position >= log.wal().writtenPosition()) {
            log.wal().await(position, Durability.WRITTEN);
        }
        return log.readers().readEntry(position, groupId, index, handler);
    }

    /** Frees the segments below {@code position}; returns how many. */
    public long truncateBefore(final long position) {
        return opened == null ? 0 : opened.wal().truncateBefore(position);
    }

    /** Whether {@link #truncateBefore} at {@code position} would free a segment. */
    public boolean wouldFree(final long position) {
        final Opened log = opened;
        if (log == null) {
            return false;
        }
        final long segmentBytes = log.wal().config().segmentCapacityBytes();
        return position - Math.floorMod(position, segmentBytes) > log.wal().startPosition();
    }

    public long startPosition() {
        return opened.wal().startPosition();
    }

    public long tailPosition() {
        return opened.wal().tailPosition();
    }

    /** The bytes the log spans, from its start to its tail; 0 if it does not exist. */
    public long spanBytes() {
        final Opened log = opened;
        return log == null ? 0 : log.wal().tailPosition() - log.wal().startPosition();
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("the relocation log is closed");
        }
        final Wal wal = Wal.open(config);
        try {
            opened = new Opened(wal, new ReaderPool(wal, readerCount, RelocatedRecordDescriptor.HEADER_LENGTH));
        } catch (final RuntimeException ex) {
            CloseHelper.quietClose(wal);
            throw ex;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        final Opened log = opened;
        if (log != null) {
            CloseHelper.closeAll(log.readers(), log.wal());
        }
    }
}
