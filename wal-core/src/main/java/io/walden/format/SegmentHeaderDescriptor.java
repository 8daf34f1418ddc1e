package io.walden.format;

/**
 * Layout of the segment header, the first {@link #HEADER_LENGTH} bytes of every segment file.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Magic "WALDNSEG" (int64, LE)                  |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Format Version (int32, LE)                    |  8
 *  +---------------------------------------------------------------+
 *  |                 Header Length (int32, LE) = 4096              |  12
 *  +---------------------------------------------------------------+
 *  |                 Segment Capacity Bytes (int64, LE)            |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Base Position (int64, LE)                     |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Log Identity (int64, LE)                      |  32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Frame Alignment (int32, LE) = 8               |  40
 *  +---------------------------------------------------------------+
 *  |                 Flags (int32, LE)                             |  44
 *  +---------------------------------------------------------------+
 *  |                 Durable Position (int64, LE)                  |  48
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Write Limit (int32, LE)                       |  56
 *  +---------------------------------------------------------------+
 *  |                 Header Checksum (CRC32C of bytes 0..59)       |  60
 *  +---------------------------------------------------------------+
 *  |                 Zero up to byte 4095                          |  64
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The header fills one 4 KiB block so that O_DIRECT writes of frames never rewrite it. It is made
 * durable before the segment is renamed into place, so a file with a segment name always has a valid
 * header, or it is corrupt. While its segment is the one being written, the header is rewritten in
 * place to record what recovery cannot learn from the frames alone:
 *
 * <ul>
 *   <li>The <em>durable position</em>: every position of this segment below it had been synced when the
 *       header was written (zero: nothing recorded). The writer records it when the log goes idle after
 *       a sync (a durability mark), because no later frame proves the frames synced last.
 *   <li>{@link #FLAG_CLOSED_CLEANLY}: the session closed the log cleanly at the durable position: every
 *       frame before it was synced before the flag was written, and every byte after it is zero.
 *       Opening such a log clears the flag (and syncs) before the first new frame is written.
 *   <li>The <em>write limit</em>: an offset in this segment, a multiple of 4096, at or past which no
 *       frame byte had been written when the header was written (zero: none recorded). The writer
 *       raises it, durably, before it writes past it; after a crash the log continues at the limit in
 *       the same segment, since no position there can have been seen by a reader.
 *   <li>{@link #FLAG_CONTINUED}: the log went on into the next segment, set durably before the next
 *       segment's first byte is written; a missing next segment was lost, and recovery refuses the log
 *       naming it.
 *   <li>{@link #FLAG_RECYCLED}: the file held an earlier segment of the log and was not zero-filled
 *       again; its bytes at or past the write limit, which such a segment always records, are stale and
 *       read as zeros. A clean close zeroes the rest of its last block and lowers the limit to that
 *       block's end (FORMAT.md, "Recycled segments").
 * </ul>
 *
 * <p>A rewrite changes only bytes 44 to 63, inside the first 512-byte sector, so a power loss during it
 * leaves the old or the new header, each valid.
 */
public final class SegmentHeaderDescriptor {
    /** "WALDNSEG" read as a little-endian int64. */
    public static final long MAGIC = 0x4745534E444C4157L;
    /** The format version this code writes and reads. */
    public static final int FORMAT_VERSION = 3;

    /** Offset of the int64 magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the int32 format version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the int32 header length. */
    public static final int HEADER_LENGTH_OFFSET = 12;
    /** Offset of the int64 segment capacity in bytes, header included. */
    public static final int CAPACITY_OFFSET = 16;
    /** Offset of the int64 log position of the segment's first byte. */
    public static final int BASE_POSITION_OFFSET = 24;
    /** Offset of the int64 identity of the log the segment belongs to. */
    public static final int LOG_ID_OFFSET = 32;
    /** Offset of the int32 frame alignment. */
    public static final int FRAME_ALIGNMENT_OFFSET = 40;
    /** Offset of the int32 flags: {@link #KNOWN_FLAGS} or fewer. */
    public static final int FLAGS_OFFSET = 44;
    /** Offset of the int64 durable position; with {@link #FLAG_CLOSED_CLEANLY}, also where the log ended. */
    public static final int DURABLE_POSITION_OFFSET = 48;
    /** Offset of the int32 write limit: 0, or a multiple of 4096 from the header's end to the capacity. */
    public static final int WRITE_LIMIT_OFFSET = 56;
    /** Offset of the int32 CRC32C over bytes [0, 60). */
    public static final int HEADER_CHECKSUM_OFFSET = 60;
    /** Bytes covered by the header checksum. */
    public static final int CHECKSUMMED_LENGTH = HEADER_CHECKSUM_OFFSET;
    /** Length of the header; the first frame starts here. */
    public static final int HEADER_LENGTH = 4096;

    /** Flag: the log was closed cleanly at the durable position, which lies in this segment. */
    public static final int FLAG_CLOSED_CLEANLY = 1;
    /** Flag: the log went on into the next segment, whose file must therefore exist. */
    public static final int FLAG_CONTINUED = 2;
    /** Flag: the file is recycled; bytes at or past the write limit are stale and read as zeros. */
    public static final int FLAG_RECYCLED = 4;
    /** Every flag this format defines. */
    public static final int KNOWN_FLAGS = FLAG_CLOSED_CLEANLY | FLAG_CONTINUED | FLAG_RECYCLED;
    /** The write limit is a multiple of this: one block, so that O_DIRECT writes never straddle it. */
    public static final int WRITE_LIMIT_ALIGNMENT = 4096;

    static {
        if (HEADER_LENGTH % FrameDescriptor.FRAME_ALIGNMENT != 0
                || HEADER_CHECKSUM_OFFSET + 4 > HEADER_LENGTH
                || WRITE_LIMIT_OFFSET + 4 != HEADER_CHECKSUM_OFFSET
                || HEADER_CHECKSUM_OFFSET + 4 > 512
                || HEADER_LENGTH % WRITE_LIMIT_ALIGNMENT != 0) {
            throw new ExceptionInInitializerError("segment header layout constants are inconsistent");
        }
    }

    private SegmentHeaderDescriptor() {}
}
