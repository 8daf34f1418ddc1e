package io.walden.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.spi.StorageBackend;
import io.walden.testing.TestFiles;
import io.walden.testing.property.Gen;
import io.walden.testing.property.PropertyRunner;
import io.walden.testing.property.Shrink;
import io.walden.testing.property.Statistics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Model-based properties: random chains of operations run against a real {@link Wal} and against a
 * trivial model (the list of appended payloads with their LSNs, and the start position), and the
 * two must agree.
 *
 * <p>Operations: appends of random sizes (0 B to the profile's maximum, skewed toward small), random
 * {@link Durability} and random append API; atomic batches ({@link WalBatch}) of 2 to 12 records;
 * bursts that roll segments; {@code sync()}; {@code
 * truncateBefore} an earlier record's LSN; {@link Wal#truncateAfter} a retained record (or every
 * record) in the closed log; close and reopen; and checkpoints that read the whole
 * log. After every operation a tailing reader (visibility WRITTEN) must have delivered exactly the
 * model's next records, intact and in order, and must have stopped at the end of a batch, never
 * inside one. At checkpoints, after every reopen and at the end of
 * every chain, reading from {@link Wal#startPosition()} must return exactly the model's retained
 * records. Every close is clean, so a reopen loses nothing and cuts nothing.
 *
 * <p>Payloads are slices of one random pool, so the model stores only (LSN, pool offset, length).
 * Chains are drawn and shrunk by Walden's {@link PropertyRunner}: a failure prints the case seed and
 * the chain shrunk by deleting operations; {@code -Dwalden.property.case=<seed>} replays it.
 */
public abstract class WalModelProperties {
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final byte[] POOL = new byte[3 * 1024 * 1024];
    private static final long CLOSE_TIMEOUT_MS = 30_000;

    static {
        new Random(20240917L).nextBytes(POOL);
    }

    /**
     * The backend under test; a new instance per call.
     *
     * @return the backend.
     */
    protected abstract StorageBackend newBackend();

    /** Sizes and limits of one family of chains. */
    enum Profile {
        /** Records up to 1 MiB in 4 MiB segments: large frames, buffer wrap, few rolls. */
        LARGE_RECORDS(4 * 1024 * 1024, 4 * 1024 * 1024, 1024 * 1024),
        /** Records up to 16 KiB in 64 KiB segments: many rolls and truncations. */
        SMALL_SEGMENTS(64 * 1024, 64 * 1024, 16 * 1024);

        final int segmentBytes;
        final int bufferBytes;
        final int maxRecordBytes;

        Profile(final int segmentBytes, final int bufferBytes, final int maxRecordBytes) {
            this.segmentBytes = segmentBytes;
            this.bufferBytes = bufferBytes;
            this.maxRecordBytes = maxRecordBytes;
        }

        /** Payload sizes from 0 to the maximum, most of them small. */
        Gen<Integer> sizes() {
            return Gen.frequency(List.of(
                    Gen.weighted(50, Gen.between(0, 256)),
                    Gen.weighted(25, Gen.between(0, Math.min(16 * 1024, maxRecordBytes))),
                    Gen.weighted(15, Gen.between(0, maxRecordBytes / 4)),
                    Gen.weighted(10, Gen.between(0, maxRecordBytes))));
        }

        /** Sizes of the records of a burst: large enough that a burst tends to roll a segment. */
        Gen<List<Integer>> burst() {
            final int minSize = maxRecordBytes / 8;
            final int count = Math.max(4, 2 * segmentBytes / (maxRecordBytes / 2 + minSize));
            return Gen.between(minSize, maxRecordBytes).listOf(1, count);
        }
    }

    /** How an append hands its payload to the log. */
    enum Api {
        BYTES,
        HEAP_BYTE_BUFFER,
        DIRECT_BUFFER,
        ASYNC
    }

    /**
     * One operation of a chain, its parameters drawn.
     *
     * @param description what it does, for reports.
     * @param action what it does.
     */
    record Operation(String description, Consumer<WalSystem> action) {
        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * Records up to 1 MiB: reading from the start position returns exactly the model's records,
     * LSNs strictly increase, and every reopen restores the model.
     */
    @Test
    void largeRecordLogEqualsModel() {
        property(Profile.LARGE_RECORDS, 40, 30);
    }

    /** Small records in small segments: many rolls and truncations. */
    @Test
    void smallSegmentLogEqualsModel() {
        property(Profile.SMALL_SEGMENTS, 50, 50);
    }

    private void property(final Profile profile, final int maxOperations, final int tries) {
        final Statistics statistics = PropertyRunner.forAll(
                        getClass().getSimpleName() + " " + profile, chains(profile, maxOperations))
                .tries(tries)
                .shrinkWith(Shrink::deletions)
                .describeWith(WalModelProperties::describe)
                .check((chain, stats) -> run(profile, chain, stats));
        // A property whose chains never reached a state proves nothing about it.
        assertTrue(statistics.count("segments truncated", "some") > 0, statistics::toString);
        assertTrue(statistics.count("reopens, the final one included", 3) > 0, statistics::toString);
        assertTrue(statistics.count("records discarded by truncateAfter", "some") > 0, statistics::toString);
        assertTrue(statistics.count("readers told of discarded records", "some") > 0, statistics::toString);
        assertTrue(statistics.count("atomic batches appended", "some") > 0, statistics::toString);
        assertTrue(
                statistics.count("records discarded by truncateAfter on the open log", "some") > 0,
                statistics::toString);
    }

    private void run(final Profile profile, final List<Operation> chain, final Statistics statistics) {
        final WalSystem system = new WalSystem(profile, newBackend());
        try {
            for (int i = 0; i < chain.size(); i++) {
                final Operation operation = chain.get(i);
                try {
                    operation.action().accept(system);
                    system.checkInvariants();
                } catch (final AssertionError | RuntimeException ex) {
                    throw new AssertionError(
                            "operation #" + i + " (" + operation + ") of " + system + ": " + ex.getMessage(), ex);
                }
            }
            system.reopen();
            system.checkpoint();
            statistics.collect("segments spanned", Math.min(system.segmentsSpanned(), 6));
            statistics.collect("segments truncated", system.truncatedSegments > 0 ? "some" : "none");
            statistics.collect("reopens, the final one included", Math.min(system.reopens, 3));
            statistics.collect("records discarded by truncateAfter", system.suffixDiscarded > 0 ? "some" : "none");
            statistics.collect(
                    "records discarded by truncateAfter on the open log",
                    system.onlineSuffixDiscarded > 0 ? "some" : "none");
            statistics.collect("readers told of discarded records", system.readersTold > 0 ? "some" : "none");
            statistics.collect("atomic batches appended", system.batches > 0 ? "some" : "none");
        } finally {
            system.dispose();
        }
    }

    private static String describe(final List<Operation> chain) {
        final StringBuilder text = new StringBuilder().append(chain.size()).append(" operation(s):");
        for (int i = 0; i < chain.size(); i++) {
            text.append("\n    #").append(i).append(' ').append(chain.get(i));
        }
        return text.toString();
    }

    private static Gen<List<Operation>> chains(final Profile profile, final int maxOperations) {
        final Gen<Operation> operation = Gen.frequency(List.of(
                Gen.weighted(12, append(profile)),
                Gen.weighted(4, batch(profile)),
                Gen.weighted(profile == Profile.LARGE_RECORDS ? 3 : 2, burst(profile)),
                Gen.weighted(profile == Profile.LARGE_RECORDS ? 1 : 2, fillSegment()),
                Gen.weighted(2, Gen.just(new Operation("sync", WalSystem::sync))),
                Gen.weighted(2, truncate()),
                Gen.weighted(1, truncateAfter(false)),
                Gen.weighted(1, truncateAfter(true)),
                Gen.weighted(2, Gen.just(new Operation("close and reopen", WalSystem::reopen))),
                Gen.weighted(
                        1, Gen.just(new Operation("sync and read everything from the start", WalSystem::checkpoint)))));
        return operation.listOf(1, maxOperations);
    }

    // ---------------------------------------------------------------------------------------------
    // Operations
    // ---------------------------------------------------------------------------------------------

    private static Gen<Operation> append(final Profile profile) {
        final Gen<Integer> sizes = profile.sizes();
        final Gen<Durability> levels = Gen.oneOf(List.of(Durability.values()));
        final Gen<Api> apis = Gen.oneOf(List.of(Api.values()));
        return random -> {
            final int size = sizes.draw(random);
            final Durability durability = levels.draw(random);
            final Api api = apis.draw(random);
            final int seed = random.nextInt(Integer.MAX_VALUE);
            return new Operation(
                    "append " + size + " B " + durability + " via " + api + " (pool seed " + seed + ")",
                    system -> system.append(size, durability, api, seed));
        };
    }

    private static Gen<Operation> batch(final Profile profile) {
        final Gen<Integer> sizes = profile.sizes();
        final Gen<Durability> levels = Gen.oneOf(List.of(Durability.values()));
        return random -> {
            final int count = 2 + random.nextInt(11);
            final long limit = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(profile.maxRecordBytes));
            final List<Integer> recordSizes = new ArrayList<>();
            long framed = 0;
            for (int i = 0; i < count; i++) {
                final long room = limit - framed - FrameDescriptor.HEADER_LENGTH;
                if (room < 0) {
                    break;
                }
                final int size = (int) Math.min(sizes.draw(random) / count, room);
                recordSizes.add(size);
                framed += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(size));
            }
            final Durability durability = levels.draw(random);
            final int seed = random.nextInt(Integer.MAX_VALUE);
            return new Operation(
                    "batch of " + recordSizes.size() + " records " + recordSizes + " " + durability + " (pool seed "
                            + seed + ")",
                    system -> system.appendBatch(recordSizes, durability, seed));
        };
    }

    private static Gen<Operation> burst(final Profile profile) {
        final Gen<List<Integer>> bursts = profile.burst();
        final Gen<Durability> levels = Gen.oneOf(List.of(Durability.values()));
        return random -> {
            final List<Integer> sizes = bursts.draw(random);
            final Durability durability = levels.draw(random);
            final int seed = random.nextInt(Integer.MAX_VALUE);
            return new Operation(
                    "burst of " + sizes.size() + " " + durability + " appends " + sizes + " (pool seed " + seed + ")",
                    system -> {
                        for (int i = 0; i < sizes.size(); i++) {
                            system.append(sizes.get(i), durability, Api.BYTES, seed + 7919 * i);
                        }
                    });
        };
    }

    private static Gen<Operation> fillSegment() {
        final Gen<Integer> leaves = Gen.frequency(List.of(
                Gen.weighted(4, Gen.just(0)),
                Gen.weighted(3, Gen.oneOf(List.of(8, 16, 24))),
                Gen.weighted(1, Gen.between(4, 64).map(i -> i * 8))));
        final Gen<Durability> levels = Gen.oneOf(List.of(Durability.values()));
        return random -> {
            final int leave = leaves.draw(random);
            final Durability durability = levels.draw(random);
            final int seed = random.nextInt(Integer.MAX_VALUE);
            return new Operation(
                    "fill the segment up to " + leave + " B before its end with " + durability + " appends (pool seed "
                            + seed + ")",
                    system -> system.fillSegment(leave, durability, seed));
        };
    }

    private static Gen<Operation> truncate() {
        return random -> {
            final double fraction = random.nextDouble();
            final boolean syncFirst = random.nextBoolean();
            return new Operation(
                    "truncateBefore record at " + Math.round(fraction * 100) + "% of the retained records"
                            + (syncFirst ? " after sync" : ""),
                    system -> system.truncate(fraction, syncFirst));
        };
    }

    private static Gen<Operation> truncateAfter(final boolean open) {
        return random -> {
            final double fraction = random.nextDouble();
            final String target = "truncateAfter the record at " + Math.round(fraction * 100)
                    + "% of the retained records (0: keep none)";
            return open
                    ? new Operation(target + " on the open log", system -> system.truncateAfterOpen(fraction))
                    : new Operation("close, " + target + ", reopen", system -> system.truncateAfter(fraction));
        };
    }

    // ---------------------------------------------------------------------------------------------
    // The system: the real log and its model
    // ---------------------------------------------------------------------------------------------

    /**
     * A record in the model: its LSN, its payload (a slice of the pool), and whether it ends its batch
     * (a record appended alone does).
     */
    record ModelRecord(long lsn, int poolOffset, int length, boolean endsBatch) {
        long end() {
            return lsn + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(length));
        }
    }

    /** The real log next to its model. */
    static final class WalSystem {
        private final Profile profile;
        private final StorageBackend backend;
        private final Path root;
        private final Path directory;
        private final long segmentMask;
        private final byte[] scratch;

        /** Every record appended, in order; those before {@link #firstRetained} were truncated away. */
        private final List<ModelRecord> records = new ArrayList<>();

        private int firstRetained;
        private long startPosition;
        /** Where the log's tail is: after the last record, or where recovery put it. */
        private long tail;

        private Wal wal;
        private WalReader tailReader;
        /** Index in {@link #records} of the next record the tail reader must deliver. */
        private int tailChecked;
        /** Index in {@link #records} of the first record the tail reader was opened to deliver. */
        private int tailReaderFirst;

        private int reopens;
        private long truncatedSegments;
        private long suffixDiscarded;
        private long onlineSuffixDiscarded;
        private int readersTold;
        private int batches;

        WalSystem(final Profile profile, final StorageBackend backend) {
            this.profile = profile;
            this.backend = backend;
            this.segmentMask = profile.segmentBytes - 1L;
            this.scratch = new byte[profile.maxRecordBytes];
            try {
                final Path base = Path.of("target", "walden-model-tests").toAbsolutePath();
                Files.createDirectories(base);
                this.root = Files.createTempDirectory(base, "model-");
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
            this.directory = root.resolve("log");
            this.wal = Wal.open(config());
            final RecoveryReport report = wal.recoveryReport();
            assertTrue(report.newLog(), report::summary);
            assertEquals(0, wal.startPosition());
            this.startPosition = 0;
            this.tail = report.endPosition();
            assertEquals(HEADER, tail);
            this.tailReader = wal.reader(wal.startPosition(), Durability.WRITTEN);
        }

        private WalConfig config() {
            return WalConfig.builder(directory)
                    .backend(backend)
                    .segmentCapacityBytes(profile.segmentBytes)
                    .bufferCapacityBytes(profile.bufferBytes)
                    .maxRecordBytes(profile.maxRecordBytes)
                    .recoveryPolicy(RecoveryPolicy.FAIL)
                    .build();
        }

        void append(final int size, final Durability durability, final Api api, final int seed) {
            final int poolOffset = Math.floorMod(seed, POOL.length - size + 1);
            final long lsn =
                    switch (api) {
                        case BYTES -> wal.append(POOL, poolOffset, size, durability);
                        case HEAP_BYTE_BUFFER -> wal.append(ByteBuffer.wrap(POOL, poolOffset, size), durability);
                        case DIRECT_BUFFER -> wal.append(new UnsafeBuffer(POOL), poolOffset, size, durability);
                        case ASYNC ->
                            wal.appendAsync(Arrays.copyOfRange(POOL, poolOffset, poolOffset + size), durability)
                                    .join();
                    };
            final ModelRecord record = new ModelRecord(lsn, poolOffset, size, true);
            checkPlacement(record);
            switch (durability) {
                case SYNCED ->
                    assertTrue(wal.durablePosition() >= record.end(), "SYNCED ack before the record is durable");
                case WRITTEN ->
                    assertTrue(wal.writtenPosition() >= record.end(), "WRITTEN ack before the record is written");
                case BUFFERED -> {}
            }
            records.add(record);
            tail = record.end();
        }

        /** Appends an atomic batch: consecutive frames, each record placed as a record alone would be. */
        void appendBatch(final List<Integer> sizes, final Durability durability, final int seed) {
            final WalBatch batch = new WalBatch();
            final int[] offsets = new int[sizes.size()];
            for (int i = 0; i < sizes.size(); i++) {
                final int size = sizes.get(i);
                offsets[i] = Math.floorMod(seed + 7919 * i, POOL.length - size + 1);
                batch.add(POOL, offsets[i], size);
            }
            final long first = wal.append(batch, durability);
            batches++;
            assertEquals(batch.lsn(0), first, "an append returns the batch's first LSN");
            for (int i = 0; i < sizes.size(); i++) {
                final ModelRecord record =
                        new ModelRecord(batch.lsn(i), offsets[i], sizes.get(i), i == sizes.size() - 1);
                checkPlacement(record, i == 0 ? batch.framedBytes() : 0);
                if (i > 0) {
                    assertEquals(tail, record.lsn(), "the records of a batch take consecutive frames");
                }
                records.add(record);
                tail = record.end();
            }
            switch (durability) {
                case SYNCED -> assertTrue(wal.durablePosition() >= tail, "SYNCED ack before the batch is durable");
                case WRITTEN -> assertTrue(wal.writtenPosition() >= tail, "WRITTEN ack before the batch is written");
                case BUFFERED -> {}
            }
        }

        /** The record before a truncation's cut ends its batch from now on: the truncation ended it there. */
        private void endBatchAtLastRecord() {
            if (!records.isEmpty() && !records.get(records.size() - 1).endsBatch()) {
                final ModelRecord last = records.get(records.size() - 1);
                records.set(records.size() - 1, new ModelRecord(last.lsn(), last.poolOffset(), last.length(), true));
            }
        }

        /**
         * Appends records that end exactly {@code leave} bytes before the end of the segment the tail
         * is in, so that the segment end, short padding (8 bytes left) and exact fits are exercised.
         * In both profiles the buffer lap equals the segment, so no padding lies between the records.
         */
        void fillSegment(final int leave, final Durability durability, final int seed) {
            final long segmentEnd = (tail & segmentMask) == 0 ? tail + profile.segmentBytes : (tail | segmentMask) + 1;
            final long target = segmentEnd - leave;
            int i = 0;
            while (true) {
                final long next = (tail & segmentMask) == 0 ? tail + HEADER : tail;
                final long remaining = target - next;
                if (remaining < FrameDescriptor.HEADER_LENGTH) {
                    break;
                }
                long payload = Math.min(profile.maxRecordBytes & ~7, remaining - FrameDescriptor.HEADER_LENGTH);
                final long left = remaining - FrameDescriptor.HEADER_LENGTH - payload;
                if (left > 0 && left < FrameDescriptor.HEADER_LENGTH) {
                    payload -= FrameDescriptor.HEADER_LENGTH;
                }
                append((int) payload, durability, Api.BYTES, seed + 104_729 * i++);
                assertEquals(next, records.get(records.size() - 1).lsn(), "no padding inside a segment");
            }
            assertTrue(
                    tail == target || (tail & segmentMask) == 0 || target - tail < FrameDescriptor.HEADER_LENGTH,
                    () -> "filled to " + tail + ", wanted " + target);
        }

        /** LSNs strictly increase; frames do not overlap, never sit in a header, never cross a segment. */
        private void checkPlacement(final ModelRecord record) {
            checkPlacement(record, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(record.length())));
        }

        /**
         * As {@link #checkPlacement(ModelRecord)}, for the first record of frames claimed together (a
         * batch): they move on to the next lap together, so the padding is shorter than all of them.
         */
        private void checkPlacement(final ModelRecord record, final long claimedBytes) {
            final long lsn = record.lsn();
            assertTrue(lsn >= tail, () -> "LSN " + lsn + " overlaps the previous record, which ends at " + tail);
            assertEquals(0, lsn % FrameDescriptor.FRAME_ALIGNMENT, "LSN alignment");
            assertTrue((lsn & segmentMask) >= HEADER, () -> "LSN " + lsn + " lies in a segment header");
            assertTrue(
                    (lsn & segmentMask) + FrameDescriptor.frameLength(record.length()) <= profile.segmentBytes,
                    () -> "frame at " + lsn + " crosses its segment's end");
            // Only padding and a segment header lie between records. A frame moves on to the next
            // buffer lap only if it does not fit before the lap's end, so the padding is shorter
            // than the frame (than the batch, for the first frame of a batch).
            assertTrue(
                    lsn - tail < claimedBytes + HEADER,
                    () -> "gap from " + tail + " to the LSN " + lsn + " is larger than padding can explain");
        }

        void sync() {
            wal.sync();
            assertTrue(
                    wal.durablePosition() >= tail,
                    () -> "after sync() durable " + wal.durablePosition() + " < " + tail);
            assertTrue(wal.writtenPosition() >= wal.durablePosition());
        }

        void truncate(final double fraction, final boolean syncFirst) {
            final int retained = records.size() - firstRetained;
            if (syncFirst) {
                sync();
                pollTail();
            }
            final long target = retained == 0
                    ? wal.startPosition()
                    : records.get(firstRetained + (int) Math.min(retained - 1, Math.floor(fraction * retained)))
                            .lsn();
            final long oldStart = startPosition;
            final long deleted = wal.truncateBefore(target);
            final long newStart = wal.startPosition();
            final long targetBase = target & ~segmentMask;
            assertEquals(0, newStart & segmentMask, "the start is a segment base");
            if (syncFirst) {
                // Everything is written, so the active segment is at or after the target's.
                assertEquals(Math.max(oldStart, targetBase), newStart, "start after truncateBefore(" + target + ")");
            } else {
                assertTrue(
                        newStart >= oldStart && newStart <= Math.max(oldStart, targetBase),
                        () -> "start " + newStart + " after truncateBefore(" + target + ") from " + oldStart);
            }
            assertEquals((newStart - oldStart) / profile.segmentBytes, deleted, "segments deleted");
            truncatedSegments += deleted;
            startPosition = newStart;
            while (firstRetained < records.size() && records.get(firstRetained).lsn() < newStart) {
                firstRetained++;
            }
            assertTrue(retained == 0 || records.get(firstRetained).lsn() <= target, "the target record is retained");
            for (final long base : segmentBases()) {
                assertTrue(
                        base >= newStart, () -> "segment " + base + " below the start " + newStart + " still exists");
            }
            // Records not written yet may belong to a segment that is still being prepared.
            final long written = wal.writtenPosition();
            for (int i = firstRetained; i < records.size() && records.get(i).end() <= written; i++) {
                final long base = records.get(i).lsn() & ~segmentMask;
                assertTrue(
                        Files.exists(SegmentNames.segmentPath(directory, base)),
                        "segment " + base + " of a retained record was deleted");
            }
            if (tailChecked < firstRetained || tailReader.position() < newStart) {
                resetTailReader();
            }
        }

        /**
         * Closes the log, discards every record after a retained one (or every record) with {@link
         * Wal#truncateAfter}, and reopens it: the log holds exactly the kept records, and continues
         * past every position it used, where the truncation said.
         */
        void truncateAfter(final double fraction) {
            tailReader.close();
            closeWal();
            reopens++;
            final int retained = records.size() - firstRetained;
            final int kept = (int) Math.min(retained, Math.floor(fraction * (retained + 1)));
            final long lsn =
                    kept == 0 ? -1 : records.get(firstRetained + kept - 1).lsn();
            final long usedEnd = tail;
            final long next = Wal.truncateAfter(config(), lsn);
            checkContinuePosition(lsn, next, usedEnd, kept < retained);
            suffixDiscarded += retained - kept;
            records.subList(firstRetained + kept, records.size()).clear();
            endBatchAtLastRecord();
            tailChecked = Math.min(tailChecked, records.size());
            wal = Wal.open(config());
            final RecoveryReport report = wal.recoveryReport();
            assertTrue(report.closedCleanly(), report::summary);
            assertEquals(next, report.endPosition(), report::summary);
            assertEquals(kept, report.records(), report::summary);
            assertEquals(startPosition, wal.startPosition());
            tail = next;
            checkAll();
            resetTailReader();
        }

        /** Where a truncation continues: past every position used, at a segment's first frame if it discarded. */
        private void checkContinuePosition(
                final long lsn, final long next, final long usedEnd, final boolean discarded) {
            if (discarded) {
                assertTrue(
                        next > usedEnd,
                        () -> "truncateAfter(" + lsn + ") continues at " + next + ", not past " + usedEnd);
                // At a segment's first frame; or, where the segment the log goes on in is a recycled one
                // that was prepared before the truncation, at its write limit (a block boundary): recovery
                // cannot tell it from a segment a crashed session wrote below its limit.
                assertEquals(
                        0,
                        (next & segmentMask) % SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT,
                        "the log continues at a segment's first frame or at a recycled segment's write limit");
            } else {
                assertTrue(next >= usedEnd, () -> "truncateAfter(" + lsn + ") continues at " + next);
            }
        }

        /**
         * Discards every record after a retained one (or every record) with {@link
         * Wal#truncateAfter(long)} on the open log: it continues past every position it used, holds
         * exactly the kept records, and its tailing reader either goes on past the cut to the records
         * that follow, or, if it had delivered a discarded record, is told so at its next poll.
         */
        void truncateAfterOpen(final double fraction) {
            final int retained = records.size() - firstRetained;
            final int kept = (int) Math.min(retained, Math.floor(fraction * (retained + 1)));
            final long lsn =
                    kept == 0 ? -1 : records.get(firstRetained + kept - 1).lsn();
            final long usedEnd = tail;
            final long next = wal.truncateAfter(lsn);
            checkContinuePosition(lsn, next, usedEnd, kept < retained);
            assertEquals(next, wal.durablePosition(), "durable position after truncateAfter");
            assertEquals(startPosition, wal.startPosition());
            suffixDiscarded += retained - kept;
            onlineSuffixDiscarded += retained - kept;
            final int keptEnd = firstRetained + kept;
            final boolean deliveredDiscarded = tailChecked > Math.max(keptEnd, tailReaderFirst);
            records.subList(keptEnd, records.size()).clear();
            endBatchAtLastRecord();
            if (deliveredDiscarded) {
                final WalException told = assertThrows(WalException.class, this::pollTail);
                assertEquals(WalException.ErrorCode.POSITION, told.errorCode(), told::getMessage);
                readersTold++;
                tailChecked = records.size();
                resetTailReader();
            }
            tailChecked = Math.min(tailChecked, records.size());
            tailReaderFirst = Math.min(tailReaderFirst, records.size());
            tail = next;
            checkAll();
        }

        void reopen() {
            tailReader.close();
            closeWal();
            reopens++;
            wal = Wal.open(config());
            final RecoveryReport report = wal.recoveryReport();
            final long expectedEnd = (tail & segmentMask) == 0 ? tail + HEADER : tail;
            assertFalse(report.newLog(), report::summary);
            assertEquals(0, report.tornTailBytesCut(), report::summary);
            assertEquals(0, report.droppedBytes(), report::summary);
            assertEquals(0, report.skippedBytes(), report::summary);
            assertEquals(
                    List.of(),
                    report.findings().stream()
                            .filter(f -> !f.startsWith("deleted unfinished segment preparation"))
                            .collect(Collectors.toList()),
                    report::summary);
            assertEquals(startPosition, report.startPosition(), report::summary);
            assertEquals(startPosition, wal.startPosition());
            assertEquals(expectedEnd, report.endPosition(), report::summary);
            assertEquals(records.size() - firstRetained, report.records(), report::summary);
            assertEquals(
                    ((expectedEnd & ~segmentMask) - startPosition) / profile.segmentBytes + 1,
                    report.segments(),
                    report::summary);
            assertEquals(report.endPosition(), wal.durablePosition());
            tail = report.endPosition();
            checkAll();
            resetTailReader();
        }

        /** Syncs and reads the whole log from its start position. */
        void checkpoint() {
            sync();
            checkAll();
        }

        private void checkAll() {
            final int[] next = {firstRetained};
            try (WalReader reader = wal.reader(wal.startPosition())) {
                reader.replay(
                        (buffer, offset, length, lsn) -> next[0] = checkRecord(next[0], buffer, offset, length, lsn));
            }
            assertEquals(records.size(), next[0], "records read from the start position");
        }

        void checkInvariants() {
            pollTail();
            assertEquals(startPosition, wal.startPosition(), "start position");
            final long durable = wal.durablePosition();
            final long written = wal.writtenPosition();
            assertTrue(durable <= written, () -> "durable " + durable + " > written " + written);
            assertTrue(written <= wal.tailPosition() || (written & segmentMask) == HEADER, "written beyond the tail");
        }

        /** The tailing reader delivers the model's next records as soon as they are written. */
        private void pollTail() {
            final int[] next = {tailChecked};
            tailReader.poll(
                    (buffer, offset, length, lsn) -> next[0] = checkRecord(next[0], buffer, offset, length, lsn),
                    Integer.MAX_VALUE);
            if (next[0] > tailChecked) {
                final ModelRecord last = records.get(next[0] - 1);
                assertTrue(last.endsBatch(), () -> "the tailing reader stopped inside a batch, after " + last);
            }
            tailChecked = next[0];
        }

        private int checkRecord(
                final int index, final DirectBuffer buffer, final int offset, final int length, final long lsn) {
            assertTrue(index < records.size(), () -> "unexpected record at " + lsn + " after the model's last one");
            final ModelRecord expected = records.get(index);
            assertEquals(expected.lsn(), lsn, () -> "LSN of record #" + index);
            assertEquals(expected.length(), length, () -> "length of the record at " + lsn);
            buffer.getBytes(offset, scratch, 0, length);
            assertTrue(
                    Arrays.equals(scratch, 0, length, POOL, expected.poolOffset(), expected.poolOffset() + length),
                    () -> "payload of the record at " + lsn + " differs");
            return index + 1;
        }

        private void resetTailReader() {
            tailReader.close();
            tailChecked = Math.max(tailChecked, firstRetained);
            tailReaderFirst = tailChecked;
            final long from =
                    tailChecked < records.size() ? records.get(tailChecked).lsn() : wal.tailPosition();
            tailReader = wal.reader(from, Durability.WRITTEN);
        }

        private List<Long> segmentBases() {
            try (Stream<Path> entries = Files.list(directory)) {
                return entries.map(p ->
                                SegmentNames.parseSegmentName(p.getFileName().toString()))
                        .filter(base -> base >= 0)
                        .collect(Collectors.toList());
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        long segmentsSpanned() {
            return (tail - 1) / profile.segmentBytes + 1;
        }

        /** Closes the log; a close() that hangs fails the try instead of hanging the run. */
        private void closeWal() {
            final Wal closing = wal;
            wal = null;
            final Thread closer = new Thread(closing::close, "model-close");
            closer.setDaemon(true);
            final Throwable[] failure = {null};
            closer.setUncaughtExceptionHandler((thread, ex) -> failure[0] = ex);
            closer.start();
            try {
                closer.join(CLOSE_TIMEOUT_MS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while closing the log", ex);
            }
            if (closer.isAlive()) {
                throw new AssertionError("Wal.close() did not complete within " + CLOSE_TIMEOUT_MS + " ms; " + this);
            }
            if (failure[0] != null) {
                throw new AssertionError("Wal.close() failed", failure[0]);
            }
        }

        void dispose() {
            try {
                if (tailReader != null) {
                    tailReader.close();
                }
                if (wal != null) {
                    closeWal();
                }
            } catch (final RuntimeException | AssertionError ignored) {
                // The try already failed; the directory goes anyway.
            }
            try {
                deleteRecursively(root);
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public String toString() {
            return "WalSystem{" + directory + ", records=" + records.size() + ", retained from #" + firstRetained
                    + ", start=" + startPosition + ", tail=" + tail + '}';
        }
    }

    private static void deleteRecursively(final Path path) throws IOException {
        TestFiles.deleteRecursively(path);
    }
}
