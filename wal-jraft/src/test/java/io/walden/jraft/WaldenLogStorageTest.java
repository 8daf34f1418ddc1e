package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import io.walden.WalConfig;
import io.walden.format.SegmentNames;
import io.walden.nio.NioStorageBackend;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every point of jraft's {@code LogStorage} contract on {@link WaldenLogStorage}, each also across a
 * restart, and a restart from the files a killed process leaves.
 */
// getTerm is deprecated in jraft's LogStorage but still part of its contract, and tested here.
@SuppressWarnings("deprecation")
class WaldenLogStorageTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int DATA_BYTES = 1000;

    @TempDir
    Path tempDir;

    private final List<WaldenLogStorage> open = new ArrayList<>();

    @AfterEach
    void shutdownAll() {
        open.forEach(WaldenLogStorage::shutdown);
    }

    private static WalConfig config(final Path directory) {
        return WalConfig.builder(directory)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .build();
    }

    private WaldenLogStorage start(final Path directory, final ConfigurationManager configurations) {
        final WaldenLogStorage storage = new WaldenLogStorage(directory, WaldenLogStorageTest::config);
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(configurations);
        options.setLogEntryCodecFactory(DefaultJRaftServiceFactory.newInstance().createLogEntryCodecFactory());
        assertTrue(storage.init(options), "init");
        open.add(storage);
        return storage;
    }

    private WaldenLogStorage start(final Path directory) {
        return start(directory, new ConfigurationManager());
    }

    private WaldenLogStorage restart(final WaldenLogStorage storage, final Path directory) {
        storage.shutdown();
        open.remove(storage);
        return start(directory);
    }

    private static LogEntry data(final long index, final long term) {
        final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        entry.setId(new LogId(index, term));
        final byte[] bytes = new byte[DATA_BYTES];
        final byte[] tag = ("entry " + index + " term " + term).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(tag, 0, bytes, 0, tag.length);
        entry.setData(ByteBuffer.wrap(bytes));
        return entry;
    }

    private static List<LogEntry> entries(final long from, final long to, final long term) {
        final List<LogEntry> entries = new ArrayList<>();
        for (long index = from; index <= to; index++) {
            entries.add(data(index, term));
        }
        return entries;
    }

    private static void assertEntry(final WaldenLogStorage storage, final long index, final long term) {
        final LogEntry entry = storage.getEntry(index);
        assertNotNull(entry, "entry " + index);
        assertEquals(new LogId(index, term), entry.getId());
        assertEquals(EntryType.ENTRY_TYPE_DATA, entry.getType());
        assertEquals(data(index, term).getData(), entry.getData());
        assertEquals(term, storage.getTerm(index));
    }

    private static void assertHolds(
            final WaldenLogStorage storage, final long first, final long last, final long term) {
        assertEquals(first, storage.getFirstLogIndex(), "first index");
        assertEquals(last, storage.getLastLogIndex(), "last index");
        for (long index = first; index <= last; index++) {
            assertEntry(storage, index, term);
        }
        assertNull(storage.getEntry(first - 1));
        assertNull(storage.getEntry(last + 1));
        assertEquals(0, storage.getTerm(last + 1));
    }

    private static void assertEntries(final WaldenLogStorage storage, final long from, final long to, final long term) {
        for (long index = from; index <= to; index++) {
            assertEntry(storage, index, term);
        }
    }

    private static long segmentCount(final Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(
                            p -> SegmentNames.parseSegmentName(p.getFileName().toString()) >= 0)
                    .count();
        }
    }

    @Test
    void shouldStartEmptyAtIndexOne() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        assertNull(storage.getEntry(1));
        assertEquals(0, storage.getTerm(1));
        storage = restart(storage, directory);
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
    }

    @Test
    void shouldAppendEntriesDurablyAndReadThemBackByIndexAcrossARestart() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(100, storage.appendEntries(entries(1, 100, 1)));
        assertHolds(storage, 1, 100, 1);
        assertTrue(storage.appendEntry(data(101, 2)));
        assertEntry(storage, 101, 2);
        storage = restart(storage, directory);
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(101, storage.getLastLogIndex());
        assertEntries(storage, 1, 100, 1);
        assertEntry(storage, 101, 2);
    }

    @Test
    void shouldStoreEntriesAtAnyIndexAsAMapDoes() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        // An empty log takes any first index, 0 included.
        assertEquals(10, storage.appendEntries(entries(0, 9, 1)));
        assertEquals(0, storage.getFirstLogIndex());
        assertEquals(9, storage.getLastLogIndex());
        // A gap: the indexes between hold nothing.
        assertEquals(3, storage.appendEntries(entries(12, 14, 1)));
        assertEquals(14, storage.getLastLogIndex());
        assertNull(storage.getEntry(10));
        assertNull(storage.getEntry(11));
        assertEquals(0, storage.getTerm(11));
        // An entry already held is replaced; the entries after it stay.
        assertEquals(1, storage.appendEntries(List.of(data(5, 2))));
        assertEntry(storage, 5, 2);
        assertEntry(storage, 6, 1);
        assertEquals(14, storage.getLastLogIndex());
        storage = restart(storage, directory);
        assertEquals(0, storage.getFirstLogIndex());
        assertEquals(14, storage.getLastLogIndex());
        assertEntries(storage, 0, 4, 1);
        assertEntry(storage, 5, 2);
        assertEntries(storage, 6, 9, 1);
        assertNull(storage.getEntry(10));
        assertEntries(storage, 12, 14, 1);
        // A suffix truncation keeps the replaced entry, which lies after the entries it drops.
        assertTrue(storage.truncateSuffix(7));
        assertEquals(7, storage.getLastLogIndex());
        assertEntry(storage, 5, 2);
        storage = restart(storage, directory);
        assertEquals(7, storage.getLastLogIndex());
        assertEntry(storage, 5, 2);
        assertEntries(storage, 6, 7, 1);
        assertNull(storage.getEntry(8));
    }

    @Test
    void shouldTakeTheNextIndexAgainAfterAResetAsASnapshotInstallDoes() {
        // jraft's LogManagerImpl.setSnapshot with a conflicting term: reset(n), then append from n.
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(10, storage.appendEntries(entries(1, 10, 1)));
        assertTrue(storage.reset(6));
        assertEquals(6, storage.getFirstLogIndex());
        assertEquals(6, storage.getLastLogIndex());
        assertEntry(storage, 6, 1);
        assertEquals(1, storage.appendEntries(List.of(data(6, 2))));
        assertHolds(storage, 6, 6, 2);
        assertEquals(3, storage.appendEntries(entries(7, 9, 2)));
        storage = restart(storage, directory);
        assertHolds(storage, 6, 9, 2);
    }

    @Test
    void shouldPinTheFirstIndexOnceReadAsJraftsStoreDoesAcrossARestart() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(10, storage.appendEntries(entries(10, 19, 1)));
        assertEquals(10, storage.getFirstLogIndex());
        // Below the pinned first index: stored by jraft's store, never returned.
        assertEquals(1, storage.appendEntries(List.of(data(5, 1))));
        assertNull(storage.getEntry(5));
        assertEquals(10, storage.getFirstLogIndex());
        storage = restart(storage, directory);
        assertEquals(10, storage.getFirstLogIndex());
        assertNull(storage.getEntry(5));
        assertHolds(storage, 10, 19, 1);
    }

    @Test
    void shouldStoreNoneOfAnAppendThatFailsPartWayAndTakeWhatComesInstead() {
        final Path directory = tempDir.resolve("log");
        final ControllableBackend backend = new ControllableBackend(new NioStorageBackend());
        WaldenLogStorage storage = new WaldenLogStorage(directory, dir -> WalConfig.builder(dir)
                .backend(backend)
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(8 * 1024)
                .appendTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
                .build());
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(new ConfigurationManager());
        options.setLogEntryCodecFactory(DefaultJRaftServiceFactory.newInstance().createLogEntryCodecFactory());
        assertTrue(storage.init(options));
        open.add(storage);
        assertEquals(5, storage.appendEntries(entries(1, 5, 1)));
        // No write completes: the call's first batches fill the 64 KiB buffer, a later one times out.
        backend.holdWrites();
        assertEquals(0, storage.appendEntries(entries(6, 200, 1)), "a call that failed part way stores nothing");
        assertHolds(storage, 1, 5, 1);
        backend.releaseWrites();
        // What a new leader sends instead: fewer entries, another term.
        assertEquals(3, storage.appendEntries(entries(6, 8, 2)));
        assertEntries(storage, 1, 5, 1);
        assertEntries(storage, 6, 8, 2);
        assertEquals(8, storage.getLastLogIndex());
        storage = restart(storage, directory);
        // The failed call's records are in the log, but its last record is not: none of it counts.
        assertEquals(8, storage.getLastLogIndex());
        assertEntries(storage, 1, 5, 1);
        assertEntries(storage, 6, 8, 2);
    }

    @Test
    void shouldStoreAnEntryLargerThanARecordInParts() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(3, storage.appendEntries(entries(1, 3, 1)));
        final LogEntry large = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        large.setId(new LogId(4, 1));
        final byte[] payload = TestRecords.bytes(4, 100 * 1024);
        large.setData(ByteBuffer.wrap(payload));
        assertEquals(2, storage.appendEntries(List.of(large, data(5, 1))));
        assertEquals(ByteBuffer.wrap(payload), storage.getEntry(4).getData());
        assertEntry(storage, 5, 1);
        storage = restart(storage, directory);
        assertEquals(ByteBuffer.wrap(payload), storage.getEntry(4).getData());
        assertEntries(storage, 1, 3, 1);
        assertEntry(storage, 5, 1);
        // A suffix truncation that keeps the large entry keeps all of its parts.
        assertTrue(storage.truncateSuffix(4));
        storage = restart(storage, directory);
        assertEquals(4, storage.getLastLogIndex());
        assertEquals(ByteBuffer.wrap(payload), storage.getEntry(4).getData());
    }

    @Test
    void shouldSplitAnAppendLargerThanOneBatchAndStoreAllOfIt() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        // 40 entries of 1 KB against records of at most 8 KiB: several batches, one call.
        assertEquals(40, storage.appendEntries(entries(1, 40, 1)));
        storage = restart(storage, directory);
        assertHolds(storage, 1, 40, 1);
    }

    @Test
    void shouldStoreAnEntryOf64MiBWithTheDefaultConfigurationAcrossARestart() {
        final Path directory = tempDir.resolve("log");
        final WaldenLogStorage storage = new WaldenLogStorage(directory);
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(new ConfigurationManager());
        options.setLogEntryCodecFactory(DefaultJRaftServiceFactory.newInstance().createLogEntryCodecFactory());
        assertTrue(storage.init(options));
        open.add(storage);
        final LogEntry large = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        large.setId(new LogId(1, 1));
        final byte[] payload = new byte[64 * 1024 * 1024];
        new java.util.Random(7).nextBytes(payload);
        large.setData(ByteBuffer.wrap(payload));
        assertTrue(storage.appendEntry(large));
        assertEquals(ByteBuffer.wrap(payload), storage.getEntry(1).getData());
        storage.shutdown();
        assertTrue(storage.init(options));
        assertEquals(1, storage.getLastLogIndex());
        assertEquals(ByteBuffer.wrap(payload), storage.getEntry(1).getData());
    }

    @Test
    void shouldRefuseAppendsAndTruncationsAfterShutdownWithoutThrowing() {
        final WaldenLogStorage storage = start(tempDir.resolve("log"));
        assertEquals(3, storage.appendEntries(entries(1, 3, 1)));
        storage.shutdown();
        assertEquals(0, storage.appendEntries(entries(4, 5, 1)));
        assertEquals(false, storage.truncatePrefix(2));
        assertNull(storage.getEntry(1));
    }

    @Test
    void shouldReplayConfigurationEntriesIntoTheConfigurationManagerAtInit() {
        final Path directory = tempDir.resolve("log");
        final WaldenLogStorage storage = start(directory);
        final LogEntry configuration = new LogEntry(EntryType.ENTRY_TYPE_CONFIGURATION);
        configuration.setId(new LogId(3, 1));
        configuration.setPeers(List.of(PeerId.parsePeer("127.0.0.1:8081"), PeerId.parsePeer("127.0.0.1:8082")));
        configuration.setOldPeers(List.of(PeerId.parsePeer("127.0.0.1:8081")));
        assertEquals(2, storage.appendEntries(entries(1, 2, 1)));
        assertTrue(storage.appendEntry(configuration));
        assertEquals(2, storage.appendEntries(entries(4, 5, 1)));
        storage.shutdown();
        open.remove(storage);
        final ConfigurationManager configurations = new ConfigurationManager();
        start(directory, configurations);
        assertEquals(new LogId(3, 1), configurations.getLastConfiguration().getId());
        assertEquals(2, configurations.getLastConfiguration().getConf().size());
        assertTrue(configurations.getLastConfiguration().getConf().contains(PeerId.parsePeer("127.0.0.1:8082")));
        assertEquals(1, configurations.getLastConfiguration().getOldConf().size());
    }

    @Test
    void shouldTruncatePrefixDurablyAtOnceAndDeleteWholeSegments() throws IOException {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(300, storage.appendEntries(entries(1, 300, 1)));
        final long segmentsBefore = segmentCount(directory);
        assertTrue(storage.truncatePrefix(200));
        assertHolds(storage, 200, 300, 1);
        assertTrue(segmentCount(directory) < segmentsBefore, "no whole segment below entry 200 was deleted");
        storage = restart(storage, directory);
        assertHolds(storage, 200, 300, 1);
        // A prefix beyond the last entry: the log is empty (last index 0, as jraft's RocksDB store
        // says once its background deletion ran) and continues at the first index.
        assertTrue(storage.truncatePrefix(400));
        assertEquals(400, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        storage = restart(storage, directory);
        assertEquals(400, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        assertEquals(5, storage.appendEntries(entries(400, 404, 2)));
        assertHolds(restart(storage, directory), 400, 404, 2);
    }

    @Test
    void shouldTruncateSuffixAndTakeNewEntriesAfterItAcrossARestart() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(200, storage.appendEntries(entries(1, 200, 1)));
        assertTrue(storage.truncatePrefix(20));
        assertTrue(storage.truncateSuffix(120));
        assertHolds(storage, 20, 120, 1);
        assertEquals(10, storage.appendEntries(entries(121, 130, 2)));
        assertEntry(storage, 121, 2);
        storage = restart(storage, directory);
        assertEquals(20, storage.getFirstLogIndex());
        assertEquals(130, storage.getLastLogIndex());
        assertEntries(storage, 20, 120, 1);
        assertEntries(storage, 121, 130, 2);
        // Nothing kept after the first index: the log is empty and keeps its first index.
        assertTrue(storage.truncateSuffix(19));
        assertEquals(20, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        storage = restart(storage, directory);
        assertEquals(20, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
    }

    @Test
    void shouldResetToANextIndexWithTheEntryThereOrANoOp() {
        final Path directory = tempDir.resolve("log");
        WaldenLogStorage storage = start(directory);
        assertEquals(50, storage.appendEntries(entries(1, 50, 1)));
        assertTrue(storage.reset(30));
        assertEquals(30, storage.getFirstLogIndex());
        assertEquals(30, storage.getLastLogIndex());
        assertEntry(storage, 30, 1);
        assertTrue(storage.reset(1000));
        assertEquals(1000, storage.getFirstLogIndex());
        assertEquals(1000, storage.getLastLogIndex());
        assertEquals(EntryType.ENTRY_TYPE_NO_OP, storage.getEntry(1000).getType());
        storage = restart(storage, directory);
        assertEquals(1000, storage.getFirstLogIndex());
        assertEquals(1000, storage.getLastLogIndex());
        assertEquals(3, storage.appendEntries(entries(1001, 1003, 3)));
        assertEntry(restart(storage, directory), 1003, 3);
        assertThrows(
                IllegalArgumentException.class, () -> open.get(open.size() - 1).reset(0));
    }

    @Test
    void shouldRestartFromTheFilesAKilledProcessLeaves() throws IOException {
        final Path directory = tempDir.resolve("log");
        final WaldenLogStorage storage = start(directory);
        assertEquals(150, storage.appendEntries(entries(1, 150, 1)));
        assertTrue(storage.truncatePrefix(10));
        // The files as they are now, with the log still open: what kill -9 leaves (the page cache).
        final Path copy = tempDir.resolve("killed");
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(directory)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                if (!file.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME)) {
                    Files.copy(file, copy.resolve(file.getFileName()));
                }
            }
        }
        assertHolds(start(copy), 10, 150, 1);
    }
}
