package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.conf.ConfigurationEntry;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.WalConfig;
import io.walden.groups.GroupLogConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WaldenGroupLogStorage}, views of groups of one shared log, against {@link WaldenLogStorage}, a
 * log of its own per Raft group: the same calls, in random order over many groups at once, must leave
 * both showing the same (first and last index, every entry and term, configuration entries), before and
 * after the shared log is closed and reopened, while other groups of the shared log are churned and the
 * log is purged. Then the factory's naming: uris never share a group, an open group is not opened twice,
 * views open concurrently, and calls larger than one batch.
 */
@SuppressWarnings("deprecation")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WaldenGroupLogStorageTest {
    private static final int GROUPS = 12;
    private static final int STEPS = 150;

    @TempDir
    Path tempDir;

    private final List<LogStorage> open = new ArrayList<>();
    private WaldenGroupsJRaftServiceFactory factory;

    @AfterEach
    void closeAll() {
        open.forEach(LogStorage::shutdown);
        if (factory != null) {
            factory.close();
        }
    }

    /** A small log: 1 MiB segments, 64 KiB records, so that purges free and relocate segments. */
    private static GroupLogConfig sharedConfig(final Path directory) {
        return GroupLogConfig.builder(smallWal(directory))
                .relocateAfterRounds(1)
                .build();
    }

    private static WalConfig smallWal(final Path directory) {
        return WalConfig.builder(directory)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(64 * 1024)
                .build();
    }

    private LogStorage view(final String uri, final ConfigurationManager configurations) {
        final LogStorage view = factory.createLogStorage(uri, null);
        assertTrue(view.init(JraftTestOptions.storageOptions(configurations)), "init of " + uri);
        open.add(view);
        return view;
    }

    private LogStorage own(final String name, final ConfigurationManager configurations) {
        final LogStorage storage =
                new WaldenLogStorage(tempDir.resolve("own").resolve(name), WaldenGroupLogStorageTest::smallWal);
        assertTrue(storage.init(JraftTestOptions.storageOptions(configurations)), "init of " + name);
        open.add(storage);
        return storage;
    }

    /** A Raft group run on both stores: its view of the shared log and a log of its own. */
    private final class Twin {
        final String name;
        final ConfigurationManager viewConfigurations = new ConfigurationManager();
        final ConfigurationManager ownConfigurations = new ConfigurationManager();
        LogStorage view;
        LogStorage own;
        long term = 1;
        // The highest index any call named, to compare up to.
        long highest = 1;

        Twin(final String name) {
            this.name = name;
            view = view(name, viewConfigurations);
            own = own(name, ownConfigurations);
        }

        void reopen() {
            view.shutdown();
            own.shutdown();
            view = view(name, new ConfigurationManager());
            own = own(name, new ConfigurationManager());
        }
    }

    private static LogEntry entry(final long index, final long term, final boolean configuration) {
        final LogEntry entry =
                new LogEntry(configuration ? EntryType.ENTRY_TYPE_CONFIGURATION : EntryType.ENTRY_TYPE_DATA);
        entry.setId(new LogId(index, term));
        if (configuration) {
            entry.setPeers(List.of(PeerId.parsePeer("localhost:" + (8000 + index % 1000))));
        } else {
            entry.setData(ByteBuffer.wrap(("entry " + index + " term " + term).getBytes(StandardCharsets.UTF_8)));
        }
        return entry;
    }

    /** One random call, the same on both stores; returns what it was, for messages. */
    private static String step(final Twin twin, final SplittableRandom random) {
        final long last = twin.own.getLastLogIndex();
        final double choice = random.nextDouble();
        final String call;
        if (choice < 0.5) {
            final long from;
            final double where = random.nextDouble();
            if (where < 0.7 || last == 0) {
                from = last + 1;
            } else if (where < 0.8) {
                from = Math.max(0, last - random.nextInt(4));
            } else if (where < 0.9) {
                from = last + 2 + random.nextInt(20);
            } else {
                from = Math.max(0, last - 10 - random.nextInt(20));
            }
            final List<LogEntry> entries = new ArrayList<>();
            final int count = 1 + random.nextInt(4);
            for (long i = from; i < from + count; i++) {
                entries.add(entry(i, twin.term, random.nextInt(10) == 0));
            }
            call = "appendEntries " + from + ".." + (from + count - 1) + " term " + twin.term;
            assertEquals(twin.own.appendEntries(entries), twin.view.appendEntries(entries), call);
            twin.highest = Math.max(twin.highest, from + count);
        } else if (choice < 0.62) {
            final long kept = Math.max(0, last - random.nextInt(8));
            call = "truncateSuffix " + kept;
            assertEquals(twin.own.truncateSuffix(kept), twin.view.truncateSuffix(kept), call);
        } else if (choice < 0.74) {
            final long firstKept = Math.max(0, last - 6 + random.nextInt(10));
            call = "truncatePrefix " + firstKept;
            assertEquals(twin.own.truncatePrefix(firstKept), twin.view.truncatePrefix(firstKept), call);
            twin.highest = Math.max(twin.highest, firstKept);
        } else if (choice < 0.8) {
            final long next = Math.max(1, last - 3 + random.nextInt(8));
            twin.term++;
            call = "reset " + next;
            assertEquals(twin.own.reset(next), twin.view.reset(next), call);
            twin.highest = Math.max(twin.highest, next);
        } else if (choice < 0.9) {
            call = "getFirstLogIndex";
            assertEquals(twin.own.getFirstLogIndex(), twin.view.getFirstLogIndex(), twin.name + ": " + call);
        } else {
            twin.term++;
            call = "new term " + twin.term;
        }
        return call;
    }

    /** Checks that both stores show the same, without reading the first index (which pins it). */
    private static void assertSame(final Twin twin, final String when) {
        final String where = twin.name + " " + when;
        assertEquals(twin.own.getLastLogIndex(), twin.view.getLastLogIndex(), where + ": last index");
        for (long i = 0; i <= twin.highest + 2; i++) {
            final LogEntry own = twin.own.getEntry(i);
            final LogEntry view = twin.view.getEntry(i);
            assertEquals(own, view, where + ": entry " + i);
            if (own != null) {
                assertEquals(own.getId().getTerm(), view.getId().getTerm(), where + ": term of entry " + i);
                assertEquals(own.getType(), view.getType(), where + ": type of entry " + i);
            }
            assertEquals(twin.own.getTerm(i), twin.view.getTerm(i), where + ": getTerm " + i);
        }
    }

    private static void assertSameConfigurations(
            final ConfigurationManager own, final ConfigurationManager view, final String where) {
        final ConfigurationEntry ownLast = own.getLastConfiguration();
        final ConfigurationEntry viewLast = view.getLastConfiguration();
        assertEquals(ownLast.getId(), viewLast.getId(), where + ": last configuration");
        assertEquals(ownLast.getConf(), viewLast.getConf(), where + ": last configuration's peers");
    }

    @Test
    void viewsOfOneSharedLogShowWhatLogsOfTheirOwnShowBeforeAndAfterItReopens() throws InterruptedException {
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        final GroupChurn churn = new GroupChurn(factory, "", 20, 3).start();
        final List<Twin> twins = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            twins.add(new Twin("group-" + g));
        }
        final SplittableRandom random = new SplittableRandom(42);
        // The groups' calls interleave in the shared log, one group's call after another's.
        for (int s = 0; s < STEPS; s++) {
            for (final Twin twin : twins) {
                final String call = step(twin, random);
                assertSame(twin, "after step " + s + " (" + call + ")");
            }
            if (s % 25 == 0) {
                churn.awaitRound();
                factory.groupLog().purge();
            }
        }
        churn.stop();
        churn.check();
        for (final Twin twin : twins) {
            assertEquals(twin.own.getFirstLogIndex(), twin.view.getFirstLogIndex(), twin.name + ": first index");
        }
        for (int purge = 0; purge < 3; purge++) {
            factory.groupLog().purge();
        }

        // Close the shared log and open it again: every view as before.
        churn.shutdownViews();
        for (final Twin twin : twins) {
            twin.view.shutdown();
        }
        factory.close();
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        churn.reopen(factory);
        churn.check();
        for (final Twin twin : twins) {
            twin.reopen();
            assertSame(twin, "after the reopen");
            assertEquals(
                    twin.own.getFirstLogIndex(),
                    twin.view.getFirstLogIndex(),
                    twin.name + ": first index after the reopen");
        }
        churn.shutdownViews();
    }

    @Test
    void configurationEntriesOfManyGroupsComeBackAfterTheSharedLogReopens() {
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        final List<Twin> twins = new ArrayList<>();
        for (int g = 0; g < 6; g++) {
            final Twin twin = new Twin("conf-" + g);
            final List<LogEntry> entries = new ArrayList<>();
            for (long i = 1; i <= 5 + g; i++) {
                entries.add(entry(i, 1, i % 2 == 1));
            }
            assertEquals(entries.size(), twin.own.appendEntries(entries));
            assertEquals(entries.size(), twin.view.appendEntries(entries));
            twins.add(twin);
        }
        for (final Twin twin : twins) {
            twin.view.shutdown();
        }
        factory.close();
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        for (final Twin twin : twins) {
            twin.own.shutdown();
            final ConfigurationManager ownConfigurations = new ConfigurationManager();
            final ConfigurationManager viewConfigurations = new ConfigurationManager();
            twin.own = own(twin.name, ownConfigurations);
            twin.view = view(twin.name, viewConfigurations);
            assertFalse(viewConfigurations.getLastConfiguration().isEmpty(), twin.name + ": no configuration");
            assertSameConfigurations(ownConfigurations, viewConfigurations, twin.name);
        }
    }

    @Test
    void urisNeverShareAGroupAndAnOpenGroupIsNotOpenedTwice() {
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        final LogStorage a = view("/data/raft/region-1/log", new ConfigurationManager());
        final LogStorage b = view("/data/raft/region-2/log", new ConfigurationManager());
        final long groupA = factory.groupId("/data/raft/region-1/log");
        final long groupB = factory.groupId("/data/raft/region-2/log");
        assertNotEquals(groupA, groupB);
        assertEquals(groupA, ((WaldenGroupLogStorage) a).groupId());
        assertEquals(-1, factory.groupId("/data/raft/region-3/log"));
        assertTrue(a.appendEntry(entry(1, 1, false)));
        assertEquals(0, b.getLastLogIndex(), "a write to one uri shows in another");

        final LogStorage twice = factory.createLogStorage("/data/raft/region-1/log", null);
        assertFalse(twice.init(JraftTestOptions.storageOptions()), "a second view of an open group");
        a.shutdown();
        assertTrue(twice.init(JraftTestOptions.storageOptions()), "the group once its view shut down");
        open.add(twice);
        assertEquals(1, twice.getLastLogIndex());

        // A removed name's id is never given again.
        twice.shutdown();
        assertTrue(factory.removeGroup("/data/raft/region-1/log"));
        final LogStorage again = view("/data/raft/region-1/log", new ConfigurationManager());
        assertEquals(0, again.getLastLogIndex(), "a removed group's entries");
        final long groupAgain = factory.groupId("/data/raft/region-1/log");
        assertNotEquals(groupA, groupAgain);
        assertNotEquals(groupB, groupAgain);

        // The names survive a reopen.
        again.shutdown();
        b.shutdown();
        factory.close();
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        assertEquals(groupAgain, factory.groupId("/data/raft/region-1/log"));
        assertEquals(groupB, factory.groupId("/data/raft/region-2/log"));
    }

    @Test
    void manyViewsInitAndAppendConcurrently() throws InterruptedException {
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        final int views = 64;
        final CountDownLatch start = new CountDownLatch(1);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final ConcurrentHashMap<Long, String> ids = new ConcurrentHashMap<>();
        final List<Thread> threads = new ArrayList<>();
        final List<LogStorage> made = new CopyOnWriteArrayList<>();
        for (int v = 0; v < views; v++) {
            final String uri = "concurrent-" + v;
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    final LogStorage view = factory.createLogStorage(uri, null);
                    assertTrue(view.init(JraftTestOptions.storageOptions()), "init of " + uri);
                    made.add(view);
                    final String previous = ids.put(((WaldenGroupLogStorage) view).groupId(), uri);
                    assertEquals(null, previous, "two uris share a group");
                    for (long i = 1; i <= 20; i++) {
                        assertTrue(view.appendEntry(entry(i, 1, false)));
                    }
                } catch (final Throwable ex) {
                    failures.add(ex);
                }
            }));
        }
        threads.forEach(Thread::start);
        start.countDown();
        for (final Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(120));
        }
        open.addAll(made);
        assertTrue(failures.isEmpty(), () -> "failures: " + failures);
        assertEquals(views, ids.size());
        for (final LogStorage view : made) {
            assertEquals(20, view.getLastLogIndex());
            assertEquals(entry(20, 1, false), view.getEntry(20));
        }
    }

    @Test
    void aCallLargerThanABatchIsAppendedInBatchesAndAnEntryLargerThanABatchIsRefused() {
        factory = WaldenGroupsJRaftServiceFactory.open(sharedConfig(tempDir.resolve("shared")));
        final LogStorage view = view("large", new ConfigurationManager());
        final List<LogEntry> entries = new ArrayList<>();
        for (long i = 1; i <= 40; i++) {
            final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
            entry.setId(new LogId(i, 1));
            final byte[] data = new byte[16 * 1024];
            data[0] = (byte) i;
            entry.setData(ByteBuffer.wrap(data));
            entries.add(entry);
        }
        // 40 entries of 16 KiB: about 10 batches of 64 KiB.
        assertEquals(40, view.appendEntries(entries));
        for (long i = 1; i <= 40; i++) {
            final LogEntry read = view.getEntry(i);
            assertNotNull(read, "entry " + i);
            assertEquals((byte) i, read.getData().get(0));
        }
        // The same call over entries held (a replacement) cannot go in several batches.
        assertEquals(0, view.appendEntries(entries));
        final LogEntry huge = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        huge.setId(new LogId(41, 1));
        huge.setData(ByteBuffer.wrap(new byte[128 * 1024]));
        assertEquals(0, view.appendEntries(List.of(huge)), "an entry larger than a batch");
        assertEquals(40, view.getLastLogIndex());
    }
}
