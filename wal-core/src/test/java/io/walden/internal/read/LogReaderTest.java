package io.walden.internal.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.internal.EngineFixture;
import io.walden.internal.append.AppendPath;
import io.walden.internal.append.FramePublisher;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.recovery.RecoveredLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogReader} on its own, over a running engine on real files ({@link EngineFixture}, 64 KiB
 * segments): records come back whole and in order across segment rolls, a reader at the end picks up
 * what is appended after it, a seek goes to a record, and a reader refuses what it cannot do.
 */
class LogReaderTest {
    private static final int RECORDS = 300;

    @TempDir
    Path tempDir;

    @Test
    void shouldDeliverEveryRecordInOrderAcrossSegmentsAndFollowTheTail() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final List<Long> lsns = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                lsns.add(append(appends, record(i)));
            }
            assertTrue(
                    lsns.get(RECORDS - 1) > 2L * EngineFixture.SEGMENT_BYTES,
                    "the records span several segments: " + lsns.get(RECORDS - 1));
            try (WalReader reader = reader(fixture, fixture.state().startPosition())) {
                final List<Long> read = new ArrayList<>();
                final List<byte[]> payloads = new ArrayList<>();
                while (reader.poll(collect(read, payloads), 64) > 0) {
                    // Reads until nothing more is durable.
                }
                assertEquals(lsns, read);
                for (int i = 0; i < RECORDS; i++) {
                    assertArrayEquals(record(i), payloads.get(i), "record " + i);
                }
                assertEquals(0, reader.poll(collect(read, payloads), 64), "nothing past the end");

                final long next = append(appends, record(RECORDS));
                assertEquals(1, reader.poll(collect(read, payloads), 64), "the reader follows the tail");
                assertEquals(next, read.get(read.size() - 1));
            }
        }
    }

    @Test
    void shouldSeekToARecordAndRefuseAPositionInsideOne() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final AppendPath appends = fixture.appendPath();
            final List<Long> lsns = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                lsns.add(append(appends, record(i)));
            }
            try (WalReader reader = reader(fixture, fixture.state().startPosition())) {
                reader.seek(lsns.get(7));
                final List<Long> read = new ArrayList<>();
                assertEquals(1, reader.poll(collect(read, new ArrayList<>()), 1));
                assertEquals(lsns.get(7), read.get(0));
                assertEquals(lsns.get(8), reader.position());

                reader.seek(lsns.get(7) + 8);
                final WalException inside =
                        assertThrows(WalException.class, () -> reader.poll(collect(read, new ArrayList<>()), 1));
                assertEquals(WalException.ErrorCode.POSITION, inside.errorCode(), inside.getMessage());
            }
        }
    }

    @Test
    void shouldRefuseBufferedVisibilityAndAClosedReader() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            append(fixture.appendPath(), record(0));
            final WalException buffered = assertThrows(
                    WalException.class, () -> reader(fixture, fixture.state().startPosition(), Durability.BUFFERED));
            assertEquals(WalException.ErrorCode.CONFIG, buffered.errorCode());
            final WalReader reader = reader(fixture, fixture.state().startPosition());
            reader.close();
            reader.close();
            assertThrows(WalException.class, () -> reader.poll((buffer, offset, length, position) -> {}, 1));
        }
    }

    private static long append(final AppendPath appends, final byte[] payload) {
        return appends.append(payload, 0, payload.length, Durability.SYNCED, FramePublisher.BYTES);
    }

    /** Record i: 500 to 1,500 bytes, each byte derived from i and its index. */
    private static byte[] record(final int i) {
        final byte[] bytes = new byte[500 + (i * 37) % 1000];
        for (int k = 0; k < bytes.length; k++) {
            bytes[k] = (byte) (i * 31 + k);
        }
        return bytes;
    }

    private static WalReader reader(final EngineFixture fixture, final long fromLsn) {
        return reader(fixture, fromLsn, Durability.SYNCED);
    }

    private static WalReader reader(final EngineFixture fixture, final long fromLsn, final Durability visibility) {
        final RecoveredLog recovered = fixture.holder.engine().recovered();
        return new LogReader(
                new LogReader.Log(
                        fixture.config.directory(),
                        recovered.logId(),
                        recovered.segmentCapacityBytes(),
                        recovered.skippedRanges(),
                        CodecTable.discovered()),
                fixture.state(),
                fixture.config.maxRecordBytes(),
                fromLsn,
                visibility);
    }

    private static io.walden.RecordHandler collect(final List<Long> lsns, final List<byte[]> payloads) {
        return (buffer, offset, length, position) -> {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            lsns.add(position);
            payloads.add(bytes);
        };
    }
}
