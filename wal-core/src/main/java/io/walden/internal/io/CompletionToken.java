package io.walden.internal.io;

/**
 * Layout of the 64-bit token the I/O thread hands the storage session with each operation and gets
 * back with its completion: which stage the completion belongs to, and for a write, which part.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Zero (bits 7 to 31)             |   Slot    |T|  0
 *  +---------------------------------------------------------------+
 *  |              Zero (bits 32 to 55)             |     Kind      |  32
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>Kind (bits 56 to 63): {@link #WRITE}, {@link #SYNC}, {@link #PREPARE} (segment preparation),
 *       {@link #TRUNCATE} (segment deletes), {@link #MARK} (the durability mark's header write).
 *   <li>T (bit 0, writes only): set on the part of a direct write that rewrites the partial last block
 *       from scratch memory ({@link #WRITE_TAIL}); clear on the part written from the log buffer.
 *   <li>Slot (bits 1 to 6, writes only): which of the writes in flight (up to {@link #WRITE_SLOTS},
 *       see {@code WriteStage}) the completion belongs to.
 *   <li>Every other bit is zero: one operation of each other kind is in flight at a time, so the
 *       token needs to say nothing else.
 * </ul>
 *
 * <p><b>Threading:</b> stateless; any thread.
 */
final class CompletionToken {
    /** Bits the kind is shifted by. */
    static final int KIND_SHIFT = 56;
    /** A write of frames. */
    static final long WRITE = 1;
    /** A data sync. */
    static final long SYNC = 2;
    /** A step of segment preparation. */
    static final long PREPARE = 3;
    /** A step of segment deletion (truncateBefore, retention). */
    static final long TRUNCATE = 4;
    /** The durability mark's header write. */
    static final long MARK = 5;
    /** The low bit of a write's token: the part that rewrites the partial last block (direct I/O). */
    static final long WRITE_TAIL = 1;

    /** Bits a write's slot is shifted by. */
    static final int WRITE_SLOT_SHIFT = 1;
    /** How many writes the slot bits can name. */
    static final int WRITE_SLOTS = 64;

    private static final long WRITE_SLOT_MASK = WRITE_SLOTS - 1;

    private CompletionToken() {}

    /**
     * The token of a write in a slot (its part from the log buffer; the tail part adds {@link
     * #WRITE_TAIL}).
     */
    static long ofWrite(final int slot) {
        return of(WRITE) | ((long) slot << WRITE_SLOT_SHIFT);
    }

    /** The slot of a write's token. */
    static int writeSlot(final long token) {
        return (int) ((token >>> WRITE_SLOT_SHIFT) & WRITE_SLOT_MASK);
    }

    /** The token of an operation of a kind. */
    static long of(final long kind) {
        return kind << KIND_SHIFT;
    }

    /** The kind of a token. */
    static long kind(final long token) {
        return token >>> KIND_SHIFT;
    }

    /** Whether a write's token is that of its tail part. */
    static boolean isWriteTail(final long token) {
        return (token & WRITE_TAIL) != 0;
    }
}
