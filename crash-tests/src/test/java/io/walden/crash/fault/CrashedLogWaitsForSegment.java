package io.walden.crash.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.crash.CrashTally;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.testing.LogImages;
import io.walden.testing.TestRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * {@link FullDiskTest}'s case of a log that crashed where recovery must continue in a new segment (the
 * tail segment's write limit had reached its end, and the next segment was not prepared yet), opened
 * on a full file system. It opens at the end of its tail segment; an append waits for the next
 * segment and is refused with {@code STORAGE_SPACE} after the append timeout, the log not failed;
 * {@code truncateBefore} frees the older segments and the next append goes through on the same log;
 * a reopen finds every acknowledged record retention kept, in order, the new ones at positions never
 * used before. On btrfs with copy on write too: the discard frame that ends the crashed segment and
 * its header found no space there, and the running log writes them before the segment's successor.
 */
final class CrashedLogWaitsForSegment {
    private static final int SEGMENT_BYTES = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
    private static final int RECORD_BYTES = 4000;

    private CrashedLogWaitsForSegment() {}

    static void check(final Path mountPoint, final LoopFileSystem.Type type, final Function<Path, WalConfig> configs)
            throws Exception {
        final Path live = mountPoint.resolve("log-live-full-tail");
        final Path crashed = mountPoint.resolve("log-crashed-full-tail");
        final Path filler = mountPoint.resolve("filler");
        final List<Long> lsns = new ArrayList<>();
        try (Wal wal = Wal.open(configs.apply(live))) {
            // Past a third of the fourth segment: its write limit reached the segment's end.
            for (int i = 0; wal.tailPosition() < 3L * SEGMENT_BYTES + SEGMENT_BYTES / 2; i++) {
                lsns.add(wal.append(TestRecords.tagged(0, i, RECORD_BYTES), Durability.SYNCED));
            }
            LogImages.crashImage(live, crashed);
        }
        // The crash came before the next segment was renamed into place; a crashed process leaves its
        // lock file.
        Files.deleteIfExists(SegmentNames.segmentPath(crashed, 4L * SEGMENT_BYTES));
        try (Stream<Path> files = Files.list(crashed)) {
            for (final Path file : files.toList()) {
                if (file.getFileName().toString().endsWith(".tmp")) {
                    Files.delete(file);
                }
            }
        }
        if (!Files.exists(crashed.resolve(SegmentNames.LOCK_FILE_NAME))) {
            Files.createFile(crashed.resolve(SegmentNames.LOCK_FILE_NAME));
        }
        final WalConfig config = configs.apply(crashed);
        final List<Long> kept = new ArrayList<>();
        LoopFileSystem.fill(filler);
        try {
            try (Wal wal = Wal.open(config)) {
                final RecoveryReport report = wal.recoveryReport();
                assertEquals(lsns.size(), report.records(), report::summary);
                assertTrue(report.summary().contains("no room for a new segment"), report::summary);
                // Appends wait for the next segment and are refused. A file system may give a few
                // blocks back after the fill (ext4 releases a closed file's preallocation), enough for
                // a new segment (a header and a hole) and a few records: those are acknowledged.
                final List<Long> appended = new ArrayList<>();
                WalException refused = null;
                for (int i = 0; refused == null; i++) {
                    assertTrue(i < 1000, "no append was refused on the full disk");
                    try {
                        appended.add(wal.append(TestRecords.tagged(1, i, RECORD_BYTES), Durability.SYNCED));
                    } catch (final WalException ex) {
                        refused = ex;
                    }
                }
                assertEquals(WalException.ErrorCode.STORAGE_SPACE, refused.errorCode(), refused.toString());
                assertTrue(String.valueOf(refused.getMessage()).contains(crashed.toString()), refused::toString);
                assertTrue(
                        !wal.stats().failed(),
                        () -> "the log failed: " + wal.stats().failure());
                // Retention frees the three older segments (deleted: space is short), and the next
                // segment is prepared on the same open log.
                assertEquals(3, wal.truncateBefore(3L * SEGMENT_BYTES), "segments freed");
                if (type.copiesOnWrite()) {
                    // btrfs counts freed space once it commits its transaction.
                    LoopFileSystem.syncFileSystem(crashed);
                }
                final long freedNs = System.nanoTime();
                final long lsn = wal.append(TestRecords.tagged(2, 0, RECORD_BYTES), Durability.SYNCED);
                final long resumedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freedNs);
                for (final long old : lsns) {
                    if (old >= 3L * SEGMENT_BYTES) {
                        kept.add(old);
                    }
                }
                kept.addAll(appended);
                if (refused.lsn() >= 0) {
                    // Refused while it waited: in the log, written once there was space.
                    kept.add(refused.lsn());
                }
                kept.add(lsn);
                final long first = appended.isEmpty() ? refused.lsn() >= 0 ? refused.lsn() : lsn : appended.get(0);
                assertEquals(
                        4L * SEGMENT_BYTES + SegmentHeaderDescriptor.HEADER_LENGTH,
                        first,
                        "the first record after the crash went elsewhere than the next segment's first frame");
                System.out.println("full disk, crashed log needing a new segment: opened; the first SYNCED append "
                        + resumedMs + " ms after truncateBefore, on the same log");
            }
        } finally {
            Files.deleteIfExists(filler);
        }
        try (Wal wal = Wal.open(config)) {
            final List<TestRecords.Read> read = TestRecords.replayAll(wal, wal.startPosition(), Durability.SYNCED);
            assertEquals(kept, read.stream().map(TestRecords.Read::lsn).toList(), wal.recoveryReport()::summary);
        }
        CrashTally.FAULTS.incrementAndGet();
    }
}
