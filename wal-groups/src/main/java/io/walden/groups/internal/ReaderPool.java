package io.walden.groups.internal;

import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.Wal;
import io.walden.WalReader;
import io.walden.groups.EntryHandler;
import io.walden.groups.GroupRecordDescriptor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;

/**
 * A fixed number of readers shared by every thread that reads one record at a position: a read takes
 * a free reader (or waits for one), seeks it and polls one record. A reader whose window already holds
 * the position reads no file, so reads of recent entries of many groups, which lie near each other,
 * mostly cost a copy-free decode. Memory: the readers' windows, set by the configured count.
 *
 * <p><b>Threading:</b> thread-safe; each reader is guarded by its own lock.
 */
public final class ReaderPool implements AutoCloseable {
    /** Receives the one record read at a position. */
    @FunctionalInterface
    public interface RecordVisitor {
        void onRecord(DirectBuffer buffer, int offset, int length, long lsn);
    }

    /**
     * How long a read waits for the rest of its record's batch: the record is written, but a reader
     * delivers a batch's records only once every frame of it is, and the I/O thread may have written
     * the batch's first frames only. Bounded so that a stalled log cannot hang a read for good.
     */
    static final long BATCH_WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private final Slot[] slots;

    public ReaderPool(final Wal wal, final int readers) {
        this(wal, readers, 0);
    }

    /** Readers of a log whose records hold a group record after {@code prefixBytes} bytes. */
    public ReaderPool(final Wal wal, final int readers, final int prefixBytes) {
        this.slots = new Slot[readers];
        for (int i = 0; i < readers; i++) {
            slots[i] = new Slot(wal.reader(wal.startPosition(), Durability.WRITTEN), prefixBytes);
        }
    }

    /**
     * Reads the record at {@code lsn} (written already) into the visitor; false if the reader found no
     * record there.
     */
    public boolean read(final long lsn, final RecordVisitor visitor) {
        final Slot slot = acquire();
        try {
            return slot.read(lsn, visitor);
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Reads the group record at {@code lsn} (written already) and hands its entry to the handler; false
     * if the reader found no record there. Allocates nothing.
     */
    public boolean readEntry(final long lsn, final long groupId, final long index, final EntryHandler handler) {
        final Slot slot = acquire();
        try {
            return slot.readEntry(lsn, groupId, index, handler);
        } finally {
            slot.lock.unlock();
        }
    }

    private Slot acquire() {
        final int start = (System.identityHashCode(Thread.currentThread()) & Integer.MAX_VALUE) % slots.length;
        for (int i = 0; i < slots.length; i++) {
            final Slot slot = slots[(start + i) % slots.length];
            if (slot.lock.tryLock()) {
                return slot;
            }
        }
        final Slot slot = slots[start];
        slot.lock.lock();
        return slot;
    }

    @Override
    public void close() {
        for (final Slot slot : slots) {
            slot.lock.lock();
            try {
                CloseHelper.quietClose(slot.reader);
            } finally {
                slot.lock.unlock();
            }
        }
    }

    private static final class Slot implements RecordHandler {
        final ReentrantLock lock = new ReentrantLock();
        final WalReader reader;
        private final int entryOffset;
        // Guarded by lock: the read in progress and the position it asked for.
        private RecordVisitor visitor;
        private EntryHandler entryHandler;
        private long groupId;
        private long index;
        private long wanted;
        private boolean found;

        Slot(final WalReader reader, final int prefixBytes) {
            this.reader = reader;
            this.entryOffset = prefixBytes + GroupRecordDescriptor.HEADER_LENGTH;
        }

        boolean read(final long lsn, final RecordVisitor visitor) {
            this.visitor = visitor;
            try {
                return pollAt(lsn);
            } finally {
                this.visitor = null;
            }
        }

        boolean readEntry(final long lsn, final long groupId, final long index, final EntryHandler handler) {
            this.entryHandler = handler;
            this.groupId = groupId;
            this.index = index;
            try {
                return pollAt(lsn);
            } finally {
                this.entryHandler = null;
            }
        }

        private boolean pollAt(final long lsn) {
            wanted = lsn;
            found = false;
            reader.seek(lsn);
            reader.poll(this, 1, BATCH_WAIT_NS);
            return found;
        }

        @Override
        public void onRecord(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
            if (lsn != wanted) {
                return;
            }
            found = true;
            if (entryHandler != null) {
                entryHandler.onEntry(groupId, index, buffer, offset + entryOffset, length - entryOffset);
            } else {
                visitor.onRecord(buffer, offset, length, lsn);
            }
        }
    }
}
