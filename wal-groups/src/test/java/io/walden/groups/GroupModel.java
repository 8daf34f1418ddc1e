package io.walden.groups;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A group log as a test sees it, written independently of the implementation: per group, its bounds,
 * a sorted map of entries and a map of key-values, each operation as its Javadoc promises it. {@link
 * #assertMatches} compares a log with it over every group and key any operation touched.
 */
public final class GroupModel {
    private final Set<Long> touched = new TreeSet<>();
    private final Set<String> keys = new TreeSet<>();
    private final Map<Long, long[]> bounds = new HashMap<>();
    private final Map<Long, TreeMap<Long, byte[]>> entries = new HashMap<>();
    private final Map<Long, Map<String, byte[]>> values = new HashMap<>();

    /**
     * The model of what a log holds now: every group's bounds and entries, not its key-values (a log
     * does not list its keys).
     *
     * @param log an open log.
     * @return a new model.
     */
    public static GroupModel of(final GroupLog log) {
        final GroupModel model = new GroupModel();
        for (final long g : log.groupIds()) {
            final long first = log.firstIndex(g);
            final long last = log.lastIndex(g);
            model.setBounds(g, first, last);
            for (long i = first; i <= last; i++) {
                final byte[] entry = log.entry(g, i);
                if (entry != null) {
                    model.entries.computeIfAbsent(g, x -> new TreeMap<>()).put(i, entry);
                }
            }
        }
        return model;
    }

    public long first(final long g) {
        return bounds.getOrDefault(g, new long[] {1, 0})[0];
    }

    public long last(final long g) {
        return bounds.getOrDefault(g, new long[] {1, 0})[1];
    }

    public long size(final long g) {
        return last(g) - first(g) + 1;
    }

    public boolean isEmpty(final long g) {
        return size(g) <= 0;
    }

    public byte[] entry(final long g, final long i) {
        return i < first(g) || i > last(g)
                ? null
                : entries.getOrDefault(g, new TreeMap<>()).get(i);
    }

    public byte[] get(final long g, final String key) {
        return values.getOrDefault(g, Map.of()).get(key);
    }

    public void append(final long g, final long i, final byte[] entry) {
        final long first = isEmpty(g) ? i : Math.min(first(g), i);
        final long last = isEmpty(g) ? i : Math.max(last(g), i);
        setBounds(g, first, last);
        entries.computeIfAbsent(g, x -> new TreeMap<>()).put(i, entry);
    }

    public void truncatePrefix(final long g, final long k) {
        touched.add(g);
        if (k > first(g)) {
            setBounds(g, k, Math.max(last(g), k - 1));
        }
    }

    public void truncateSuffix(final long g, final long k) {
        touched.add(g);
        if (k < last(g)) {
            setBounds(g, first(g), Math.max(k, first(g) - 1));
        }
    }

    public void reset(final long g, final long n) {
        setBounds(g, n, n - 1);
    }

    public void remove(final long g) {
        touched.add(g);
        bounds.remove(g);
        entries.remove(g);
        values.remove(g);
    }

    public void put(final long g, final String key, final byte[] value) {
        touched.add(g);
        keys.add(key);
        values.computeIfAbsent(g, x -> new HashMap<>()).put(key, value);
    }

    public void delete(final long g, final String key) {
        touched.add(g);
        keys.add(key);
        values.getOrDefault(g, new HashMap<>()).remove(key);
    }

    public GroupModel copy() {
        final GroupModel copy = new GroupModel();
        copy.touched.addAll(touched);
        copy.keys.addAll(keys);
        bounds.forEach((g, b) -> copy.bounds.put(g, b.clone()));
        entries.forEach((g, e) -> copy.entries.put(g, new TreeMap<>(e)));
        values.forEach((g, v) -> copy.values.put(g, new HashMap<>(v)));
        return copy;
    }

    public void replaceWith(final GroupModel other) {
        touched.addAll(other.touched);
        keys.addAll(other.keys);
        bounds.clear();
        bounds.putAll(other.bounds);
        entries.clear();
        entries.putAll(other.entries);
        values.clear();
        values.putAll(other.values);
    }

    /**
     * Throws an {@link AssertionError} naming the first difference between the log and this model: a
     * group's bounds, an entry (one index either side of the bounds too) or a key-value.
     */
    public void assertMatches(final GroupLog log, final String where) {
        for (final long g : touched) {
            check(
                    first(g) == log.firstIndex(g),
                    where,
                    g,
                    "first index " + log.firstIndex(g) + ", expected " + first(g));
            check(last(g) == log.lastIndex(g), where, g, "last index " + log.lastIndex(g) + ", expected " + last(g));
            for (long i = first(g) - 1; i <= last(g) + 1; i++) {
                final byte[] actual = log.entry(g, i);
                check(
                        Arrays.equals(entry(g, i), actual),
                        where,
                        g,
                        "index " + i + " holds " + describe(actual) + ", expected " + describe(entry(g, i)));
            }
            for (final String key : keys) {
                final byte[] actual = log.get(g, key);
                check(
                        Arrays.equals(get(g, key), actual),
                        where,
                        g,
                        "key " + key + " holds " + describe(actual) + ", expected " + describe(get(g, key)));
            }
        }
    }

    private static void check(final boolean ok, final String where, final long g, final String what) {
        if (!ok) {
            throw new AssertionError(where + ": group " + g + ": " + what);
        }
    }

    private static String describe(final byte[] bytes) {
        return bytes == null ? "nothing" : bytes.length + " bytes (first " + (bytes.length == 0 ? "-" : bytes[0]) + ")";
    }

    private void setBounds(final long g, final long first, final long last) {
        touched.add(g);
        bounds.put(g, new long[] {first, last});
        final TreeMap<Long, byte[]> held = entries.get(g);
        if (held != null) {
            held.headMap(first, false).clear();
            held.tailMap(last, false).clear();
        }
    }
}
