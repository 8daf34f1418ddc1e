package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.nio.NioStorageBackend;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A log of many small segments (64 KiB) of small records, closed cleanly, with 420 random bytes
 * written over the middle of one middle segment: the damage of issue 43, where the default repair
 * kept only what came before it. Knows which records the garbage touched: those whose frame (with its
 * alignment gap, which recovery checks too) overlaps it.
 *
 * @param written every record appended, in order.
 * @param garbageFrom the position of the first garbage byte.
 * @param garbageTo the position after the last.
 */
record GarbageLog(List<TestLogs.Rec> written, long garbageFrom, long garbageTo) {
    /** Segment capacity: the smallest a log allows. */
    static final int SEGMENT_BYTES = 64 * 1024;
    /** Segments holding records. */
    static final int SEGMENTS = 24;
    /** Bytes of garbage. */
    static final int GARBAGE_BYTES = 420;
    /** The damaged segment. */
    static final int DAMAGED_SEGMENT = 11;

    /**
     * The configuration of the log.
     *
     * @param directory the log directory.
     * @param policy the recovery policy.
     * @return the configuration.
     */
    static WalConfig config(final Path directory, final RecoveryPolicy policy) {
        return WalConfig.builder(directory)
                .backend(new NioStorageBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(SEGMENT_BYTES)
                .maxRecordBytes(1024)
                .recoveryPolicy(policy)
                .build();
    }

    /**
     * Writes the log and the garbage.
     *
     * @param directory the log directory.
     * @return the log.
     * @throws IOException if writing the garbage fails.
     */
    static GarbageLog create(final Path directory) throws IOException {
        final List<TestLogs.Rec> written = new ArrayList<>();
        final SplittableRandom lengths = new SplittableRandom(43);
        try (Wal wal = Wal.open(config(directory, RecoveryPolicy.FAIL))) {
            for (int i = 0;
                    written.isEmpty() || segment(written.get(written.size() - 1).lsn()) < SEGMENTS - 1;
                    i++) {
                final byte[] payload = TestLogs.payload(i, 24 + lengths.nextInt(90));
                written.add(new TestLogs.Rec(wal.append(payload, Durability.WRITTEN), payload));
            }
        }
        // In the middle of the segment (one lap of the buffer), not 8-byte aligned.
        final long base = (long) DAMAGED_SEGMENT * SEGMENT_BYTES;
        final long from = base + SEGMENT_BYTES / 2 + 5003;
        final byte[] garbage = new byte[GARBAGE_BYTES];
        new SplittableRandom(420).nextBytes(garbage);
        try (FileChannel channel = FileChannel.open(
                SegmentNames.segmentPath(directory, base), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(garbage), from - base);
        }
        assertEquals(LogInspection.Verdict.CORRUPTION, Wal.inspect(directory).verdict());
        return new GarbageLog(written, from, from + GARBAGE_BYTES);
    }

    /** @return the records whose frames the garbage touched, in order. */
    List<TestLogs.Rec> touched() {
        return written.stream().filter(this::touches).toList();
    }

    /** @return every record but those the garbage touched, in order. */
    List<TestLogs.Rec> untouched() {
        return written.stream().filter(rec -> !touches(rec)).toList();
    }

    /** @return the positions of the touched frames: from the first's start to the last's aligned end. */
    long[] touchedRange() {
        final List<TestLogs.Rec> touched = touched();
        final TestLogs.Rec last = touched.get(touched.size() - 1);
        return new long[] {touched.get(0).lsn(), last.lsn() + alignedLength(last)};
    }

    private boolean touches(final TestLogs.Rec rec) {
        return rec.lsn() < garbageTo && rec.lsn() + alignedLength(rec) > garbageFrom;
    }

    private static long alignedLength(final TestLogs.Rec rec) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(rec.payload().length));
    }

    private static long segment(final long lsn) {
        return lsn / SEGMENT_BYTES;
    }

    /**
     * Opens a log under a policy and reads every record.
     *
     * @param directory the log directory.
     * @param policy the policy.
     * @return the records, in order.
     */
    static List<TestLogs.Rec> readAll(final Path directory, final RecoveryPolicy policy) {
        final List<TestLogs.Rec> records = new ArrayList<>();
        try (Wal wal = Wal.open(config(directory, policy));
                WalReader reader = wal.reader(wal.startPosition(), Durability.WRITTEN)) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                records.add(new TestLogs.Rec(lsn, payload));
            });
        }
        assertTrue(records.size() > 1000, "a log of many records: " + records.size());
        return records;
    }
}
