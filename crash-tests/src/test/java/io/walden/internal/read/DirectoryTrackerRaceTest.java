package io.walden.internal.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.FileReads;
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
 * <p>In package {@code io.walden.internal.read} for the hook, which is not public.
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
        try (Wal wal = open(directory, 0)) {
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

    /**
     * A view's refresh that reads its active segment while the writer frees that segment, makes its
     * file a recycled next segment and writes frames into it past where the view had scanned: the
     * view must take the segment as freed by retention, not report the new frames as damage to it.
     */
    @Test
    void shouldTakeASegmentRecycledDuringTheRefreshForRetentionNotDamage() throws Exception {
        final Path directory = Path.of("target", "tracker-race-recycled").toAbsolutePath();
        TestFiles.deleteRecursively(directory);
        Files.createDirectories(directory);
        try (Wal wal = open(directory, 2)) {
            while (wal.writtenPosition() < SEGMENT_BYTES / 2) {
                wal.append(PAYLOAD, Durability.WRITTEN);
            }
            final long scannedTo = wal.writtenPosition();
            final AtomicBoolean armed = new AtomicBoolean();
            final long recycledBase = 3L * SEGMENT_BYTES;
            try (DirectoryTracker tracker = DirectoryTracker.open(directory, () -> {
                if (armed.getAndSet(false)) {
                    // Into segment 2, free segment 0 (kept for reuse; segment 1, which holds frames,
                    // stays), then on into segment 3, made from segment 0's file (it is prepared once a
                    // quarter of segment 2 is used, after the free), past the offset the view had
                    // scanned in segment 0.
                    appendUntil(wal, 2L * SEGMENT_BYTES + SegmentHeaderDescriptor.HEADER_LENGTH + 1);
                    wal.truncateBefore(SEGMENT_BYTES);
                    appendUntil(wal, recycledBase + scannedTo + SEGMENT_BYTES / 8);
                }
            })) {
                assertEquals(scannedTo, tracker.visiblePosition(Durability.WRITTEN));
                armed.set(true);
                tracker.refresh();
                assertTrue(!armed.get(), "the hook ran");
                assertRecycled(directory, recycledBase);
                assertNull(tracker.damageAt(scannedTo), "a segment freed during the refresh is no damage");
                tracker.refresh();
                assertEquals(wal.writtenPosition(), tracker.visiblePosition(Durability.WRITTEN));
            }
        }
        TestFiles.deleteRecursively(directory);
    }

    /**
     * A view that opens while the writer frees the oldest segment and makes its file a recycled next
     * segment, right after the view opened that segment's file under its old name and before it read
     * the header: the header then names another base, and the view must start again from the oldest segment left, not report the
     * log as corrupt. (A clean-clone CI run hit this in ViewRaceTest.)
     */
    @Test
    void shouldOpenFromTheOldestSegmentLeftWhenTheOneItReadWasRecycledMeanwhile() throws Exception {
        final Path directory = Path.of("target", "tracker-race-open-recycled").toAbsolutePath();
        TestFiles.deleteRecursively(directory);
        Files.createDirectories(directory);
        try (Wal wal = open(directory, 2)) {
            // Into segment 2, with 3 prepared ahead: segment 0 is the oldest.
            appendUntil(wal, 2L * SEGMENT_BYTES + SegmentHeaderDescriptor.HEADER_LENGTH + 1);
            final long recycledBase = 4L * SEGMENT_BYTES;
            final AtomicBoolean ran = new AtomicBoolean();
            final Runnable recycleOldest = () -> {
                if (!ran.getAndSet(true)) {
                    // Free segments 0 and 1 (kept for reuse), then on into segment 4, made from a freed file.
                    wal.truncateBefore(2L * SEGMENT_BYTES);
                    appendUntil(wal, recycledBase + SegmentHeaderDescriptor.HEADER_LENGTH + 1);
                }
            };
            try (DirectoryTracker tracker = DirectoryTracker.open(directory, () -> {}, () -> {
                // Only the first read (of segment 0); a retry must not recycle again.
                recycleOldest.run();
            })) {
                assertTrue(ran.get(), "the hook ran");
                assertRecycled(directory, recycledBase);
                assertEquals(2L * SEGMENT_BYTES, tracker.startPosition());
                assertEquals(wal.writtenPosition(), tracker.visiblePosition(Durability.WRITTEN));
            }
        }
        TestFiles.deleteRecursively(directory);
    }

    /** Asserts that the segment at a base was made from a freed file. */
    private static void assertRecycled(final Path directory, final long base) throws Exception {
        assertTrue(
                SegmentHeaderDecoder.recycled(FileReads.readHeader(SegmentNames.segmentPath(directory, base))),
                "segment at " + base + " is made from a freed file");
    }

    /** A small log on FileChannel that keeps up to {@code recycledSegmentsMax} freed files. */
    private static Wal open(final Path directory, final int recycledSegmentsMax) {
        return Wal.open(WalConfig.builder(directory)
                .backend(new NioStorageBackend(StorageOptions.BUFFERED))
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(WalConfig.BUFFER_CAPACITY_BYTES_MIN)
                .maxRecordBytes(8192)
                .recycledSegmentsMax(recycledSegmentsMax)
                .build());
    }

    private static void appendUntil(final Wal wal, final long position) {
        while (wal.writtenPosition() < position) {
            wal.append(PAYLOAD, Durability.WRITTEN);
        }
    }
}
