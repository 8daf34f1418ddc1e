package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.storage.LogStorage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Other Raft groups of a shared group log, written by a background thread while a test runs on its own
 * views: each round appends to, truncates the prefix or suffix of, or resets each of the groups once, and
 * a model says what each must hold. {@link #awaitRound} lets a test force a whole round between two of
 * its own calls, so that the other groups' records interleave with its own in the log.
 *
 * <p><b>Threading:</b> the churn thread owns the views and models while it runs; {@link #awaitRound}
 * from any thread; {@link #check} and {@link #reopen} after {@link #stop}.
 */
final class GroupChurn {
    private static final long WAIT_S = 60;

    private final WaldenGroupsJRaftServiceFactory factory;
    private final List<Group> groups = new ArrayList<>();
    private final SplittableRandom random;
    private final Thread thread;
    private volatile boolean stopping;
    // Guarded by this: rounds done, and what failed the churn.
    private long rounds;
    private Throwable failure;

    /** One churned group: its view and what it must hold. */
    private static final class Group {
        final String uri;
        LogStorage view;
        long first = 1;
        long last;
        long term = 1;
        // Index -> term of every entry held (contiguous from first to last).
        final TreeMap<Long, Long> terms = new TreeMap<>();
        // Indexes whose entry is the reset's no-op (no data).
        final TreeMap<Long, Boolean> noOps = new TreeMap<>();

        Group(final String uri) {
            this.uri = uri;
        }
    }

    GroupChurn(
            final WaldenGroupsJRaftServiceFactory factory, final String prefix, final int groupCount, final long seed) {
        this.factory = factory;
        this.random = new SplittableRandom(seed);
        for (int i = 0; i < groupCount; i++) {
            final Group group = new Group(prefix + "churn-" + i);
            group.view = open(group.uri);
            assertTrue(group.view.reset(1), "reset of " + group.uri);
            group.terms.put(1L, 0L);
            group.noOps.put(1L, true);
            group.last = 1;
            groups.add(group);
        }
        this.thread = new Thread(this::run, "group-churn");
        thread.setDaemon(true);
    }

    private LogStorage open(final String uri) {
        final LogStorage view = factory.createLogStorage(uri, null);
        assertTrue(view.init(JraftTestOptions.storageOptions()), "init of " + uri);
        return view;
    }

    GroupChurn start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            while (!stopping) {
                for (final Group group : groups) {
                    step(group);
                }
                synchronized (this) {
                    rounds++;
                    notifyAll();
                }
            }
        } catch (final Throwable ex) {
            synchronized (this) {
                failure = ex;
                notifyAll();
            }
        }
    }

    /** One operation on a group, checked against its model. */
    private void step(final Group group) {
        final double choice = random.nextDouble();
        if (choice < 0.55 || group.last == group.first) {
            final List<LogEntry> entries = new ArrayList<>();
            final int count = 1 + random.nextInt(4);
            for (long i = group.last + 1; i <= group.last + count; i++) {
                entries.add(entry(group.uri, i, group.term));
            }
            assertEquals(count, group.view.appendEntries(entries), "append to " + group.uri);
            for (final LogEntry entry : entries) {
                group.terms.put(entry.getId().getIndex(), group.term);
            }
            group.last += count;
        } else if (choice < 0.7) {
            final long kept = group.first + random.nextLong(group.last - group.first);
            assertTrue(group.view.truncateSuffix(kept), "truncateSuffix of " + group.uri);
            group.terms.tailMap(kept, false).clear();
            group.noOps.tailMap(kept, false).clear();
            group.last = kept;
        } else if (choice < 0.85) {
            final long firstKept = group.first + 1 + random.nextLong(group.last - group.first);
            assertTrue(group.view.truncatePrefix(firstKept), "truncatePrefix of " + group.uri);
            group.terms.headMap(firstKept).clear();
            group.noOps.headMap(firstKept).clear();
            group.first = firstKept;
        } else {
            final long next = group.last + 1 + random.nextInt(3);
            assertTrue(group.view.reset(next), "reset of " + group.uri);
            group.terms.clear();
            group.noOps.clear();
            group.terms.put(next, 0L);
            group.noOps.put(next, true);
            group.first = next;
            group.last = next;
            group.term++;
        }
    }

    /** An entry of a churned group: its data names the group, index and term. */
    static LogEntry entry(final String uri, final long index, final long term) {
        final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        entry.setId(new LogId(index, term));
        entry.setData(ByteBuffer.wrap((uri + " " + index + " " + term).getBytes(StandardCharsets.UTF_8)));
        return entry;
    }

    /**
     * Waits until a whole round of the churn ran after this call: every churned group was written between
     * the caller's last call and its next.
     */
    void awaitRound() {
        try {
            synchronized (this) {
                final long target = rounds + 2;
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
                while (rounds < target && failure == null) {
                    final long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0) {
                        throw new AssertionError("no churn round in " + WAIT_S + " s");
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, remainingNs);
                }
                if (failure != null) {
                    throw new AssertionError("the churn failed", failure);
                }
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
    }

    /** @return the rounds done so far. */
    synchronized long rounds() {
        return rounds;
    }

    /** Stops the churn thread; rethrows what failed it. */
    void stop() throws InterruptedException {
        stopping = true;
        thread.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertTrue(!thread.isAlive(), "the churn thread did not stop");
        synchronized (this) {
            if (failure != null) {
                throw new AssertionError("the churn failed", failure);
            }
        }
    }

    /** Checks every churned group's view against its model. */
    void check() {
        for (final Group group : groups) {
            assertEquals(group.first, group.view.getFirstLogIndex(), "first index of " + group.uri);
            assertEquals(group.last, group.view.getLastLogIndex(), "last index of " + group.uri);
            assertNull(group.view.getEntry(group.first - 1), "entry before the first of " + group.uri);
            assertNull(group.view.getEntry(group.last + 1), "entry after the last of " + group.uri);
            for (long i = group.first; i <= group.last; i++) {
                final LogEntry read = group.view.getEntry(i);
                assertNotNull(read, "entry " + i + " of " + group.uri);
                final long term = group.terms.get(i);
                assertEquals(term, read.getId().getTerm(), "term of entry " + i + " of " + group.uri);
                if (group.noOps.containsKey(i)) {
                    assertEquals(EntryType.ENTRY_TYPE_NO_OP, read.getType(), "entry " + i + " of " + group.uri);
                } else {
                    assertEquals(entry(group.uri, i, term), read, "entry " + i + " of " + group.uri);
                }
            }
        }
    }

    /** Shuts every churned view down. */
    void shutdownViews() {
        groups.forEach(group -> group.view.shutdown());
    }

    /** Opens a view of every churned group again, from a factory (on the log reopened). */
    void reopen(final WaldenGroupsJRaftServiceFactory reopened) {
        for (final Group group : groups) {
            group.view = reopened.createLogStorage(group.uri, null);
            assertTrue(group.view.init(JraftTestOptions.storageOptions()), "init again of " + group.uri);
        }
    }
}
