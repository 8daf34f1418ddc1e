package io.walden.groups;

/**
 * The layout of a record in a group log's relocation log ({@link GroupLogConfig#relocationWalConfig()}):
 * the group record it copies, whole, after the position that record has in the main log, little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |          Virtual Position (int64): the original's LSN         |  0
 *  |                     in the group log's main log               |
 *  +---------------------------------------------------------------+
 *  |        Group record ({@link GroupRecordDescriptor}) ...       |  8
 * </pre>
 *
 * Opening replays the relocation log's records in virtual position order, before the main log, as if
 * each stood where its original stood: a copy of an entry that is still live, or of a record that
 * dropped a relocated entry (so the dropped copy cannot come back once the main log frees the
 * original). A record whose virtual position the main log still holds is that record: the main log's
 * replay applies it once, known by its copy.
 */
public final class RelocatedRecordDescriptor {
    /** Offset of the virtual position, int64. */
    public static final int VIRTUAL_POSITION_OFFSET = 0;
    /** The header's length; the group record follows. */
    public static final int HEADER_LENGTH = 8;

    private RelocatedRecordDescriptor() {}
}
