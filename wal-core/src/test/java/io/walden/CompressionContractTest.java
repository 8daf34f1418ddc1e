package io.walden;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.codec.Compression;
import io.walden.codec.RecordCodec;
import io.walden.format.FrameDecoder;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.testing.LogImages;
import io.walden.testing.RunLengthCodec;
import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Compression ({@link WalConfig.Builder#compression}): records from every source and in batches are
 * stored encoded where that makes them smaller, marked with their codec in the frame, read back as
 * appended by live readers and views, recovered without the codec, and refused, naming the codec, by
 * a reader that lacks it. Uses a run-length test codec ({@link RunLengthCodec}), so the core's paths
 * are tested on every backend without the codec library.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class CompressionContractTest {
    private static final int THRESHOLD_BYTES = 64;

    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected CompressionContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    private WalConfig.Builder compressed(final Path directory) {
        return fixture.config(directory)
                .compression(Compression.with(new RunLengthCodec())
                        .thresholdBytes(THRESHOLD_BYTES)
                        .encoders(2));
    }

    @Test
    void recordsFromEverySourceAreStoredEncodedWhereSmallerAndReadBackAsAppended() throws IOException {
        final Path directory = fixture.tempDir().resolve("log");
        final List<byte[]> appended = new ArrayList<>();
        final List<Boolean> encoded = new ArrayList<>();
        try (Wal wal = Wal.open(compressed(directory).build())) {
            final SplittableRandom random = new SplittableRandom(7);
            for (int i = 0; i < 40; i++) {
                final byte[] payload = payload(random, i);
                appended.add(payload);
                encoded.add(shrinks(payload));
                final Durability level = Durability.values()[i % 3];
                switch (i % 5) {
                    case 0 -> wal.append(payload, level);
                    case 1 -> wal.append(ByteBuffer.wrap(payload), level);
                    case 2 -> {
                        final ByteBuffer direct = ByteBuffer.allocateDirect(payload.length + 3);
                        direct.position(3);
                        direct.put(payload).position(3);
                        wal.append(direct, level);
                        assertEquals(3, direct.position(), "the buffer's position is left as it was");
                    }
                    case 3 -> wal.append(new UnsafeBuffer(payload), 0, payload.length, level);
                    default -> {
                        final long lsn = wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length);
                        assertTrue(lsn >= 0, "tryAppend was refused: " + lsn);
                    }
                }
            }
            final WalBatch batch = new WalBatch();
            for (int i = 0; i < 12; i++) {
                final byte[] payload = payload(random, 100 + i);
                batch.add(payload);
                appended.add(payload);
                encoded.add(shrinks(payload));
            }
            final long first = wal.append(batch, Durability.SYNCED);
            assertEquals(first, batch.lsn(0));
            wal.sync();
            final List<Read> records = TestRecords.replayAll(wal);
            assertPayloads(appended, records);
            for (int i = 0; i < batch.size(); i++) {
                assertEquals(batch.lsn(i), records.get(40 + i).lsn(), "the LSN the batch gave record " + i);
            }
            try (WalView view = Wal.openReadOnly(directory, new RunLengthCodec())) {
                assertPayloads(appended, read(view));
            }
            assertCompressionStats(wal.stats(), appended, encoded);
        }
        final List<Integer> codecs = storedCodecIds(directory);
        assertEquals(appended.size(), codecs.size());
        for (int i = 0; i < codecs.size(); i++) {
            assertEquals(
                    encoded.get(i) ? RunLengthCodec.ID : 0,
                    codecs.get(i),
                    "record " + i + " (" + appended.get(i).length + " bytes) stored with the wrong codec id");
        }
        assertTrue(codecs.contains(RunLengthCodec.ID) && codecs.contains(0), "the test needs both kinds");
    }

    @Test
    void aLogReopenedWithoutTheCodecRecoversButItsReadersRefuseTheEncodedRecordNamingTheCodec() {
        final Path directory = fixture.tempDir().resolve("log");
        final byte[] runs = runs(4000);
        final long lsn;
        try (Wal wal = Wal.open(compressed(directory).build())) {
            wal.append(new byte[] {1, 2, 3}, Durability.SYNCED);
            lsn = wal.append(runs, Durability.SYNCED);
        }
        try (Wal wal = Wal.open(fixture.config(directory).build())) {
            assertEquals(2, wal.recoveryReport().records(), "recovery needs no codec");
            final WalException refused = assertThrows(WalException.class, () -> TestRecords.replayAll(wal));
            assertEquals(WalException.ErrorCode.FORMAT, refused.errorCode());
            assertTrue(
                    refused.getMessage().contains("LSN " + lsn)
                            && refused.getMessage().contains("codec " + RunLengthCodec.ID),
                    refused.getMessage());
        }
        try (WalView view = Wal.openReadOnly(directory)) {
            final WalException refused = assertThrows(WalException.class, () -> read(view));
            assertEquals(WalException.ErrorCode.FORMAT, refused.errorCode());
        }
        try (WalView view = Wal.openReadOnly(directory, new RunLengthCodec())) {
            assertArrayEquals(runs, read(view).get(1).payload());
        }
    }

    @Test
    void anEncodingThatDoesNotDecodeIsCorruptionNamingTheRecordAndTheCodec() {
        final Path directory = fixture.tempDir().resolve("log");
        try (Wal wal = Wal.open(compressed(directory).build())) {
            wal.append(runs(2000), Durability.SYNCED);
        }
        try (WalView view = Wal.openReadOnly(directory, new ShortDecodingCodec())) {
            final WalCorruptionException corrupt = assertThrows(WalCorruptionException.class, () -> read(view));
            assertTrue(corrupt.getMessage().contains("codec " + RunLengthCodec.ID), corrupt.getMessage());
            assertTrue(corrupt.getMessage().contains("short (test)"), corrupt.getMessage());
        }
    }

    @Test
    void aLogMixesEncodedAndPlainRecordsAcrossReopensWithAndWithoutCompression() {
        final Path directory = fixture.tempDir().resolve("log");
        final List<byte[]> appended = new ArrayList<>();
        for (int session = 0; session < 4; session++) {
            final WalConfig.Builder builder = session % 2 == 0
                    ? compressed(directory)
                    : fixture.config(directory)
                            // Reads the codec, compresses nothing (no record reaches the threshold).
                            .compression(new Compression(new RunLengthCodec(), Integer.MAX_VALUE, 1));
            try (Wal wal = Wal.open(builder.build())) {
                for (int i = 0; i < 30; i++) {
                    final byte[] payload = i % 2 == 0 ? runs(200 + 50 * i) : TestRecords.bytes(session * 100L + i, 300);
                    wal.append(payload, Durability.WRITTEN);
                    appended.add(payload);
                }
                assertPayloads(appended, TestRecords.replayAll(wal, wal.startPosition(), Durability.WRITTEN));
            }
        }
    }

    @Test
    void compressingAppendsAllocateNothingPerRecord() {
        final Path directory = fixture.tempDir().resolve("log");
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Wal wal = Wal.open(compressed(directory).build())) {
            final byte[] payload = runs(1000);
            final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(1000));
            direct.putBytes(0, payload);
            final WalBatch batch = new WalBatch();
            batch.add(payload).add(payload, 0, 500).add(new byte[20]);
            for (int i = 0; i < 2000; i++) {
                appendEach(wal, payload, direct, batch);
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            final int rounds = 2000;
            for (int i = 0; i < rounds; i++) {
                appendEach(wal, payload, direct, batch);
            }
            final long perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / (rounds * 4L);
            assertTrue(perRecord < 8, "compressing appends allocated " + perRecord + " bytes per record");
        }
    }

    private static void appendEach(
            final Wal wal, final byte[] payload, final DirectBuffer direct, final WalBatch batch) {
        wal.append(payload, Durability.BUFFERED);
        wal.append(direct, 0, direct.capacity(), Durability.BUFFERED);
        wal.append(batch, Durability.BUFFERED);
    }

    /** Half long runs (shrink), a quarter random (grow: stored as given), a quarter below the threshold. */
    private static byte[] payload(final SplittableRandom random, final int i) {
        return switch (i % 4) {
            case 0, 1 -> runs(THRESHOLD_BYTES + random.nextInt(3000));
            case 2 -> TestRecords.bytes(random.nextLong(), THRESHOLD_BYTES + random.nextInt(3000));
            default -> runs(1 + random.nextInt(THRESHOLD_BYTES - 1));
        };
    }

    private static byte[] runs(final int length) {
        final byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (i / 100);
        }
        return payload;
    }

    /** Whether the test codec stores a record encoded: long enough, and smaller framed. */
    private static boolean shrinks(final byte[] payload) {
        return payload.length >= THRESHOLD_BYTES
                && FrameDescriptor.alignedLength(FrameDescriptor.frameLength(encodedLength(payload)))
                        < FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payload.length));
    }

    private static int encodedLength(final byte[] payload) {
        final MutableDirectBuffer target =
                new UnsafeBuffer(new byte[new RunLengthCodec().maxEncodedLength(payload.length)]);
        return new RunLengthCodec()
                .newEncoder()
                .encode(new UnsafeBuffer(payload), 0, payload.length, target, 0, target.capacity());
    }

    /** The stats count exactly the records stored encoded, with their bytes as appended and as stored. */
    private static void assertCompressionStats(
            final WalStats stats, final List<byte[]> appended, final List<Boolean> encoded) {
        long records = 0;
        long input = 0;
        long stored = 0;
        for (int i = 0; i < appended.size(); i++) {
            if (encoded.get(i)) {
                records++;
                input += appended.get(i).length;
                stored += encodedLength(appended.get(i));
            }
        }
        assertEquals(records, stats.recordsCompressed());
        assertEquals(input, stats.compressedInputBytes());
        assertEquals(stored, stats.compressedStoredBytes());
        assertTrue(stats.compressionRatio() < 1, "ratio " + stats.compressionRatio());
    }

    private static void assertPayloads(final List<byte[]> appended, final List<Read> records) {
        assertEquals(appended.size(), records.size());
        for (int i = 0; i < appended.size(); i++) {
            assertArrayEquals(appended.get(i), records.get(i).payload(), "record " + i);
        }
    }

    private static List<Read> read(final WalView view) {
        try (WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            return TestRecords.pollAll(reader, 100);
        }
    }

    /** The codec id of every data frame in the log's segments, in order. */
    private static List<Integer> storedCodecIds(final Path directory) throws IOException {
        final List<Integer> ids = new ArrayList<>();
        for (final Path segment : LogImages.segmentFiles(directory)) {
            final ByteBuffer bytes =
                    ByteBuffer.wrap(Files.readAllBytes(segment)).order(ByteOrder.LITTLE_ENDIAN);
            final long base = bytes.getLong(SegmentHeaderDescriptor.BASE_POSITION_OFFSET);
            final FrameDecoder decoder = new FrameDecoder(SegmentHeaderDecoder.logId(bytes));
            int offset = SegmentHeaderDescriptor.HEADER_LENGTH;
            while (offset < bytes.capacity()
                    && decoder.decode(bytes, offset, bytes.capacity() - offset, base, offset, bytes.capacity())
                            == FrameDecoder.Verdict.FRAME) {
                if (decoder.frameType() == FrameDescriptor.TYPE_DATA) {
                    ids.add(decoder.codecId());
                }
                offset += decoder.alignedLength();
            }
        }
        return ids;
    }

    /** Reads the run-length id with a decoder that gives a byte less than announced. */
    private static final class ShortDecodingCodec implements RecordCodec {
        private final RunLengthCodec codec = new RunLengthCodec();

        @Override
        public int id() {
            return RunLengthCodec.ID;
        }

        @Override
        public String name() {
            return "short (test)";
        }

        @Override
        public int maxEncodedLength(final int length) {
            return codec.maxEncodedLength(length);
        }

        @Override
        public Encoder newEncoder() {
            return codec.newEncoder();
        }

        @Override
        public Decoder newDecoder() {
            final Decoder decoder = codec.newDecoder();
            return new Decoder() {
                @Override
                public int decodedLength(final DirectBuffer source, final int offset, final int length) {
                    return decoder.decodedLength(source, offset, length);
                }

                @Override
                public int decode(
                        final DirectBuffer source,
                        final int offset,
                        final int length,
                        final MutableDirectBuffer target,
                        final int targetOffset,
                        final int targetCapacity) {
                    return decoder.decode(source, offset, length, target, targetOffset, targetCapacity) - 1;
                }

                @Override
                public void close() {}
            };
        }
    }

    static {
        // The test codec's run bytes must differ from a run of zeros in a segment's unwritten space.
        if (Arrays.equals(runs(1), new byte[1]) && runs(101)[100] == 0) {
            throw new ExceptionInInitializerError("runs() must not be all zeros");
        }
    }
}
