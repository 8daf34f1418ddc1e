package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.FSMCaller;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.core.NodeMetrics;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.RaftOutter;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogManagerOptions;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogManager;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.LogManagerImpl;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paths jraft walks over a {@code LogStorage}, on {@link WaldenLogStorage}: first the storage
 * calls that jraft's own storage tests make (what they append, truncate and reset, and what they
 * expect), then jraft's real {@link LogManagerImpl} driving the storage through a leader's appends, a
 * follower's conflict resolution, and the three ways {@code setSnapshot} touches the log (a prefix
 * truncation, a snapshot past the end of the log, and a snapshot whose term conflicts with the
 * follower's entry, which resets the log). Every path is checked again after a restart.
 */
// getTerm is deprecated in jraft's LogStorage but still part of its contract, and tested here.
@SuppressWarnings("deprecation")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JraftStoragePathsTest {
    private static final long WAIT_S = 30;

    @TempDir
    Path tempDir;

    private final List<LogStorage> storages = new ArrayList<>();
    private final List<LogManagerImpl> managers = new ArrayList<>();
    private final List<Status> managerErrors = new CopyOnWriteArrayList<>();
    private final ConfigurationManager configurations = new ConfigurationManager();

    @AfterEach
    void shutdownAll() throws InterruptedException {
        for (final LogManagerImpl manager : managers) {
            manager.shutdown();
            manager.join();
        }
        storages.forEach(LogStorage::shutdown);
        afterStorages();
    }

    /** Runs after every storage of a test shut down; a subclass closes what its storages share here. */
    void afterStorages() throws InterruptedException {}

    /**
     * A new storage, not yet initialised, named within the test ({@code "log"}): a subclass runs the
     * same paths on another storage. A storage made again with a name holds what the last one of that
     * name held.
     *
     * @param name the storage's name within the test.
     * @return the storage.
     */
    LogStorage newStorage(final String name) {
        return new WaldenLogStorage(tempDir.resolve(name));
    }

    // ---------------------------------------------------------------------------------------------
    // The storage calls of jraft's own storage tests
    // ---------------------------------------------------------------------------------------------

    private LogStorage storage(final String name) {
        final LogStorage storage = newStorage(name);
        assertTrue(storage.init(options()), "init");
        storages.add(storage);
        return storage;
    }

    private LogStorageOptions options() {
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(configurations);
        options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
        options.setGroupId("group001");
        return options;
    }

    /** An entry as jraft's tests make them: a no-op with optional data. */
    private static LogEntry entry(final long index, final long term, final byte[] data) {
        final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_NO_OP);
        entry.setId(new LogId(index, term));
        if (data != null) {
            entry.setData(ByteBuffer.wrap(data));
        }
        return entry;
    }

    /** Entries 0..count-1, index i with term i, data the decimal index but for entry 0. */
    private static List<LogEntry> fromZero(final int count) {
        final List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            entries.add(entry(i, i, i == 0 ? null : String.valueOf(i).getBytes(StandardCharsets.UTF_8)));
        }
        return entries;
    }

    @Test
    void anEmptyStoreStartsAtOneAndHoldsNothing() {
        final LogStorage storage = storage("log");
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        assertNull(storage.getEntry(0));
        assertNull(storage.getEntry(100));
    }

    @Test
    void aFirstEntryAtOneHundredThenAGap() {
        final LogStorage storage = storage("log");
        final LogEntry first = entry(100, 1, null);
        assertTrue(storage.appendEntry(first));
        assertEquals(100, storage.getFirstLogIndex());
        assertEquals(100, storage.getLastLogIndex());
        assertEquals(first, storage.getEntry(100));
        final LogEntry second = entry(200, 2, null);
        assertTrue(storage.appendEntry(second));
        assertEquals(100, storage.getFirstLogIndex());
        assertEquals(200, storage.getLastLogIndex());
        assertEquals(first, storage.getEntry(100));
        assertEquals(second, storage.getEntry(200));
        assertEquals(2, storage.getTerm(200));
    }

    @Test
    void configurationEntriesAreReplayedAtInitInIndexOrder() {
        final String directory = "log";
        LogStorage storage = storage(directory);
        assertTrue(configurations.getLastConfiguration().isEmpty());
        final LogEntry one = new LogEntry(EntryType.ENTRY_TYPE_CONFIGURATION);
        one.setId(new LogId(99, 1));
        one.setPeers(List.of(PeerId.parsePeer("localhost:8081"), PeerId.parsePeer("localhost:8082")));
        final LogEntry two = new LogEntry(EntryType.ENTRY_TYPE_CONFIGURATION);
        two.setId(new LogId(100, 2));
        two.setPeers(List.of(
                PeerId.parsePeer("localhost:8081"),
                PeerId.parsePeer("localhost:8082"),
                PeerId.parsePeer("localhost:8083")));
        assertTrue(storage.appendEntry(one));
        assertEquals(1, storage.appendEntries(List.of(two)));
        assertTrue(configurations.getLastConfiguration().isEmpty(), "an append adds no configuration");
        storage.shutdown();
        storages.remove(storage);
        storage = storage(directory);
        assertEquals(
                "localhost:8081,localhost:8082,localhost:8083",
                configurations.getLastConfiguration().getConf().toString());
        assertEquals(
                "localhost:8081,localhost:8082",
                configurations.get(99).getConf().toString());
    }

    @Test
    void entriesFromIndexZero() {
        final LogStorage storage = storage("log");
        final List<LogEntry> entries = fromZero(10);
        assertEquals(10, storage.appendEntries(entries));
        assertEquals(0, storage.getFirstLogIndex());
        assertEquals(9, storage.getLastLogIndex());
        for (int i = 0; i < 10; i++) {
            assertEquals(entries.get(i), storage.getEntry(i));
            assertEquals(i, storage.getTerm(i));
        }
    }

    @Test
    void resetKeepsTheEntryAtTheNextIndex() {
        final LogStorage storage = storage("log");
        assertEquals(10, storage.appendEntries(fromZero(10)));
        assertEquals(0, storage.getFirstLogIndex());
        assertTrue(storage.reset(5));
        assertEquals(5, storage.getFirstLogIndex());
        assertEquals(5, storage.getLastLogIndex());
        assertNotNull(storage.getEntry(5));
        assertEquals(5, storage.getEntry(5).getId().getTerm());
        assertNull(storage.getEntry(4));
    }

    @Test
    void truncatePrefixKeepsTheIndexKept() {
        final LogStorage storage = storage("log");
        final List<LogEntry> entries = fromZero(10);
        assertEquals(10, storage.appendEntries(entries));
        assertTrue(storage.truncatePrefix(5));
        assertEquals(5, storage.getFirstLogIndex());
        assertEquals(9, storage.getLastLogIndex());
        for (int i = 0; i < 5; i++) {
            assertNull(storage.getEntry(i));
        }
        for (int i = 5; i < 10; i++) {
            assertEquals(entries.get(i), storage.getEntry(i));
        }
    }

    @Test
    void manyLargeEntriesFromZeroAndAReinitOfTheSameInstance() {
        final LogStorage storage = storage("log");
        final int count = 2_000;
        final java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        for (int from = 0; from < count; from += 100) {
            final List<LogEntry> batch = new ArrayList<>();
            for (int j = from; j < from + 100; j++) {
                final byte[] data = new byte[16 * 1024];
                for (int k = 0; k < data.length; k += 512) {
                    data[k] = (byte) random.nextInt(256);
                }
                batch.add(entry(j, j, data));
            }
            assertEquals(100, storage.appendEntries(batch));
        }
        checkLargeEntries(storage, count);
        storage.shutdown();
        assertTrue(storage.init(options()), "init again after shutdown");
        checkLargeEntries(storage, count);
    }

    private static void checkLargeEntries(final LogStorage storage, final int count) {
        for (int i = 0; i < count; i++) {
            final LogEntry read = storage.getEntry(i);
            assertNotNull(read, "entry " + i);
            assertEquals(i, read.getId().getIndex());
            assertEquals(i, read.getId().getTerm());
            assertEquals(16 * 1024, read.getData().remaining());
        }
    }

    @Test
    void truncateSuffixKeepsTheFirstIndex() {
        final LogStorage storage = storage("log");
        final List<LogEntry> entries = fromZero(10);
        assertEquals(10, storage.appendEntries(entries));
        assertTrue(storage.truncateSuffix(5));
        assertEquals(0, storage.getFirstLogIndex());
        assertEquals(5, storage.getLastLogIndex());
        for (int i = 0; i <= 5; i++) {
            assertEquals(entries.get(i), storage.getEntry(i));
        }
        for (int i = 6; i < 10; i++) {
            assertNull(storage.getEntry(i));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // jraft's LogManagerImpl over the storage
    // ---------------------------------------------------------------------------------------------

    private LogManagerImpl manager(final String name) {
        final LogStorage storage = newStorage(name);
        storages.add(storage);
        final LogManagerOptions options = new LogManagerOptions();
        options.setConfigurationManager(configurations);
        options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
        options.setFsmCaller(fsmCaller());
        options.setNodeMetrics(new NodeMetrics(false));
        options.setLogStorage(storage);
        options.setRaftOptions(new RaftOptions());
        options.setGroupId("group001");
        final LogManagerImpl manager = new LogManagerImpl();
        assertTrue(manager.init(options), "log manager init");
        managers.add(manager);
        return manager;
    }

    /** An FSM caller that records the errors the log manager reports (jraft's node would go into ERROR). */
    private FSMCaller fsmCaller() {
        return (FSMCaller) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {FSMCaller.class}, (proxy, method, args) -> {
                    if (method.getName().equals("onError") && args != null && args.length == 1) {
                        final Object error = args[0];
                        managerErrors.add(
                                error instanceof com.alipay.sofa.jraft.error.RaftException raft
                                        ? raft.getStatus()
                                        : new Status(-1, String.valueOf(error)));
                    }
                    final Class<?> type = method.getReturnType();
                    if (type == boolean.class) {
                        return true;
                    }
                    if (type == long.class) {
                        return 0L;
                    }
                    if (type == int.class) {
                        return 0;
                    }
                    return null;
                });
    }

    private void restartManager(final LogManagerImpl manager) throws InterruptedException {
        manager.shutdown();
        manager.join();
        managers.remove(manager);
        final LogStorage storage = storages.remove(storages.size() - 1);
        storage.shutdown();
    }

    /** Appends through the log manager and waits until the storage holds the entries. */
    private static Status append(final LogManager manager, final List<LogEntry> entries) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        final Status[] status = new Status[1];
        manager.appendEntries(new ArrayList<>(entries), new LogManager.StableClosure() {
            @Override
            public void run(final Status result) {
                status[0] = result;
                done.countDown();
            }
        });
        assertTrue(done.await(WAIT_S, TimeUnit.SECONDS), "the append completed");
        return status[0];
    }

    private static List<LogEntry> data(final long from, final long to, final long term) {
        final List<LogEntry> entries = new ArrayList<>();
        for (long i = from; i <= to; i++) {
            final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
            entry.setId(new LogId(i, term));
            entry.setData(ByteBuffer.wrap(("entry " + i + " term " + term).getBytes(StandardCharsets.UTF_8)));
            entries.add(entry);
        }
        return entries;
    }

    private static RaftOutter.SnapshotMeta snapshot(final long index, final long term) {
        return RaftOutter.SnapshotMeta.newBuilder()
                .setLastIncludedIndex(index)
                .setLastIncludedTerm(term)
                .addPeers("localhost:8081")
                .build();
    }

    private void assertManagerHolds(final LogManager manager, final long first, final long last, final long[] terms) {
        assertEquals(first, manager.getFirstLogIndex(), "first index");
        // A flush through the log manager's queue: every storage call before it has run.
        assertEquals(last, manager.getLastLogIndex(true), "last index");
        for (long i = first; i <= last; i++) {
            final LogEntry entry = manager.getEntry(i);
            assertNotNull(entry, "entry " + i);
            assertEquals(terms[(int) i], entry.getId().getTerm(), "term of entry " + i);
        }
        assertTrue(managerErrors.isEmpty(), () -> "the log manager reported errors: " + managerErrors);
    }

    @Test
    void aFollowerResolvesAConflictByTruncatingTheSuffix() throws InterruptedException {
        final String directory = "log";
        LogManagerImpl manager = manager(directory);
        assertTrue(append(manager, data(1, 20, 1)).isOk());
        final List<LogEntry> conflicting = data(11, 14, 1);
        conflicting.addAll(data(15, 30, 2));
        assertTrue(append(manager, conflicting).isOk());
        final long[] terms = new long[31];
        java.util.Arrays.fill(terms, 1, 15, 1);
        java.util.Arrays.fill(terms, 15, 31, 2);
        assertManagerHolds(manager, 1, 30, terms);
        restartManager(manager);
        manager = manager(directory);
        assertManagerHolds(manager, 1, 30, terms);
    }

    @Test
    void aSnapshotWithMatchingTermsTruncatesThePrefix() throws InterruptedException {
        final String directory = "log";
        LogManagerImpl manager = manager(directory);
        final List<LogEntry> entries = data(1, 10, 1);
        assertTrue(append(manager, entries).isOk());
        manager.setSnapshot(snapshot(3, 1));
        manager.setSnapshot(snapshot(5, 1));
        final long[] terms = new long[11];
        java.util.Arrays.fill(terms, 1, 11, 1);
        // The second snapshot truncates up to the first one's end: the log starts at 4.
        assertManagerHolds(manager, 4, 10, terms);
        restartManager(manager);
        manager = manager(directory);
        assertManagerHolds(manager, 4, 10, terms);
    }

    @Test
    void aSnapshotPastTheEndOfTheLogLeavesItToContinueAfterTheSnapshot() throws InterruptedException {
        final String directory = "log";
        LogManagerImpl manager = manager(directory);
        assertTrue(append(manager, data(1, 10, 1)).isOk());
        manager.setSnapshot(snapshot(20, 3));
        assertTrue(append(manager, data(21, 23, 3)).isOk(), "the follower's append after the snapshot");
        final long[] terms = new long[24];
        java.util.Arrays.fill(terms, 21, 24, 3);
        assertManagerHolds(manager, 21, 23, terms);
        restartManager(manager);
        manager = manager(directory);
        assertManagerHolds(manager, 21, 23, terms);
    }

    @Test
    void aSnapshotWhoseTermConflictsResetsTheLogAndTheFollowerAppendsFromThere() throws InterruptedException {
        final String directory = "log";
        LogManagerImpl manager = manager(directory);
        assertTrue(append(manager, data(1, 10, 1)).isOk());
        // The leader's snapshot ends at 5 with term 2; the follower holds entry 5 of term 1.
        manager.setSnapshot(snapshot(5, 2));
        assertTrue(append(manager, data(6, 8, 2)).isOk(), "the follower's append after the reset");
        final long[] terms = new long[9];
        java.util.Arrays.fill(terms, 6, 9, 2);
        assertManagerHolds(manager, 6, 8, terms);
        restartManager(manager);
        manager = manager(directory);
        assertManagerHolds(manager, 6, 8, terms);
    }

    @Test
    void aSnapshotWhoseTermConflictsWithNoEntryAfterItResetsToANoOpThatTheFollowerOverwrites()
            throws InterruptedException {
        final String directory = "log";
        LogManagerImpl manager = manager(directory);
        assertTrue(append(manager, data(1, 10, 1)).isOk());
        manager.setSnapshot(snapshot(10, 2));
        assertTrue(append(manager, data(11, 12, 2)).isOk());
        final long[] terms = new long[13];
        java.util.Arrays.fill(terms, 11, 13, 2);
        assertManagerHolds(manager, 11, 12, terms);
        restartManager(manager);
        manager = manager(directory);
        assertManagerHolds(manager, 11, 12, terms);
    }
}
