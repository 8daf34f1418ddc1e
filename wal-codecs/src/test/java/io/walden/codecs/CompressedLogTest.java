package io.walden.codecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.WalView;
import io.walden.codec.Compression;
import io.walden.codec.RecordCodec;
import io.walden.nio.NioStorageBackend;
import io.walden.testkit.SampleRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A log compressed with each codec of the module: JSON-like records read back as appended, by the log
 * and by a view that was given no codec (the module registers its codecs with {@link
 * java.util.ServiceLoader}), and they take at most half the log positions the same records take
 * stored as given.
 */
final class CompressedLogTest {
    @TempDir
    Path directory;

    static Stream<RecordCodec> codecs() {
        return CodecRoundTripTest.codecs();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void jsonLikeRecordsReadBackAsAppendedAndTakeAtMostHalfTheLog(final RecordCodec codec) {
        final List<byte[]> records = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 2000; i++) {
            records.add(SampleRecords.jsonLike(random, 1024));
        }
        final long plain = append(directory.resolve("plain"), null, records);
        final long compressed = append(directory.resolve("compressed"), Compression.with(codec), records);
        System.out.printf(
                "%s: the log took %.3f of the positions stored as given%n", codec, compressed / (double) plain);
        assertTrue(compressed * 2 <= plain, codec + ": " + compressed + " bytes of log against " + plain + " plain");
        try (WalView view = Wal.openReadOnly(directory.resolve("compressed"));
                WalReader reader = view.reader(view.startPosition(), Durability.SYNCED)) {
            final List<byte[]> read = new ArrayList<>();
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                read.add(payload);
            });
            assertEquals(records.size(), read.size());
            for (int i = 0; i < records.size(); i++) {
                assertArrayEquals(records.get(i), read.get(i), "record " + i);
            }
        }
    }

    /** Appends the records, singly and in batches of 10, and returns the positions they took. */
    private static long append(final Path directory, final Compression compression, final List<byte[]> records) {
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .backend(new NioStorageBackend())
                .segmentCapacityBytes(1 << 20)
                .compression(compression)
                .build())) {
            final long start = wal.writtenPosition();
            final WalBatch batch = new WalBatch();
            for (int i = 0; i < records.size(); i++) {
                if (i < records.size() / 2) {
                    wal.append(records.get(i), Durability.BUFFERED);
                } else {
                    batch.add(records.get(i));
                    if (batch.size() == 10) {
                        wal.append(batch, Durability.BUFFERED);
                        batch.clear();
                    }
                }
            }
            wal.sync();
            return wal.writtenPosition() - start;
        }
    }
}
