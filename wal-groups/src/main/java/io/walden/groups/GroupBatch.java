package io.walden.groups;

import static io.walden.groups.GroupRecordDescriptor.BOUNDS_LENGTH;
import static io.walden.groups.GroupRecordDescriptor.HEADER_LENGTH;

import io.walden.WalBatch;
import io.walden.groups.internal.GroupRecords;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.agrona.DirectBuffer;

/**
 * Operations on any number of groups to append as one unit with {@link GroupLog#append(GroupBatch,
 * io.walden.Durability)}: entries, truncations, resets, removals and key-values. After any crash the log
 * holds all of them or none, and they take one durability wait.
 *
 * <p>Operations apply in the order they were added: {@code truncateSuffix(g, 5)} then {@code add(g, 6,
 * ...)} replaces a conflicting tail atomically, as a Raft follower must.
 *
 * <p>A reusable builder: {@link #clear()} empties it, keeping its memory, so a writer that reuses one
 * allocates nothing per append once it has grown to its largest batch. The records of a batch together
 * may take at most what one Walden record of {@link io.walden.WalConfig#maxRecordBytes()} takes; a
 * larger one is refused whole.
 *
 * <p><b>Threading:</b> not thread-safe; one thread fills and appends a batch at a time.
 */
public final class GroupBatch {
    private final WalBatch records;
    private boolean hasBounds;

    /** Creates an empty batch whose memory grows as operations are added. */
    public GroupBatch() {
        this(4096);
    }

    /** @param initialCapacityBytes the bytes the empty batch holds before its memory grows. */
    public GroupBatch(final int initialCapacityBytes) {
        this.records = new WalBatch(initialCapacityBytes);
    }

    /**
     * Adds an entry: the group's entry at an index, replacing one held there. The group's bounds grow to
     * hold it (an empty group's become [index, index]); an index below a non-empty group's first index
     * is refused when the batch is appended.
     *
     * @return this batch.
     */
    public GroupBatch add(final long groupId, final long index, final byte[] entry) {
        return add(groupId, index, entry, 0, entry.length);
    }

    /** Adds an entry from a region of an array; see {@link #add(long, long, byte[])}. */
    public GroupBatch add(
            final long groupId, final long index, final byte[] entry, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, entry.length);
        final int at = header(GroupRecordDescriptor.TYPE_ENTRY, (byte) 0, 0, groupId, index, HEADER_LENGTH + length);
        records.buffer().putBytes(at + HEADER_LENGTH, entry, offset, length);
        return this;
    }

    /** Adds an entry from a region of a buffer; see {@link #add(long, long, byte[])}. */
    public GroupBatch add(
            final long groupId, final long index, final DirectBuffer entry, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, entry.capacity());
        final int at = header(GroupRecordDescriptor.TYPE_ENTRY, (byte) 0, 0, groupId, index, HEADER_LENGTH + length);
        records.buffer().putBytes(at + HEADER_LENGTH, entry, offset, length);
        return this;
    }

    /**
     * Drops the group's entries before an index, logically: the first index becomes {@code
     * firstIndexKept} (the group is empty if that is past its last index); nothing is rewritten, and the
     * space is reclaimed by {@link GroupLog#purge()}. No change if the first index is already there.
     *
     * @return this batch.
     */
    public GroupBatch truncatePrefix(final long groupId, final long firstIndexKept) {
        return bounds(GroupRecordDescriptor.FLAG_PREFIX, groupId, firstIndexKept);
    }

    /**
     * Drops the group's entries after an index: the last index becomes {@code lastIndexKept} (or the
     * group is empty, its first index kept, if that is before its first index).
     *
     * @return this batch.
     */
    public GroupBatch truncateSuffix(final long groupId, final long lastIndexKept) {
        return bounds(GroupRecordDescriptor.FLAG_SUFFIX, groupId, lastIndexKept);
    }

    /**
     * Drops every entry of the group; its next entry is {@code nextIndex} (first index {@code
     * nextIndex}, last {@code nextIndex - 1}). Key-values stay.
     *
     * @return this batch.
     */
    public GroupBatch reset(final long groupId, final long nextIndex) {
        return bounds(GroupRecordDescriptor.FLAG_RESET, groupId, nextIndex);
    }

    /**
     * Removes the group: its entries and key-values are gone, and it reads as a group never written.
     *
     * @return this batch.
     */
    public GroupBatch removeGroup(final long groupId) {
        header(GroupRecordDescriptor.TYPE_REMOVE, (byte) 0, 0, groupId, 0, HEADER_LENGTH);
        return this;
    }

    /**
     * Sets one of the group's key-values (a Raft group's term and vote, for example): kept in the log
     * itself, so a group needs no file of its own, and held in memory, so keep them small.
     *
     * @return this batch.
     */
    public GroupBatch put(final long groupId, final String key, final byte[] value) {
        final byte[] keyBytes = keyBytes(key);
        final int at = header(
                GroupRecordDescriptor.TYPE_PUT,
                (byte) 0,
                keyBytes.length,
                groupId,
                0,
                HEADER_LENGTH + keyBytes.length + value.length);
        records.buffer().putBytes(at + HEADER_LENGTH, keyBytes);
        records.buffer().putBytes(at + HEADER_LENGTH + keyBytes.length, value);
        return this;
    }

    /**
     * Removes one of the group's key-values.
     *
     * @return this batch.
     */
    public GroupBatch delete(final long groupId, final String key) {
        final byte[] keyBytes = keyBytes(key);
        final int at = header(
                GroupRecordDescriptor.TYPE_DELETE,
                (byte) 0,
                keyBytes.length,
                groupId,
                0,
                HEADER_LENGTH + keyBytes.length);
        records.buffer().putBytes(at + HEADER_LENGTH, keyBytes);
        return this;
    }

    /**
     * Empties the batch for reuse, keeping its memory.
     *
     * @return this batch.
     */
    public GroupBatch clear() {
        records.clear();
        hasBounds = false;
        return this;
    }

    /** @return the number of operations in the batch. */
    public int size() {
        return records.size();
    }

    /** @return whether the batch holds no operation. */
    public boolean isEmpty() {
        return records.isEmpty();
    }

    /**
     * @param i an operation's place in the batch, from 0.
     * @return the LSN the last append gave the operation's record.
     */
    public long lsn(final int i) {
        return records.lsn(i);
    }

    WalBatch records() {
        return records;
    }

    boolean hasBounds() {
        return hasBounds;
    }

    private GroupBatch bounds(final byte cause, final long groupId, final long argument) {
        // The record says the operation until the append replaces it with the state after it.
        final int at = header(GroupRecordDescriptor.TYPE_BOUNDS, cause, 0, groupId, argument, BOUNDS_LENGTH);
        records.buffer().putLong(at + GroupRecordDescriptor.ARGUMENT_OFFSET, argument, ByteOrder.LITTLE_ENDIAN);
        hasBounds = true;
        return this;
    }

    private int header(
            final byte type,
            final byte flags,
            final int keyLength,
            final long groupId,
            final long index,
            final int recordLength) {
        final int at = records.claim(recordLength);
        GroupRecords.putHeader(records.buffer(), at, type, flags, keyLength, groupId, index);
        return at;
    }

    private static byte[] keyBytes(final String key) {
        final byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > GroupRecordDescriptor.KEY_LENGTH_MAX) {
            throw new IllegalArgumentException("a key takes 1 to " + GroupRecordDescriptor.KEY_LENGTH_MAX
                    + " bytes of UTF-8; this one takes " + bytes.length);
        }
        return bytes;
    }
}
