package io.walden.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.spi.StorageBackend;
import io.walden.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Model-based properties: random action chains run against a real {@link Wal} and against a
 * trivial model (the list of appended payloads with their LSNs, and the start position), and the
 * two must agree.
 *
 * <p>Actions: appends of random sizes (0 B to the profile's maximum, skewed toward small), random
 * {@link Durability} and random append API; bursts that roll segments; {@code sync()}; {@code
 * truncateBefore} an earlier record's LSN; close and reopen; and checkpoints that read the whole
 * log. After every action a tailing reader (visibility WRITTEN) must have delivered exactly the
 * model's next records, intact and in order. At checkpoints, after every reopen and at the end of
 * every chain, reading from {@link Wal#startPosition()} must return exactly the model's retained
 * records. Every close is clean, so a reopen loses nothing and cuts nothing.
 *
 * <p>Payloads are slices of one random pool, so the model stores only (LSN, pool offset, length).
 * jqwik prints the seed and the shrunk action chain of a failure; rerun a failure with {@code
 * @Property(seed = "...")}.
 */
public abstract class WalModelProperties {
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final byte[] POOL = new byte[3 * 1024 * 1024];
    private static final long CLOSE_TIMEOUT_MS = 30_000;

    static {
        new Random(20240917L).nextBytes(POOL);
    }

    /** Every system created in the current try; disposed after the try, even if it fails. */
    private static final List<WalSystem> LIVE = new ArrayList<>();

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
        Arbitrary<Integer> sizes() {
            return Arbitraries.frequencyOf(
                    Tuple.of(50, Arbitraries.integers().between(0, 256)),
                    Tuple.of(25, Arbitraries.integers().between(0, Math.min(16 * 1024, maxRecordBytes))),
                    Tuple.of(15, Arbitraries.integers().between(0, maxRecordBytes / 4)),
                    Tuple.of(10, Arbitraries.integers().between(0, maxRecordBytes)));
        }

        /** Sizes of the records of a burst: large enough that a burst tends to roll a segment. */
        Arbitrary<List<Integer>> burst() {
            final int minSize = maxRecordBytes / 8;
            final int count = Math.max(4, 2 * segmentBytes / (maxRecordBytes / 2 + minSize));
            return Arbitraries.integers()
                    .between(minSize, maxRecordBytes)
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(count);
        }
    }

    /** How an append hands its payload to the log. */
    enum Api {
        BYTES,
        HEAP_BYTE_BUFFER,
        DIRECT_BUFFER,
        ASYNC
    }

    @AfterTry
    void disposeSystems() {
        disposeAll();
    }

    /**
     * Records up to 1 MiB: reading from the start position returns exactly the model's records,
     * LSNs strictly increase, and every reopen restores the model.
     *
     * @param chain the actions.
     */
    @Property(tries = 30)
    void largeRecordLogEqualsModel(@ForAll("largeRecordChains") final ActionChain<WalSystem> chain) {
        runAndCheck(chain);
    }

    /**
     * Small records in small segments: many rolls and truncations.
     *
     * @param chain the actions.
     */
    @Property(tries = 50)
    void smallSegmentLogEqualsModel(@ForAll("smallSegmentChains") final ActionChain<WalSystem> chain) {
        runAndCheck(chain);
    }

    @Provide
    Arbitrary<ActionChain<WalSystem>> largeRecordChains() {
        return chains(Profile.LARGE_RECORDS, 40);
    }

    @Provide
    Arbitrary<ActionChain<WalSystem>> smallSegmentChains() {
        return chains(Profile.SMALL_SEGMENTS, 50);
    }

    private void runAndCheck(final ActionChain<WalSystem> chain) {
        final WalSystem system = chain.withInvariant(
                        "tail reader and positions agree with the model", WalSystem::checkInvariants)
                .run();
        system.reopen();
        system.checkpoint();
        Statistics.label("segments spanned").collect(Math.min(system.segmentsSpanned(), 6));
        Statistics.label("segments truncated").collect(system.truncatedSegments > 0 ? "some" : "none");
        Statistics.label("reopens, the final one included").collect(Math.min(system.reopens, 3));
    }

    private Arbitrary<ActionChain<WalSystem>> chains(final Profile profile, final int maxActions) {
        return ActionChain.<WalSystem>startWith(() -> newSystem(profile))
                .withAction(12, append(profile))
                .withAction(profile == Profile.LARGE_RECORDS ? 3 : 2, burst(profile))
                .withAction(profile == Profile.LARGE_RECORDS ? 1 : 2, fillSegment())
                .withAction(2, sync())
                .withAction(2, truncate())
                .withAction(2, reopen())
                .withAction(1, checkpoint())
                .withMaxTransformations(maxActions);
    }

    private WalSystem newSystem(final Profile profile) {
        disposeAll();
        final WalSystem system = new WalSystem(profile, newBackend());
        synchronized (LIVE) {
            LIVE.add(system);
        }
        return system;
    }

    private static void disposeAll() {
        synchronized (LIVE) {
            for (final WalSystem system : LIVE) {
                system.dispose();
            }
            LIVE.clear();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Actions
    // ---------------------------------------------------------------------------------------------

    private static Action.Independent<WalSystem> append(final Profile profile) {
        return () -> Combinators.combine(
                        profile.sizes(),
                        Arbitraries.of(Durability.class),
                        Arbitraries.of(Api.class),
                        Arbitraries.integers().greaterOrEqual(0))
                .as((size, durability, api, seed) -> Transformer.mutate(
                        "append " + size + " B " + durability + " via " + api + " (pool seed " + seed + ")",
                        system -> system.append(size, durability, api, seed)));
    }

    private static Action.Independent<WalSystem> burst(final Profile profile) {
        return () -> Combinators.combine(
                        profile.burst(),
                        Arbitraries.of(Durability.class),
                        Arbitraries.integers().greaterOrEqual(0))
                .as((sizes, durability, seed) -> Transformer.mutate(
                        "burst of " + sizes.size() + " " + durability + " appends " + sizes + " (pool seed " + seed
                                + ")",
                        system -> {
                            for (int i = 0; i < sizes.size(); i++) {
                                system.append(sizes.get(i), durability, Api.BYTES, seed + 7919 * i);
                            }
                        }));
    }

    private static Action.Independent<WalSystem> fillSegment() {
        return () -> Combinators.combine(
                        Arbitraries.frequencyOf(
                                Tuple.of(4, Arbitraries.just(0)),
                                Tuple.of(3, Arbitraries.of(8, 16, 24)),
                                Tuple.of(
                                        1, Arbitraries.integers().between(4, 64).map(i -> i * 8))),
                        Arbitraries.of(Durability.class),
                        Arbitraries.integers().greaterOrEqual(0))
                .as((leave, durability, seed) -> Transformer.mutate(
                        "fill the segment up to " + leave + " B before its end with " + durability
                                + " appends (pool seed " + seed + ")",
                        system -> system.fillSegment(leave, durability, seed)));
    }

    private static Action.Independent<WalSystem> sync() {
        return Action.just("sync", Transformer.mutate("sync", WalSystem::sync));
    }

    private static Action.Independent<WalSystem> truncate() {
        return () -> Combinators.combine(Arbitraries.doubles().between(0, 1), Arbitraries.of(true, false))
                .as((fraction, syncFirst) -> Transformer.mutate(
                        "truncateBefore record at " + Math.round(fraction * 100) + "% of the retained records"
                                + (syncFirst ? " after sync" : ""),
                        system -> system.truncate(fraction, syncFirst)));
    }

    private static Action.Independent<WalSystem> reopen() {
        return Action.just("close and reopen", Transformer.mutate("close and reopen", WalSystem::reopen));
    }

    private static Action.Independent<WalSystem> checkpoint() {
        return Action.just(
                "checkpoint", Transformer.mutate("sync and read everything from the start", WalSystem::checkpoint));
    }

    // ---------------------------------------------------------------------------------------------
    // The system: the real log and its model
    // ---------------------------------------------------------------------------------------------

    /** A record in the model: its LSN and its payload, a slice of the pool. */
    record ModelRecord(long lsn, int poolOffset, int length) {
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

        private int reopens;
        private long truncatedSegments;

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
            final ModelRecord record = new ModelRecord(lsn, poolOffset, size);
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
            final long lsn = record.lsn();
            assertTrue(lsn >= tail, () -> "LSN " + lsn + " overlaps the previous record, which ends at " + tail);
            assertEquals(0, lsn % FrameDescriptor.FRAME_ALIGNMENT, "LSN alignment");
            assertTrue((lsn & segmentMask) >= HEADER, () -> "LSN " + lsn + " lies in a segment header");
            assertTrue(
                    (lsn & segmentMask) + FrameDescriptor.frameLength(record.length()) <= profile.segmentBytes,
                    () -> "frame at " + lsn + " crosses its segment's end");
            // Only padding and a segment header lie between records. A frame moves on to the next
            // buffer lap only if it does not fit before the lap's end, so the padding is shorter
            // than the frame.
            final int alignedLength = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(record.length()));
            assertTrue(
                    lsn - tail < alignedLength + HEADER,
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
