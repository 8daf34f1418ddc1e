package io.walden.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.testing.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The race of a view's refresh with a writer that completes the active segment, syncs, rolls and
 * writes into the next segment between the refresh's scan and its look at the next segment, made to
 * happen every time: the writer moves on from a hook that runs at exactly that point.
 * {@code ViewRaceTest} meets the same race only by chance.
 *
 * <p>In package {@code io.walden.internal} for the hook, which is not public.
 *
 * <p><b>Threading:</b> the test thread drives the writer and the tracker.
 */
final class DirectoryTrackerRaceTest {
    private static final int SEGMENT_BYTES = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
    private static final byte[] PAYLOAD = new byte[3000];

    @Test
    void shouldJudgeASegmentThatEndedEarlyOnlyAfterScanningItAgain() throws Exception {
        final Path directory = Path.of("target", "tracker-race").toAbsolutePath();
        TestFiles.deleteRecursively(directory);
        Files.createDirectories(directory);
        try (Wal wal = Wal.open(WalConfig.builder(directory)
                .backend(new NioStorageBackend(StorageOptions.BUFFERED))
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(WalConfig.BUFFER_CAPACITY_BYTES_MIN)
                .maxRecordBytes(8192)
                .build())) {
            while (wal.writtenPosition() < SEGMENT_BYTES / 2) {
                wal.append(PAYLOAD, Durability.WRITTEN);
            }
            final long scannedTo = wal.writtenPosition();
            final AtomicBoolean armed = new AtomicBoolean();
            try (DirectoryTracker tracker = DirectoryTracker.open(directory, () -> {
                if (armed.getAndSet(false)) {
                    // The writer completes segment 0 and writes a frame into segment 1 (it syncs segment 0
                    // before it rolls): what a scheduler can do to a refresh at this point.
                    while (wal.writtenPosition() < SEGMENT_BYTES + SegmentHeaderDescriptor.HEADER_LENGTH + 1) {
                        wal.append(PAYLOAD, Durability.WRITTEN);
                    }
                }
            })) {
                assertEquals(scannedTo, tracker.visiblePosition(Durability.WRITTEN));
                armed.set(true);
                tracker.refresh();
                assertTrue(!armed.get(), "the hook ran");
                assertNull(
                        tracker.damageAt(scannedTo), "a segment the writer completed during the refresh is no damage");
                assertEquals(wal.writtenPosition(), tracker.visiblePosition(Durability.WRITTEN));
            }
        }
        TestFiles.deleteRecursively(directory);
    }
}
