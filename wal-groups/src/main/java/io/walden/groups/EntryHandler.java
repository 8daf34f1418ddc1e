package io.walden.groups;

import org.agrona.DirectBuffer;

/**
 * Receives an entry read by {@link GroupLog#read}: a view of the log's memory, valid only during the
 * call (copy what you keep).
 */
@FunctionalInterface
public interface EntryHandler {
    /**
     * @param groupId the entry's group.
     * @param index the entry's index in its group.
     * @param buffer holds the entry.
     * @param offset the entry's first byte in {@code buffer}.
     * @param length the entry's length.
     */
    void onEntry(long groupId, long index, DirectBuffer buffer, int offset, int length);
}
