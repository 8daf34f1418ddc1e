package io.walden.groups.internal;

import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Every group's {@link GroupIndex}, by group id. No thread, buffer or file per group: a group is its
 * index object and an entry in this map.
 *
 * <p><b>Threading:</b> the map is guarded by this table's monitor, held only to look up, add or remove
 * a group; a group's own state is guarded by the group's monitor.
 */
public final class GroupTable {
    private final Long2ObjectHashMap<GroupIndex> groups = new Long2ObjectHashMap<>();

    /** The group, or null if the log holds nothing of it. */
    public synchronized GroupIndex get(final long groupId) {
        return groups.get(groupId);
    }

    public synchronized GroupIndex getOrCreate(final long groupId) {
        GroupIndex group = groups.get(groupId);
        if (group == null) {
            group = new GroupIndex(groupId);
            groups.put(groupId, group);
        }
        return group;
    }

    /** Forgets a group that holds nothing (its bounds are the default and it has no key-value). */
    public synchronized void removeIfBlank(final GroupIndex group) {
        synchronized (group) {
            if (group.isBlank() && groups.get(group.groupId()) == group) {
                groups.remove(group.groupId());
            }
        }
    }

    public synchronized int size() {
        return groups.size();
    }

    /** A copy of the groups, for the cold paths that visit them all (purge, stats). */
    public synchronized List<GroupIndex> snapshot() {
        return new ArrayList<>(groups.values());
    }

    /** The group ids, ascending. */
    public synchronized long[] groupIds() {
        final long[] ids = new long[groups.size()];
        int i = 0;
        final Long2ObjectHashMap<GroupIndex>.KeyIterator keys = groups.keySet().iterator();
        while (keys.hasNext()) {
            ids[i++] = keys.nextLong();
        }
        java.util.Arrays.sort(ids);
        return ids;
    }
}
