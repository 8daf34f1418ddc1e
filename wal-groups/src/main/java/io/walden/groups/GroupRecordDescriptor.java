package io.walden.groups;

/**
 * The layout of a group log's records: each is one Walden record (one frame) whose payload starts
 * with this header, little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  Type (int8)  | Flags (int8)  |      Key Length (uint16)      |  0
 *  +---------------+---------------+-------------------------------+
 *  |                     Magic (int32, "WGRP")                     |  4
 *  +---------------------------------------------------------------+
 *  |                        Group Id (int64)                       |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          Index (int64)                        |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                            Body ...                           |  24
 * </pre>
 *
 * The body of a bounds record:
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                       Last Index (int64)                      |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |      Argument (int64): the operation's index, for tools       |  32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Types, and what opening the log does with each, in log order (a later record wins):
 *
 * <ul>
 *   <li>{@link #TYPE_ENTRY}: the group's entry at Index; the body is the entry. The group's bounds grow
 *       to hold Index (an empty group's become [Index, Index]). Flag {@link #FLAG_RELOCATED}: a copy
 *       that purge wrote of an entry still live.
 *   <li>{@link #TYPE_BOUNDS}: the group's first index is Index and its last index the body's Last Index;
 *       every entry outside them is dropped. The state after a prefix truncation, a suffix truncation,
 *       a reset or a relocation (the flags say which, for tools), never the operation: opening applies
 *       it the same whatever came before.
 *   <li>{@link #TYPE_REMOVE}: the group is gone, its entries and key-values with it.
 *   <li>{@link #TYPE_PUT}: the group's key-value: Key Length bytes of UTF-8 key, then the value.
 *   <li>{@link #TYPE_DELETE}: the key (Key Length bytes) is gone.
 * </ul>
 *
 * A record whose magic differs is not a group record: the directory holds a plain Walden log, and the
 * group log refuses it. A type it does not know was written by a newer version, and it refuses that
 * too, naming the type.
 */
public final class GroupRecordDescriptor {
    /** Offset of the record type, int8. */
    public static final int TYPE_OFFSET = 0;
    /** Offset of the flags, int8. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the key length of a key-value record, uint16. */
    public static final int KEY_LENGTH_OFFSET = 2;
    /** Offset of the magic, int32. */
    public static final int MAGIC_OFFSET = 4;
    /** Offset of the group id, int64. */
    public static final int GROUP_ID_OFFSET = 8;
    /** Offset of the index, int64. */
    public static final int INDEX_OFFSET = 16;
    /** The header's length; the body follows. */
    public static final int HEADER_LENGTH = 24;
    /** Offset of a bounds record's last index, int64, in its body. */
    public static final int LAST_INDEX_OFFSET = HEADER_LENGTH;
    /** Offset of a bounds record's operation argument, int64, in its body (for tools; not replayed). */
    public static final int ARGUMENT_OFFSET = LAST_INDEX_OFFSET + Long.BYTES;
    /** A bounds record's length. */
    public static final int BOUNDS_LENGTH = ARGUMENT_OFFSET + Long.BYTES;

    /** "WGRP" read as a little-endian int32. */
    public static final int MAGIC = 0x50524757;

    /** An entry of a group. */
    public static final byte TYPE_ENTRY = 1;
    /** A group's first and last index after a truncation, a reset or a relocation. */
    public static final byte TYPE_BOUNDS = 2;
    /** A group removed. */
    public static final byte TYPE_REMOVE = 3;
    /** A group's key-value. */
    public static final byte TYPE_PUT = 4;
    /** A group's key removed. */
    public static final byte TYPE_DELETE = 5;

    /** On an entry or a key-value: a copy purge wrote of a record still live. */
    public static final byte FLAG_RELOCATED = 1;
    /** On a bounds record: written by a prefix truncation. */
    public static final byte FLAG_PREFIX = 2;
    /** On a bounds record: written by a suffix truncation. */
    public static final byte FLAG_SUFFIX = 4;
    /** On a bounds record: written by a reset. */
    public static final byte FLAG_RESET = 8;

    /** The longest key of a key-value, in UTF-8 bytes. */
    public static final int KEY_LENGTH_MAX = 0xFFFF;

    private GroupRecordDescriptor() {}
}
