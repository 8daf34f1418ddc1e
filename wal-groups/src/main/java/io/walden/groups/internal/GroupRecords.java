package io.walden.groups.internal;

import static io.walden.groups.GroupRecordDescriptor.ARGUMENT_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.BOUNDS_LENGTH;
import static io.walden.groups.GroupRecordDescriptor.FLAGS_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.GROUP_ID_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.HEADER_LENGTH;
import static io.walden.groups.GroupRecordDescriptor.INDEX_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.KEY_LENGTH_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.LAST_INDEX_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.MAGIC;
import static io.walden.groups.GroupRecordDescriptor.MAGIC_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.TYPE_BOUNDS;
import static io.walden.groups.GroupRecordDescriptor.TYPE_DELETE;
import static io.walden.groups.GroupRecordDescriptor.TYPE_ENTRY;
import static io.walden.groups.GroupRecordDescriptor.TYPE_OFFSET;
import static io.walden.groups.GroupRecordDescriptor.TYPE_PUT;
import static io.walden.groups.GroupRecordDescriptor.TYPE_REMOVE;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.walden.WalException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Writes the records of {@link io.walden.groups.GroupRecordDescriptor} and applies them to the
 * {@link GroupTable}: the one place that knows what each record does, used alike after an append
 * (with the records as written) and when the log is opened (with the records as read).
 *
 * <p><b>Threading:</b> stateless; {@link #apply} takes the table's and the group's monitors.
 */
public final class GroupRecords {
    private GroupRecords() {}

    /** Writes a header at {@code offset}; the body, if any, follows at {@code offset + HEADER_LENGTH}. */
    public static void putHeader(
            final MutableDirectBuffer buffer,
            final int offset,
            final byte type,
            final byte flags,
            final int keyLength,
            final long groupId,
            final long index) {
        buffer.putByte(offset + TYPE_OFFSET, type);
        buffer.putByte(offset + FLAGS_OFFSET, flags);
        buffer.putShort(offset + KEY_LENGTH_OFFSET, (short) keyLength, LITTLE_ENDIAN);
        buffer.putInt(offset + MAGIC_OFFSET, MAGIC, LITTLE_ENDIAN);
        buffer.putLong(offset + GROUP_ID_OFFSET, groupId, LITTLE_ENDIAN);
        buffer.putLong(offset + INDEX_OFFSET, index, LITTLE_ENDIAN);
    }

    public static void putBounds(
            final MutableDirectBuffer buffer, final int offset, final long first, final long last) {
        buffer.putLong(offset + INDEX_OFFSET, first, LITTLE_ENDIAN);
        buffer.putLong(offset + LAST_INDEX_OFFSET, last, LITTLE_ENDIAN);
    }

    public static byte type(final DirectBuffer buffer, final int offset) {
        return buffer.getByte(offset + TYPE_OFFSET);
    }

    public static byte flags(final DirectBuffer buffer, final int offset) {
        return buffer.getByte(offset + FLAGS_OFFSET);
    }

    public static long groupId(final DirectBuffer buffer, final int offset) {
        return buffer.getLong(offset + GROUP_ID_OFFSET, LITTLE_ENDIAN);
    }

    public static long index(final DirectBuffer buffer, final int offset) {
        return buffer.getLong(offset + INDEX_OFFSET, LITTLE_ENDIAN);
    }

    public static long lastIndex(final DirectBuffer buffer, final int offset) {
        return buffer.getLong(offset + LAST_INDEX_OFFSET, LITTLE_ENDIAN);
    }

    public static long argument(final DirectBuffer buffer, final int offset) {
        return buffer.getLong(offset + ARGUMENT_OFFSET, LITTLE_ENDIAN);
    }

    public static int keyLength(final DirectBuffer buffer, final int offset) {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * Checks that a record is a group record this version knows, whole; throws the error that names
     * what is wrong otherwise.
     */
    public static void check(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
        if (length < HEADER_LENGTH || buffer.getInt(offset + MAGIC_OFFSET, LITTLE_ENDIAN) != MAGIC) {
            throw new WalException(
                    WalException.ErrorCode.FORMAT,
                    "the record at position " + lsn + " is not a group log record (" + length + " bytes, no"
                            + " group magic): the directory holds a plain Walden log, not a group log; open it"
                            + " with Wal.open",
                    null,
                    lsn);
        }
        final byte type = type(buffer, offset);
        final int minLength;
        switch (type) {
            case TYPE_ENTRY:
            case TYPE_REMOVE:
                minLength = HEADER_LENGTH;
                break;
            case TYPE_BOUNDS:
                minLength = BOUNDS_LENGTH;
                break;
            case TYPE_PUT:
            case TYPE_DELETE:
                minLength = HEADER_LENGTH + keyLength(buffer, offset);
                break;
            default:
                throw new WalException(
                        WalException.ErrorCode.FORMAT,
                        "the record at position " + lsn + " has group record type " + type + ", which this"
                                + " version does not know: the log was written by a newer Walden; open it"
                                + " with that version",
                        null,
                        lsn);
        }
        if (length < minLength) {
            throw new WalException(
                    WalException.ErrorCode.CORRUPTION,
                    "the group record at position " + lsn + " of type " + type + " is " + length
                            + " bytes, shorter than its header says (" + minLength + ")",
                    null,
                    lsn);
        }
    }

    /** Applies one record, checked, at its LSN. */
    public static void apply(
            final GroupTable table, final DirectBuffer buffer, final int offset, final int length, final long lsn) {
        final long groupId = groupId(buffer, offset);
        switch (type(buffer, offset)) {
            case TYPE_ENTRY:
                final GroupIndex entryGroup = table.getOrCreate(groupId);
                synchronized (entryGroup) {
                    entryGroup.put(index(buffer, offset), lsn);
                }
                break;
            case TYPE_BOUNDS:
                final GroupIndex boundsGroup = table.getOrCreate(groupId);
                synchronized (boundsGroup) {
                    boundsGroup.bounds(index(buffer, offset), lastIndex(buffer, offset), lsn);
                }
                break;
            case TYPE_REMOVE:
                final GroupIndex removed = table.get(groupId);
                if (removed != null) {
                    synchronized (removed) {
                        removed.clear(lsn);
                    }
                    table.removeIfBlank(removed);
                }
                break;
            case TYPE_PUT:
                final int keyLength = keyLength(buffer, offset);
                final byte[] key = new byte[keyLength];
                buffer.getBytes(offset + HEADER_LENGTH, key);
                final byte[] value = new byte[length - HEADER_LENGTH - keyLength];
                buffer.getBytes(offset + HEADER_LENGTH + keyLength, value);
                final GroupIndex putGroup = table.getOrCreate(groupId);
                synchronized (putGroup) {
                    putGroup.values().put(key, value, lsn);
                }
                break;
            case TYPE_DELETE:
                final GroupIndex deleteGroup = table.get(groupId);
                if (deleteGroup != null) {
                    final byte[] deleted = new byte[keyLength(buffer, offset)];
                    buffer.getBytes(offset + HEADER_LENGTH, deleted);
                    synchronized (deleteGroup) {
                        final GroupValues values = deleteGroup.valuesOrNull();
                        if (values != null) {
                            values.remove(deleted);
                        }
                    }
                }
                break;
            default:
                throw new IllegalStateException("unchecked record type " + type(buffer, offset));
        }
    }
}
