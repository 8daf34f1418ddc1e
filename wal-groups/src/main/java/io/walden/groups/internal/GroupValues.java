package io.walden.groups.internal;

import java.util.Arrays;

/**
 * A group's few key-values (a Raft group's term and vote, for example), held in memory with the LSN
 * of the record that wrote each: a handful per group, so parallel arrays searched in order.
 *
 * <p><b>Threading:</b> guarded by the monitor of the {@link GroupIndex} that holds it.
 */
public final class GroupValues {
    private static final int HEADER_BYTES = 16;

    private byte[][] keys = new byte[2][];
    private byte[][] values = new byte[2][];
    private long[] lsns = new long[2];
    private int size;

    public int size() {
        return size;
    }

    public byte[] get(final byte[] key) {
        final int i = find(key);
        return i < 0 ? null : values[i];
    }

    public long lsn(final byte[] key) {
        final int i = find(key);
        return i < 0 ? GroupIndex.ABSENT : lsns[i];
    }

    public void put(final byte[] key, final byte[] value, final long lsn) {
        int i = find(key);
        if (i < 0) {
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, size * 2);
                values = Arrays.copyOf(values, size * 2);
                lsns = Arrays.copyOf(lsns, size * 2);
            }
            i = size++;
            keys[i] = key;
        }
        values[i] = value;
        lsns[i] = lsn;
    }

    public void remove(final byte[] key) {
        final int i = find(key);
        if (i < 0) {
            return;
        }
        size--;
        keys[i] = keys[size];
        values[i] = values[size];
        lsns[i] = lsns[size];
        keys[size] = null;
        values[size] = null;
    }

    public byte[] key(final int i) {
        return keys[i];
    }

    public byte[] value(final int i) {
        return values[i];
    }

    public long lsn(final int i) {
        return lsns[i];
    }

    public long minLsn() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            min = Math.min(min, lsns[i]);
        }
        return min;
    }

    public long heapBytes() {
        long bytes = (long) keys.length * (2 * 8 + Long.BYTES) + 3 * HEADER_BYTES;
        for (int i = 0; i < size; i++) {
            bytes += keys[i].length + values[i].length + 2 * HEADER_BYTES;
        }
        return bytes;
    }

    private int find(final byte[] key) {
        for (int i = 0; i < size; i++) {
            if (Arrays.equals(keys[i], key)) {
                return i;
            }
        }
        return -1;
    }
}
