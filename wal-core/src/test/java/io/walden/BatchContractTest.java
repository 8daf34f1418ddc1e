package io.walden;

import static io.walden.testing.TestRecords.replayAll;
import static io.walden.testing.TestRecords.tagged;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.testing.LogImages;
import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import io.walden.testing.TestRecords.Tag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomic batches ({@link Wal#append(WalBatch, Durability)}): a batch's records take consecutive
 * frames, are read back in order, are recovered all or none after a crash, and are never delivered in
 * part by a reader of a live log, a read-only view or a log truncated inside a batch.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class BatchContractTest {
    private static final int BATCH_SEGMENT_BYTES = 256 * 1024;

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected BatchContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    private WalConfig batchConfig(final Path directory) {
        // No periodic sync: a crash image then proves durable only what a test made SYNCED.
        return fixture.config(directory)
                .segmentCapacityBytes(BATCH_SEGMENT_BYTES)
                .syncIntervalNs(0)
                .build();
    }

    @Test
    void aBatchTakesConsecutiveFramesAndIsReadBackInOrderAtEveryLevel() {
        final Path directory = fixture.tempDir().resolve("log");
        final List<byte[]> appended = new ArrayList<>();
        final List<Long> lsns = new ArrayList<>();
        try (Wal wal = Wal.open(batchConfig(directory))) {
            final WalBatch batch = new WalBatch();
            int sequence = 0;
            for (final Durability level : Durability.values()) {
                batch.clear();
                for (int i = 0; i < 5; i++) {
                    final byte[] payload = tagged(1, sequence++, 16 + 37 * i);
                    batch.add(payload);
                    appended.add(payload);
                }
                final long first = wal.append(batch, level);
                assertEquals(first, batch.lsn(0));
                for (int i = 1; i < batch.size(); i++) {
                    assertEquals(
                            batch.lsn(i - 1)
                                    + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(batch.length(i - 1))),
                            batch.lsn(i),
                            "record " + i + " follows the one before it");
                }
                for (int i = 0; i < batch.size(); i++) {
                    lsns.add(batch.lsn(i));
                }
            }
            wal.sync();
            assertRead(appended, lsns, replayAll(wal));
        }
        try (Wal wal = Wal.open(batchConfig(directory))) {
            assertRead(appended, lsns, replayAll(wal));
        }
    }

    @Test
    void aBatchTooLargeOrEmptyIsRefusedWholeAndNothingIsAppended() {
        try (Wal wal = Wal.open(batchConfig(fixture.tempDir().resolve("log")))) {
            final int maxRecordBytes = wal.config().maxRecordBytes();
            final WalBatch batch = new WalBatch();
            final WalException empty = assertThrows(WalException.class, () -> wal.append(batch, Durability.SYNCED));
            assertEquals(WalException.ErrorCode.CONFIG, empty.errorCode());
            batch.add(new byte[maxRecordBytes / 2]).add(new byte[maxRecordBytes / 2]);
            final long tail = wal.tailPosition();
            final WalException tooLarge = assertThrows(WalException.class, () -> wal.append(batch, Durability.SYNCED));
            assertEquals(WalException.ErrorCode.CONFIG, tooLarge.errorCode());
            assertEquals(WalException.NO_LSN, tooLarge.lsn());
            assertTrue(tooLarge.getMessage().contains("maxRecordBytes"), tooLarge.getMessage());
            assertEquals(tail, wal.tailPosition(), "nothing of a refused batch takes log space");
            assertThrows(IllegalStateException.class, () -> batch.lsn(0));
            final byte[] after = tagged(2, 0, 64);
            final long lsn = wal.append(after, Durability.SYNCED);
            assertRead(List.of(after), List.of(lsn), replayAll(wal));
        }
    }

    @Test
    void aCrashThatLosesTheLastFrameOfABatchLosesTheWholeBatch() throws IOException {
        final Path live = fixture.tempDir().resolve("live");
        final Path image = fixture.tempDir().resolve("image");
        final byte[] before = tagged(1, 0, 100);
        final long beforeLsn;
        final WalBatch batch = new WalBatch();
        try (Wal wal = Wal.open(batchConfig(live))) {
            beforeLsn = wal.append(before, Durability.SYNCED);
            for (int i = 0; i < 4; i++) {
                batch.add(tagged(2, i, 200 + i));
            }
            wal.append(batch, Durability.WRITTEN);
            LogImages.crashImage(live, image);
        }
        // The crash wrote every frame of the batch but its last.
        zeroFrame(image, batch.lsn(3), batch.length(3));
        if (fixture.writesDurable()) {
            // Every completed write was durable (O_DSYNC). If the log recorded so in the segment
            // header when it went idle before the copy, a frame missing below that is damage to synced
            // data, whatever batch it belongs to; if not, the batch is cut whole as below.
            try (Wal wal = Wal.open(batchConfig(image))) {
                assertCutWhole(wal, before, beforeLsn, batch);
            } catch (final WalCorruptionException refused) {
                assertTrue(refused.getMessage().contains("synced"), refused.getMessage());
            }
            return;
        }
        try (Wal wal = Wal.open(batchConfig(image))) {
            assertCutWhole(wal, before, beforeLsn, batch);
        }
    }

    private static void assertCutWhole(final Wal wal, final byte[] before, final long beforeLsn, final WalBatch batch) {
        assertRead(List.of(before), List.of(beforeLsn), replayAll(wal));
        final RecoveryReport report = wal.recoveryReport();
        assertEquals(batch.lsn(0), report.recoveredEndPosition(), report.summary());
        assertEquals(3, report.tornTailRecordsCut(), report.summary());
        final long next = wal.append(tagged(3, 0, 50), Durability.SYNCED);
        assertTrue(next > batch.lsn(3), "no position of the cut batch is given again: " + next);
    }

    @Test
    void damageToTheLastFrameOfASyncedBatchIsCorruptionNotACut() throws IOException {
        final Path live = fixture.tempDir().resolve("live");
        final Path image = fixture.tempDir().resolve("image");
        final WalBatch batch = new WalBatch();
        try (Wal wal = Wal.open(batchConfig(live))) {
            for (int i = 0; i < 3; i++) {
                batch.add(tagged(2, i, 300));
            }
            wal.append(batch, Durability.SYNCED);
            // Framed after the batch was synced: its durable offset proves the batch durable.
            wal.append(tagged(3, 0, 40), Durability.WRITTEN);
            LogImages.crashImage(live, image);
        }
        zeroFrame(image, batch.lsn(2), batch.length(2));
        final WalCorruptionException refused =
                assertThrows(WalCorruptionException.class, () -> Wal.open(batchConfig(image)));
        assertTrue(refused.getMessage().contains("synced"), refused.getMessage());
    }

    @Test
    void aReadOnlyViewNeverDeliversABatchWhoseLastFrameIsMissing() throws IOException {
        final Path live = fixture.tempDir().resolve("live");
        final Path image = fixture.tempDir().resolve("image");
        final byte[] before = tagged(1, 0, 100);
        final long beforeLsn;
        final WalBatch batch = new WalBatch();
        try (Wal wal = Wal.open(batchConfig(live))) {
            beforeLsn = wal.append(before, Durability.SYNCED);
            for (int i = 0; i < 3; i++) {
                batch.add(tagged(2, i, 500));
            }
            wal.append(batch, Durability.SYNCED);
            LogImages.crashImage(live, image);
        }
        zeroFrame(image, batch.lsn(2), batch.length(2));
        try (WalView view = Wal.openReadOnly(image);
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            final List<Read> read = TestRecords.pollAll(reader, 100);
            assertRead(List.of(before), List.of(beforeLsn), read);
            assertEquals(batch.lsn(0), reader.position(), "the reader waits at the batch's first record");
        }
    }

    @Test
    void truncateAfterInsideABatchKeepsItsRecordsUpToTheCut() {
        final Path directory = fixture.tempDir().resolve("log");
        final WalBatch batch = new WalBatch();
        final List<byte[]> kept = new ArrayList<>();
        final List<Long> keptLsns = new ArrayList<>();
        try (Wal wal = Wal.open(batchConfig(directory))) {
            for (int i = 0; i < 4; i++) {
                batch.add(tagged(1, i, 100 + i));
            }
            wal.append(batch, Durability.SYNCED);
            for (int i = 0; i < 2; i++) {
                kept.add(tagged(1, i, 100 + i));
                keptLsns.add(batch.lsn(i));
            }
            wal.truncateAfter(batch.lsn(1));
            assertRead(kept, keptLsns, replayAll(wal));
            final byte[] after = tagged(2, 0, 70);
            keptLsns.add(wal.append(after, Durability.SYNCED));
            kept.add(after);
            assertRead(kept, keptLsns, replayAll(wal));
        }
        try (Wal wal = Wal.open(batchConfig(directory))) {
            assertRead(kept, keptLsns, replayAll(wal));
        }
    }

    /**
     * Writers append batches of many sizes (some of them filling much of the log buffer, so the I/O
     * thread writes the first frames of a batch while the rest are still being copied) and a tailing
     * reader polls all the while: after every poll, the last record it delivered must end its batch.
     */
    @Test
    void aTailingReaderNeverStopsInsideABatch() throws Exception {
        final int writers = 4;
        final int batchesPerWriter = 150;
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final Map<Long, Integer> batchSizes = new ConcurrentHashMap<>();
        final AtomicBoolean done = new AtomicBoolean();
        try (Wal wal = Wal.open(batchConfig(fixture.tempDir().resolve("log")))) {
            final int maxRecordBytes = wal.config().maxRecordBytes();
            final List<Read> tailed = new ArrayList<>();
            final Thread tailer = new Thread(
                    () -> {
                        try (WalReader reader = wal.reader(wal.startPosition(), Durability.WRITTEN)) {
                            while (!done.get() || reader.position() < wal.writtenPosition()) {
                                final int before = tailed.size();
                                reader.poll(
                                        (buffer, offset, length, lsn) -> {
                                            final byte[] payload = new byte[length];
                                            buffer.getBytes(offset, payload);
                                            tailed.add(new Read(lsn, payload));
                                        },
                                        Integer.MAX_VALUE,
                                        TimeUnit.MILLISECONDS.toNanos(1));
                                if (tailed.size() > before) {
                                    final Tag last = TestRecords.verify(
                                            tailed.get(tailed.size() - 1).payload());
                                    final int index = last.sequence() & 0xFFFF;
                                    final int size = last.sequence() >>> 16;
                                    if (index != size - 1) {
                                        throw new AssertionError("a poll stopped after record " + index + " of a"
                                                + " batch of " + size + " (writer " + last.writer() + ")");
                                    }
                                }
                            }
                        } catch (final Throwable ex) {
                            failures.add(ex);
                        }
                    },
                    "batch-tailer");
            tailer.setDaemon(true);
            tailer.start();
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                final Thread thread = new Thread(
                        () -> {
                            final SplittableRandom random = new SplittableRandom(writer);
                            final WalBatch batch = new WalBatch();
                            try {
                                for (int b = 0; b < batchesPerWriter; b++) {
                                    batch.clear();
                                    final int size = 1 + random.nextInt(random.nextBoolean() ? 4 : 60);
                                    final int recordBytes = Math.max(
                                            TestRecords.TAG_LENGTH, Math.min(2048, maxRecordBytes / size - 24) & ~7);
                                    for (int i = 0; i < size; i++) {
                                        batch.add(tagged(writer * 1000 + b, size << 16 | i, recordBytes));
                                    }
                                    final long first = wal.append(
                                            batch, Durability.values()[random.nextInt(Durability.values().length)]);
                                    batchSizes.put(first, size);
                                }
                            } catch (final Throwable ex) {
                                failures.add(ex);
                            }
                        },
                        "batch-writer-" + w);
                threads.add(thread);
                thread.start();
            }
            for (final Thread thread : threads) {
                thread.join();
            }
            wal.sync();
            done.set(true);
            tailer.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(!tailer.isAlive(), "the tailing reader caught up");
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            final List<Read> replayed = replayAll(wal);
            assertEquals(replayed, tailed, "the tailing reader read what a replay reads");
            assertEquals(writers * batchesPerWriter, batchSizes.size());
            int i = 0;
            while (i < replayed.size()) {
                final Integer size = batchSizes.get(replayed.get(i).lsn());
                assertTrue(size != null, "a batch starts at " + replayed.get(i).lsn());
                final Tag first = TestRecords.verify(replayed.get(i).payload());
                for (int k = 0; k < size; k++) {
                    final Tag tag = TestRecords.verify(replayed.get(i + k).payload());
                    assertEquals(first.writer(), tag.writer(), "records of one batch are consecutive");
                    assertEquals(size << 16 | k, tag.sequence());
                }
                i += size;
            }
        }
    }

    private static void assertRead(final List<byte[]> payloads, final List<Long> lsns, final List<Read> read) {
        assertEquals(payloads.size(), read.size(), "records read: " + read);
        for (int i = 0; i < payloads.size(); i++) {
            assertEquals(lsns.get(i), read.get(i).lsn(), "LSN of record " + i);
            assertArrayEquals(payloads.get(i), read.get(i).payload(), "payload of record " + i);
        }
    }

    /** Zeroes a frame in a copy of a log, as a crash that never wrote it leaves it. */
    private static void zeroFrame(final Path directory, final long lsn, final int payloadLength) throws IOException {
        final long offset = lsn & (BATCH_SEGMENT_BYTES - 1);
        try (FileChannel channel =
                FileChannel.open(SegmentNames.segmentPath(directory, lsn - offset), StandardOpenOption.WRITE)) {
            final ByteBuffer zeros =
                    ByteBuffer.allocate(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadLength)));
            while (zeros.hasRemaining()) {
                channel.write(zeros, offset + zeros.position());
            }
        }
    }
}
