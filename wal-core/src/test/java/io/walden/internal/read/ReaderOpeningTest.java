package io.walden.internal.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.internal.EngineFixture;
import io.walden.internal.append.FramePublisher;
import io.walden.internal.codec.CodecTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReaderOpeningTest {
    private static final byte[] RECORD = "a record".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path tempDir;

    @Test
    void shouldOpenAReaderThatSeesWhatItsLevelShows() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final long lsn =
                    fixture.appendPath().append(RECORD, 0, RECORD.length, Durability.WRITTEN, FramePublisher.BYTES);
            final List<byte[]> read = new ArrayList<>();
            final List<Long> lsns = new ArrayList<>();

            try (WalReader reader = new ReaderOpening(
                            fixture.holder, fixture.config.maxRecordBytes(), CodecTable.discovered())
                    .open(fixture.state().startPosition(), Durability.WRITTEN)) {
                reader.poll(
                        (buffer, offset, length, position) -> {
                            final byte[] bytes = new byte[length];
                            buffer.getBytes(offset, bytes);
                            read.add(bytes);
                            lsns.add(position);
                        },
                        10);
            }

            assertEquals(List.of(lsn), lsns);
            assertArrayEquals(RECORD, read.get(0));
        }
    }

    @Test
    void shouldRefuseAPositionBeyondTheEndOfTheLog() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final long tail = fixture.holder.engine().logBuffer().tailPosition();

            final WalException refused = assertThrows(WalException.class, () -> new ReaderOpening(
                            fixture.holder, fixture.config.maxRecordBytes(), CodecTable.discovered())
                    .open(tail + 8, Durability.SYNCED));

            assertEquals(WalException.ErrorCode.POSITION, refused.errorCode());
            assertEquals("position " + (tail + 8) + " is beyond the end of the log at " + tail, refused.getMessage());
        }
    }
}
