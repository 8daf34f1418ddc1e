package io.walden.groups.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.groups.GroupRecordDescriptor;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundsRule} over every small case (bounds from empty to 8 indexes, arguments around them),
 * checked against what each operation promises, not against its formula: which indexes stay, which go,
 * and where an empty group's next entry goes.
 */
class BoundsRuleTest {
    private static final int MAX = 10;

    @Test
    void aPrefixKeepsTheIndexesFromItsArgumentAndMovesTheFirstIndexOnlyForward() {
        forEveryCase((first, last, k) -> {
            final long f = BoundsRule.first(GroupRecordDescriptor.FLAG_PREFIX, k, first, last);
            final long l = BoundsRule.last(GroupRecordDescriptor.FLAG_PREFIX, k, first, last);
            if (k <= first) {
                assertEquals(first, f);
                assertEquals(last, l);
                return;
            }
            assertEquals(k, f, "the first index is the argument");
            for (long i = first; i <= last; i++) {
                assertEquals(i >= k, i >= f && i <= l, "index " + i + " after prefix " + k);
            }
            assertEquals(Math.max(last, k - 1), l, "the last index stays, or the group is empty before k");
            assertTrue(l >= f - 1);
        });
    }

    @Test
    void aSuffixKeepsTheIndexesUpToItsArgumentAndNeverMovesTheFirstIndex() {
        forEveryCase((first, last, k) -> {
            final long f = BoundsRule.first(GroupRecordDescriptor.FLAG_SUFFIX, k, first, last);
            final long l = BoundsRule.last(GroupRecordDescriptor.FLAG_SUFFIX, k, first, last);
            assertEquals(first, f, "a suffix truncation keeps the first index");
            if (k >= last) {
                assertEquals(last, l);
                return;
            }
            for (long i = first; i <= last; i++) {
                assertEquals(i <= k, i >= f && i <= l, "index " + i + " after suffix " + k);
            }
            assertTrue(l >= f - 1, "bounds stay well formed");
        });
    }

    @Test
    void aResetEmptiesTheGroupBeforeItsArgument() {
        forEveryCase((first, last, n) -> {
            assertEquals(n, BoundsRule.first(GroupRecordDescriptor.FLAG_RESET, n, first, last));
            assertEquals(n - 1, BoundsRule.last(GroupRecordDescriptor.FLAG_RESET, n, first, last));
        });
    }

    @Test
    void anEntryIsHeldAfterwardAndEveryIndexHeldBeforeStays() {
        forEveryCase((first, last, i) -> {
            final long f = BoundsRule.firstAfterEntry(i, first, last);
            final long l = BoundsRule.lastAfterEntry(i, first, last);
            assertTrue(i >= f && i <= l, "the entry is within the bounds");
            if (last < first) {
                assertEquals(i, f, "an empty group starts at its entry");
                assertEquals(i, l);
                return;
            }
            assertTrue(f <= first && l >= last, "no index held before is dropped");
            assertEquals(Math.min(first, i), f, "the bounds grow no further than the entry");
            assertEquals(Math.max(last, i), l);
        });
    }

    @Test
    void anythingElseIsNotABoundsOperation() {
        for (final byte cause : new byte[] {0, GroupRecordDescriptor.FLAG_RELOCATED, 16}) {
            assertEquals(
                    IllegalArgumentException.class,
                    org.junit.jupiter.api.Assertions.assertThrows(
                                    IllegalArgumentException.class, () -> BoundsRule.first(cause, 1, 1, 0))
                            .getClass());
        }
    }

    private interface Case {
        void check(long first, long last, long argument);
    }

    private static void forEveryCase(final Case check) {
        int cases = 0;
        for (long first = 1; first <= 5; first++) {
            for (long last = first - 1; last <= first + 7; last++) {
                for (long argument = 0; argument <= MAX + 4; argument++) {
                    check.check(first, last, argument);
                    cases++;
                }
            }
        }
        assertEquals(5 * 9 * 15, cases);
    }
}
