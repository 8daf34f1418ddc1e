package io.walden.groups.internal;

import io.walden.groups.GroupRecordDescriptor;

/**
 * How each operation moves a group's bounds [first, last] ({@code last == first - 1}: empty): a pure
 * function, so that the state a bounds record stores is computed in one place and tested over every
 * case.
 *
 * <pre>
 *   operation            first                     last
 *   entry i, empty       i                         i
 *   entry i              min(first, i)             max(last, i)
 *   prefix k, k > first  k                         max(last, k - 1)
 *   suffix k, k < last   first                     max(k, first - 1)
 *   reset n              n                         n - 1
 *   remove               1                         0
 * </pre>
 *
 * A prefix at or below the first index and a suffix at or after the last index change nothing.
 */
public final class BoundsRule {
    private BoundsRule() {}

    /** The first index after a bounds operation ({@link GroupRecordDescriptor#FLAG_PREFIX} and so on). */
    public static long first(final byte cause, final long argument, final long first, final long last) {
        switch (cause) {
            case GroupRecordDescriptor.FLAG_PREFIX:
                return Math.max(first, argument);
            case GroupRecordDescriptor.FLAG_SUFFIX:
                return first;
            case GroupRecordDescriptor.FLAG_RESET:
                return argument;
            default:
                throw new IllegalArgumentException("not a bounds operation: " + cause);
        }
    }

    /** The last index after a bounds operation. */
    public static long last(final byte cause, final long argument, final long first, final long last) {
        switch (cause) {
            case GroupRecordDescriptor.FLAG_PREFIX:
                return argument > first ? Math.max(last, argument - 1) : last;
            case GroupRecordDescriptor.FLAG_SUFFIX:
                return argument < last ? Math.max(argument, first - 1) : last;
            case GroupRecordDescriptor.FLAG_RESET:
                return argument - 1;
            default:
                throw new IllegalArgumentException("not a bounds operation: " + cause);
        }
    }

    /** The first index after an entry at {@code index}. */
    public static long firstAfterEntry(final long index, final long first, final long last) {
        return last < first ? index : Math.min(first, index);
    }

    /** The last index after an entry at {@code index}. */
    public static long lastAfterEntry(final long index, final long first, final long last) {
        return last < first ? index : Math.max(last, index);
    }
}
