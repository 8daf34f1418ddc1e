package io.walden.jraft;

import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The bytes of a Raft entry as a {@link WaldenGroupLogStorage} stores it in its group: a small header
 * that opening a view reads without decoding the entry (its term and whether it is a configuration
 * entry), then the entry as the node's codec encodes it. Little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  | Version (int8)|  Type (int8)  |          Zero (6 bytes)       |  0
 *  +---------------+---------------+                               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          Term (int64)                         |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |              Entry, as the options' codec encodes it ...      |  16
 * </pre>
 *
 * Version is {@value #VERSION}; a view refuses to open a group holding another (a later adapter wrote
 * it). Type is the entry's jraft {@code EntryType} number.
 */
final class RaftEntryHeader {
    /** The layout's version. */
    static final byte VERSION = 1;

    static final int VERSION_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int TERM_OFFSET = 8;
    /** The header's length: the encoded entry starts here. */
    static final int LENGTH = 16;

    private RaftEntryHeader() {}

    /** Writes a header at an offset. */
    static void put(final MutableDirectBuffer buffer, final int offset, final EntryType type, final long term) {
        buffer.putLong(offset + VERSION_OFFSET, 0);
        buffer.putByte(offset + VERSION_OFFSET, VERSION);
        buffer.putByte(offset + TYPE_OFFSET, (byte) type.getNumber());
        buffer.putLong(offset + TERM_OFFSET, term, ByteOrder.LITTLE_ENDIAN);
    }

    static byte version(final DirectBuffer buffer, final int offset) {
        return buffer.getByte(offset + VERSION_OFFSET);
    }

    static long term(final DirectBuffer buffer, final int offset) {
        return buffer.getLong(offset + TERM_OFFSET, ByteOrder.LITTLE_ENDIAN);
    }

    static boolean isConfiguration(final DirectBuffer buffer, final int offset) {
        return buffer.getByte(offset + TYPE_OFFSET) == EntryType.ENTRY_TYPE_CONFIGURATION_VALUE;
    }
}
