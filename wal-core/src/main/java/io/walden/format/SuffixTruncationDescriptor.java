package io.walden.format;

/**
 * Layout of the suffix-truncation record, the file {@link #FILE_NAME} that {@code Wal.truncateAfter}
 * writes, durably, before it changes any segment, and that recovery completes and deletes. While it
 * exists, every position from the cut position up to the continue position is discarded, whatever
 * the segments there still hold: a crash at any step of the truncation therefore leaves either the old
 * log (the record was not yet durable) or the new one (recovery finishes the job), never a mix.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Magic "WALDNCUT" (int64, LE)                  |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Version (int32, LE) = 1                       |  8
 *  +---------------------------------------------------------------+
 *  |                 Reserved, zero (int32)                        |  12
 *  +---------------------------------------------------------------+
 *  |                 Log Identity (int64, LE)                      |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Cut Position (int64, LE)                      |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Continue Position (int64, LE)                 |  32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Checksum (CRC32C of bytes 0..39)              |  40
 *  +---------------------------------------------------------------+
 *  |                 Zero up to byte 4095                          |  44
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The <em>cut position</em> is where the kept records end: the aligned end of the last kept record's
 * frame, or the oldest segment's first frame position when none is kept. The <em>continue position</em>
 * is the base of the segment after the highest one the log had, so that no position a reader may have
 * seen is given to another record. The file is one 4 KiB block, written under {@link #TEMPORARY_NAME},
 * synced and renamed into place, so it is either absent or whole.
 */
public final class SuffixTruncationDescriptor {
    /** The name of the record in the log directory. */
    public static final String FILE_NAME = "suffix-truncation.walden";
    /** The name it is written under before it is renamed into place; recovery deletes a leftover one. */
    public static final String TEMPORARY_NAME = FILE_NAME + ".tmp";
    /** "WALDNCUT" read as a little-endian int64. */
    public static final long MAGIC = 0x5455434E444C4157L;
    /** The version this code writes and reads. */
    public static final int VERSION = 1;
    /** Length of the file. */
    public static final int LENGTH = 4096;

    /** Offset of the int64 magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the int32 version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the reserved int32, zero. */
    public static final int RESERVED_OFFSET = 12;
    /** Offset of the int64 identity of the log. */
    public static final int LOG_ID_OFFSET = 16;
    /** Offset of the int64 cut position. */
    public static final int CUT_POSITION_OFFSET = 24;
    /** Offset of the int64 continue position. */
    public static final int CONTINUE_POSITION_OFFSET = 32;
    /** Offset of the int32 CRC32C of bytes 0 to {@link #CHECKSUMMED_LENGTH}. */
    public static final int CHECKSUM_OFFSET = 40;
    /** How many leading bytes the checksum covers. */
    public static final int CHECKSUMMED_LENGTH = CHECKSUM_OFFSET;
    /** Offset of the zero bytes that fill the rest of the file. */
    public static final int ZERO_FROM_OFFSET = 44;

    private SuffixTruncationDescriptor() {}
}
