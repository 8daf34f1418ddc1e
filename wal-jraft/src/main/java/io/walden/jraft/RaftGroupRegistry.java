package io.walden.jraft;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.groups.GroupBatch;
import io.walden.groups.GroupLog;
import java.nio.ByteOrder;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The names of the Raft groups in a shared {@link GroupLog}: which group holds the log of each jraft log
 * uri, and which groups have a view open.
 *
 * <p>The names are durable, in the log itself: the key-values of the directory group {@value
 * #DIRECTORY_GROUP_ID}, {@value #NAME_KEY_PREFIX}{@code <uri>} to the group's id (8 bytes,
 * little-endian), and {@value #NEXT_KEY} to the next id to give. A new uri gets the next id, written
 * with the name in one atomic batch, so two uris never share a group and an id is never given twice,
 * even after a name is removed. The uri is a name, compared byte for byte: the same node must be given
 * the same string after a restart.
 *
 * <p>At most one view of a group may be open at a time ({@link #claim}): a second node given the same
 * uri is refused, not allowed to write the same group.
 *
 * <p><b>Threading:</b> thread-safe; every method holds this object's monitor, and an allocation appends
 * one batch under it.
 */
final class RaftGroupRegistry {
    /** The group whose key-values hold the names. */
    static final long DIRECTORY_GROUP_ID = 0;
    /** The key of the next group id to give. */
    static final String NEXT_KEY = "jraft.next-group-id";
    /** The prefix of a name's key: the uri follows. */
    static final String NAME_KEY_PREFIX = "jraft.log-uri:";

    private final GroupLog log;
    // Guarded by this: the groups with an open view.
    private final LongHashSet claimed = new LongHashSet();
    // Guarded by this.
    private final GroupBatch batch = new GroupBatch(256);

    RaftGroupRegistry(final GroupLog log) {
        this.log = log;
    }

    /**
     * The group of a uri, given now if the uri has none, claimed for one view.
     *
     * @param uri the jraft log uri.
     * @return the group id.
     * @throws IllegalStateException if a view of the group is open.
     * @throws IllegalArgumentException if the uri is longer than a key may be.
     * @throws WalException if the name could not be written.
     */
    synchronized long claim(final String uri) {
        long groupId = groupId(uri);
        if (groupId < 0) {
            groupId = allocate(uri);
        }
        if (!claimed.add(groupId)) {
            throw new IllegalStateException("the Raft log " + uri + " (group " + groupId + " of the shared log) is"
                    + " already open in another LogStorage: two nodes were given the same log uri");
        }
        return groupId;
    }

    /** Lets another view open a group. */
    synchronized void release(final long groupId) {
        claimed.remove(groupId);
    }

    /**
     * @param uri a jraft log uri.
     * @return its group id, or -1 if it has none.
     */
    synchronized long groupId(final String uri) {
        final byte[] value = log.get(DIRECTORY_GROUP_ID, NAME_KEY_PREFIX + uri);
        return value == null ? -1 : decode(value);
    }

    /**
     * Removes a group and its name in one atomic batch; its id is not given again.
     *
     * @param uri a jraft log uri.
     * @return false if the uri has no group.
     * @throws IllegalStateException if a view of the group is open.
     */
    synchronized boolean remove(final String uri) {
        final long groupId = groupId(uri);
        if (groupId < 0) {
            return false;
        }
        if (claimed.contains(groupId)) {
            throw new IllegalStateException(
                    "the Raft log " + uri + " (group " + groupId + ") is open: shut its node down first");
        }
        batch.clear().delete(DIRECTORY_GROUP_ID, NAME_KEY_PREFIX + uri).removeGroup(groupId);
        log.append(batch, Durability.SYNCED);
        return true;
    }

    /** Holder of this. */
    private long allocate(final String uri) {
        final byte[] next = log.get(DIRECTORY_GROUP_ID, NEXT_KEY);
        final long groupId = next == null ? DIRECTORY_GROUP_ID + 1 : decode(next);
        batch.clear()
                .put(DIRECTORY_GROUP_ID, NAME_KEY_PREFIX + uri, encode(groupId))
                .put(DIRECTORY_GROUP_ID, NEXT_KEY, encode(groupId + 1));
        log.append(batch, Durability.SYNCED);
        return groupId;
    }

    static byte[] encode(final long value) {
        final byte[] bytes = new byte[Long.BYTES];
        new UnsafeBuffer(bytes).putLong(0, value, ByteOrder.LITTLE_ENDIAN);
        return bytes;
    }

    static long decode(final byte[] bytes) {
        if (bytes.length != Long.BYTES) {
            throw new WalException(
                    WalException.ErrorCode.FORMAT,
                    "a value of " + bytes.length + " bytes, not 8, in the jraft names of the shared log: not"
                            + " written by this adapter");
        }
        return new UnsafeBuffer(bytes).getLong(0, ByteOrder.LITTLE_ENDIAN);
    }
}
