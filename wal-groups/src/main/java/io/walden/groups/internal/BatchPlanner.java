package io.walden.groups.internal;

import static io.walden.groups.GroupRecordDescriptor.TYPE_BOUNDS;
import static io.walden.groups.GroupRecordDescriptor.TYPE_ENTRY;
import static io.walden.groups.GroupRecordDescriptor.TYPE_PUT;
import static io.walden.groups.GroupRecordDescriptor.TYPE_REMOVE;

import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.groups.GroupRecordDescriptor;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;

/**
 * Readies a batch for the log just before it is appended, under the append lock: checks each entry
 * against its group's bounds as the batch's earlier operations leave them, and writes into each bounds
 * record the state after it ({@link BoundsRule}) in place of the operation. Refuses the whole batch, with
 * nothing written, if an entry lies below a non-empty group's first index.
 *
 * <p><b>Threading:</b> owned by the group log's append lock; its maps are reused, allocating nothing
 * once grown.
 */
public final class BatchPlanner {
    private static final long NONE = Long.MIN_VALUE;

    private final GroupTable table;
    private final int maxValueBytes;
    // The bounds of the groups this batch touched so far, as its operations leave them.
    private final Long2LongHashMap firsts = new Long2LongHashMap(NONE);
    private final Long2LongHashMap lasts = new Long2LongHashMap(NONE);

    public BatchPlanner(final GroupTable table, final int maxValueBytes) {
        this.table = table;
        this.maxValueBytes = maxValueBytes;
    }

    public void plan(final WalBatch batch) {
        firsts.clear();
        lasts.clear();
        final MutableDirectBuffer buffer = batch.buffer();
        for (int i = 0, size = batch.size(); i < size; i++) {
            final int offset = batch.offset(i);
            final byte type = GroupRecords.type(buffer, offset);
            if (type == TYPE_PUT) {
                checkValue(buffer, offset, batch.length(i));
            }
            if (type != TYPE_ENTRY && type != TYPE_BOUNDS && type != TYPE_REMOVE) {
                continue;
            }
            final long groupId = GroupRecords.groupId(buffer, offset);
            long first = firsts.get(groupId);
            long last;
            if (first == NONE) {
                final GroupIndex group = table.get(groupId);
                if (group == null) {
                    first = 1;
                    last = 0;
                } else {
                    synchronized (group) {
                        first = group.first();
                        last = group.last();
                    }
                }
            } else {
                last = lasts.get(groupId);
            }
            final long index = GroupRecords.index(buffer, offset);
            if (type == TYPE_ENTRY) {
                if (last >= first && index < first) {
                    throw new WalException(
                            WalException.ErrorCode.POSITION,
                            "group " + groupId + " holds entries from index " + first + "; an entry at index "
                                    + index + " would lie below them (truncatePrefix moved the first index"
                                    + " there; reset the group to write below it). Nothing of the batch was"
                                    + " appended");
                }
                final long newFirst = BoundsRule.firstAfterEntry(index, first, last);
                last = BoundsRule.lastAfterEntry(index, first, last);
                first = newFirst;
            } else if (type == TYPE_BOUNDS) {
                final byte cause = GroupRecords.flags(buffer, offset);
                final long argument = GroupRecords.argument(buffer, offset);
                final long newFirst = BoundsRule.first(cause, argument, first, last);
                last = BoundsRule.last(cause, argument, first, last);
                first = newFirst;
                GroupRecords.putBounds(buffer, offset, first, last);
            } else {
                first = 1;
                last = 0;
            }
            firsts.put(groupId, first);
            lasts.put(groupId, last);
        }
    }

    private void checkValue(final MutableDirectBuffer buffer, final int offset, final int length) {
        final int valueBytes = length - GroupRecordDescriptor.HEADER_LENGTH - GroupRecords.keyLength(buffer, offset);
        if (valueBytes > maxValueBytes) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "a value of group " + GroupRecords.groupId(buffer, offset) + " takes " + valueBytes
                            + " bytes, more than GroupLogConfig.maxValueBytes (" + maxValueBytes + "): key-values"
                            + " are held in memory; store large data as entries. Nothing of the batch was appended");
        }
    }
}
