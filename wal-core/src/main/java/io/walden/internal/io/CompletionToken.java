package io.walden.internal.io;

/**
 * Layout of the 64-bit token the write path hands the storage session with each operation and gets
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
 * <p>T (writes only) is set on the part of a direct write that rewrites the partial last block from
 * scratch memory ({@link #WRITE_TAIL}); Slot (writes only) names the write in flight (see {@code
 * WriteStage}). Every other bit is zero: one operation of each other kind is in flight at a time.
 *
 * <p><b>Threading:</b> stateless; any thread.
 */
final class CompletionToken {
    static final int KIND_SHIFT = 56;
    static final long WRITE = 1;
    static final long SYNC = 2;
    static final long PREPARE = 3;
    static final long TRUNCATE = 4;
    /** The durability mark's header write (any header write of the active segment). */
    static final long MARK = 5;

    static final long WRITE_TAIL = 1;

    static final int WRITE_SLOT_SHIFT = 1;
    static final int WRITE_SLOTS = 64;

    private static final long WRITE_SLOT_MASK = WRITE_SLOTS - 1;

    private CompletionToken() {}

    /** The token of a write in a slot (the part from the log buffer; the tail part adds {@link #WRITE_TAIL}). */
    static long ofWrite(final int slot) {
        return of(WRITE) | ((long) slot << WRITE_SLOT_SHIFT);
    }

    static int writeSlot(final long token) {
        return (int) ((token >>> WRITE_SLOT_SHIFT) & WRITE_SLOT_MASK);
    }

    static long of(final long kind) {
        return kind << KIND_SHIFT;
    }

    static long kind(final long token) {
        return token >>> KIND_SHIFT;
    }

    static boolean isWriteTail(final long token) {
        return (token & WRITE_TAIL) != 0;
    }
}
