package io.walden.groups;

import io.walden.Durability;
import java.util.SplittableRandom;

/**
 * The steps of the group log's crash suites (power loss and kill -9 in crash-tests): batches over a few
 * busy groups with suffix truncations inside them and, now and then, an entry of a group that never
 * truncates ({@link #LAGGARD}, which purge relocates); prefix truncations of busy groups, resets,
 * key-values ({@link #KEYED}, {@link #LAGGARD}) and the removal of a group; each at a random durability.
 *
 * <p>A step depends only on the random source and on the groups' bounds as the steps before left them,
 * so a process that knows both draws the same steps again: a kill test's parent redraws what its child
 * appended from the child's seed.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class GroupWorkload {
    /** Groups 0 to 3 take entries and truncate. */
    public static final int BUSY_GROUPS = 4;
    /** A group that never truncates: it pins the oldest segment, and purge relocates its entries. */
    public static final long LAGGARD = 10;
    /** A group of key-values only, removed now and then. */
    public static final long KEYED = 11;
    /** Every group a step touches. */
    private static final long[] GROUPS = {0, 1, 2, 3, LAGGARD, KEYED};

    private GroupWorkload() {}

    /**
     * A step and the durability to append it at.
     *
     * @param step the step.
     * @param durability its durability.
     */
    public record Next(GroupLedger.Step step, Durability durability) {}

    /** @return a copy of the ids of every group a step touches. */
    public static long[] groups() {
        return GROUPS.clone();
    }

    /**
     * Draws the next step.
     *
     * @param now the model as the steps before left the log ({@link GroupLedger#current()}); the step's
     *     entries and suffix truncations are applied to it as they are drawn.
     * @param random the source, consumed the same whatever the model holds.
     * @return the step and its durability.
     */
    public static Next next(final GroupModel now, final SplittableRandom random) {
        final GroupLedger.Step next = new GroupLedger.Step();
        final int kind = random.nextInt(20);
        if (kind < 12) {
            final int groups = 1 + random.nextInt(3);
            for (int i = 0; i < groups; i++) {
                final long g = random.nextInt(BUSY_GROUPS);
                if (random.nextInt(6) == 0 && !now.isEmpty(g)) {
                    next.truncateSuffix(g, now.last(g) - 1);
                    now.truncateSuffix(g, now.last(g) - 1);
                }
                final long index = now.last(g) + 1;
                final byte[] entry = bytes(random, 200 + random.nextInt(1800));
                next.add(g, index, entry);
                now.append(g, index, entry);
            }
            if (random.nextInt(4) == 0) {
                next.add(LAGGARD, now.last(LAGGARD) + 1, bytes(random, 100));
            }
        } else if (kind < 16) {
            final long g = random.nextInt(BUSY_GROUPS);
            next.truncatePrefix(g, Math.max(now.first(g), now.last(g) - 3));
        } else if (kind < 17) {
            next.reset(random.nextInt(BUSY_GROUPS), 1 + random.nextInt(100));
        } else if (kind < 18) {
            next.removeGroup(KEYED);
        } else {
            next.put(KEYED, "term", bytes(random, 8)).put(LAGGARD, "vote", bytes(random, 12));
        }
        return new Next(next, durability(random));
    }

    private static Durability durability(final SplittableRandom random) {
        final int d = random.nextInt(3);
        return d == 0 ? Durability.BUFFERED : d == 1 ? Durability.WRITTEN : Durability.SYNCED;
    }

    private static byte[] bytes(final SplittableRandom random, final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }
}
