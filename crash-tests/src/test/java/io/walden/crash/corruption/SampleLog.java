package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A closed log of three segments with data, written through a real backend: segment 0 and segment 1
 * are full, and segment 1 is <em>sealed</em> (a later segment holds data, so by the roll fence no
 * crash can explain damage in it); segment 2, the newest, holds a few large records followed by
 * unwritten (zero) space. The backend may have prepared an empty segment 3 as well.
 *
 * <p>Records have random sizes, including empty payloads and every remainder modulo 8 (so frames
 * have alignment gaps); segment 1 holds a short (8-byte) padding frame at the end of a buffer pass,
 * forced by sizing one record to leave exactly 8 bytes, and the padding frame that closes it. The
 * layout is deterministic for a seed: a single appender thread gets deterministic positions.
 *
 * <p>Each sample log comes in two states: closed cleanly (the newest segment's header records it),
 * and {@link #crashed()}, a copy of its files taken after the last append while the log was still
 * open, as a kill -9 leaves it. The newest segment's records are appended {@code WRITTEN} with no
 * background sync, so after the crash no valid frame proves any of them durable: damage to them is a
 * torn tail to recovery, while after the clean close it is corruption.
 *
 * <p><b>Threading:</b> immutable once created.
 */
final class SampleLog {
    /**
     * Segment capacity: four passes of the log buffer, so a buffer pass ends inside each segment; and
     * a write limit window (a sixteenth) that holds the newest segment's records, so that no sync
     * raises it under them: nothing proves them durable.
     */
    static final int SEGMENT_BYTES = 256 * 1024;
    /** Log buffer capacity. */
    static final int BUFFER_BYTES = 64 * 1024;
    /** Largest record: a frame must fit in half the buffer. */
    static final int MAX_RECORD_BYTES = 16 * 1024;
    /** Base position of the sealed segment. */
    static final long SEALED_BASE = SEGMENT_BYTES;
    /** Base position of the newest segment with data. */
    static final long NEWEST_BASE = 2L * SEGMENT_BYTES;
    /** Records in the newest segment. */
    static final int NEWEST_RECORD_COUNT = 6;

    private static final int SECTOR_BYTES = 512;

    /** A record as appended or as read back. */
    record LogRecord(long lsn, byte[] payload) {
        @Override
        public boolean equals(final Object other) {
            return other instanceof LogRecord that && lsn == that.lsn && Arrays.equals(payload, that.payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(lsn) * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "LogRecord{lsn=" + lsn + ", length=" + payload.length + '}';
        }

        /** @return the frame length: header plus payload. */
        int frameLength() {
            return FrameDescriptor.frameLength(payload.length);
        }

        /** @return the space the frame occupies, aligned. */
        int alignedLength() {
            return FrameDescriptor.alignedLength(frameLength());
        }

        /** @return the offset of the frame in its segment file. */
        long fileOffset() {
            return lsn - segmentBase(lsn);
        }
    }

    private final Path directory;
    private final List<LogRecord> records;
    private final SampleLog crashed;

    private SampleLog(final Path directory, final List<LogRecord> records, final SampleLog crashed) {
        this.directory = directory;
        this.records = List.copyOf(records);
        this.crashed = crashed;
    }

    /**
     * Writes a new sample log.
     *
     * @param directory an empty or missing directory.
     * @param backend the backend to write through.
     * @param seed the seed of record sizes and contents.
     * @return the log, closed.
     */
    static SampleLog create(final Path directory, final CorruptionBackend backend, final long seed) {
        final Random random = new Random(seed);
        final List<LogRecord> records = new ArrayList<>();
        boolean shortPaddingForced = false;
        try (Wal wal = Wal.open(config(directory, backend, RecoveryPolicy.FAIL))) {
            while (countIn(records, NEWEST_BASE) < NEWEST_RECORD_COUNT) {
                // From the tail, not the last record: a durability mark may follow a pause after a sync.
                final long tail = wal.tailPosition();
                final long next =
                        (tail & (SEGMENT_BYTES - 1)) == 0 ? tail + SegmentHeaderDescriptor.HEADER_LENGTH : tail;
                final long passRemainingBytes = ((next | (BUFFER_BYTES - 1)) + 1) - next;
                final int payloadBytes;
                if (!shortPaddingForced
                        && segmentBase(next) == SEALED_BASE
                        && passRemainingBytes >= 64
                        && passRemainingBytes <= 4096) {
                    // Leaves exactly 8 bytes before the end of the pass: the next frame does not
                    // fit, and the writer fills the gap with a short padding frame.
                    payloadBytes = (int) passRemainingBytes - 8 - FrameDescriptor.HEADER_LENGTH;
                    shortPaddingForced = true;
                } else if (segmentBase(next) == NEWEST_BASE) {
                    // Large records at the end, so that each frame of the newest segment spans
                    // several sectors (the torn-tail cases zero whole sectors inside one).
                    payloadBytes = 1600 + random.nextInt(800);
                } else {
                    payloadBytes = randomPayloadBytes(random);
                }
                final byte[] payload = payload(random, payloadBytes);
                final Durability durability = random.nextInt(8) == 0 && segmentBase(next) != NEWEST_BASE
                        ? Durability.SYNCED
                        : Durability.WRITTEN;
                records.add(new LogRecord(wal.append(payload, durability), payload));
            }
            // Before any sync of the newest segment's WRITTEN records: nothing proves them durable.
            copyCrashImage(directory, crashedDirectory(directory));
            wal.sync();
        }
        final SampleLog log =
                new SampleLog(directory, records, new SampleLog(crashedDirectory(directory), records, null));
        assertTrue(shortPaddingForced, "the sample log must hold a short padding frame");
        assertEquals(3, countSegmentsWithRecords(records), "records must span exactly three segments");
        return log;
    }

    /**
     * The same log in another directory.
     *
     * @param target the directory to copy into (overwritten).
     * @return the copy.
     * @throws IOException on an I/O failure.
     */
    SampleLog copyTo(final Path target) throws IOException {
        ScratchDirectory.copyFiles(directory, target);
        return new SampleLog(target, records, crashed);
    }

    /**
     * The same log as a crash left it: copied while open, after its last sync.
     *
     * @return the crashed log (never modified; copy it before damaging it).
     */
    SampleLog crashed() {
        if (crashed == null) {
            throw new IllegalStateException(directory + " is a crash image already");
        }
        return crashed;
    }

    private static Path crashedDirectory(final Path directory) {
        return directory.resolveSibling(directory.getFileName() + "-crashed");
    }

    private static void copyCrashImage(final Path live, final Path target) {
        try {
            io.walden.testing.LogImages.crashImage(live, target);
        } catch (final IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /**
     * The configuration every suite opens sample logs with.
     *
     * @param directory the log directory.
     * @param backend the backend.
     * @param policy the recovery policy.
     * @return the configuration.
     */
    static WalConfig config(final Path directory, final CorruptionBackend backend, final RecoveryPolicy policy) {
        return WalConfig.builder(directory)
                .backend(backend.create())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(BUFFER_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES)
                // No background sync: what is durable depends on the appends' levels alone.
                .syncIntervalNs(0)
                .recoveryPolicy(policy)
                .build();
    }

    /** @return the log directory. */
    Path directory() {
        return directory;
    }

    /** @return every record appended, in LSN order. */
    List<LogRecord> records() {
        return records;
    }

    /**
     * The records of one segment.
     *
     * @param base the segment's base position.
     * @return its records, in LSN order.
     */
    List<LogRecord> recordsIn(final long base) {
        return records.stream().filter(r -> segmentBase(r.lsn()) == base).collect(Collectors.toList());
    }

    /**
     * The records before a position.
     *
     * @param position a log position.
     * @return the records whose LSN is below it.
     */
    List<LogRecord> recordsBefore(final long position) {
        return records.stream().filter(r -> r.lsn() < position).collect(Collectors.toList());
    }

    /**
     * A segment file of this log.
     *
     * @param base the segment's base position.
     * @return its path.
     */
    Path segment(final long base) {
        return SegmentNames.segmentPath(directory, base);
    }

    /**
     * The segment files present now, oldest first.
     *
     * @return their paths.
     * @throws IOException on an I/O failure.
     */
    List<Path> segmentFiles() throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(
                            p -> SegmentNames.parseSegmentName(p.getFileName().toString()) >= 0)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /**
     * How many segment files lie above a base position.
     *
     * @param base a segment base position.
     * @return the count.
     * @throws IOException on an I/O failure.
     */
    int segmentFilesAbove(final long base) throws IOException {
        int count = 0;
        for (final Path path : segmentFiles()) {
            if (SegmentNames.parseSegmentName(path.getFileName().toString()) > base) {
                count++;
            }
        }
        return count;
    }

    /**
     * Reads every durable record of an open log from its start.
     *
     * @param wal the log.
     * @return the records, as read.
     */
    static List<LogRecord> readAll(final Wal wal) {
        final List<LogRecord> read = new ArrayList<>();
        try (WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                read.add(new LogRecord(lsn, bytes));
            });
        }
        return read;
    }

    /**
     * Asserts that records read back are exactly the expected ones: same positions, same bytes.
     *
     * @param expected the records that must be there.
     * @param actual the records read.
     */
    static void assertRecords(final List<LogRecord> expected, final List<LogRecord> actual) {
        assertEquals(
                expected.stream().map(LogRecord::lsn).collect(Collectors.toList()),
                actual.stream().map(LogRecord::lsn).collect(Collectors.toList()),
                "record positions");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).payload(), actual.get(i).payload(), "payload of " + expected.get(i));
        }
    }

    /**
     * Appends one record durably.
     *
     * @param wal the log.
     * @param seed the seed of its contents.
     * @param payloadBytes its length.
     * @return the record.
     */
    static LogRecord appendSynced(final Wal wal, final long seed, final int payloadBytes) {
        final byte[] payload = payload(new Random(seed), payloadBytes);
        return new LogRecord(wal.append(payload, Durability.SYNCED), payload);
    }

    /**
     * The base position of the segment holding a position.
     *
     * @param position a log position.
     * @return the segment's base position.
     */
    static long segmentBase(final long position) {
        return position & -(long) SEGMENT_BYTES;
    }

    /**
     * Rounds up to a whole sector.
     *
     * @param offset a file offset.
     * @return the first sector boundary at or after it.
     */
    static long sectorCeiling(final long offset) {
        return (offset + SECTOR_BYTES - 1) & -(long) SECTOR_BYTES;
    }

    /** @return the sector size that torn writes are assumed to respect. */
    static int sectorBytes() {
        return SECTOR_BYTES;
    }

    private static int randomPayloadBytes(final Random random) {
        final int kind = random.nextInt(100);
        if (kind < 5) {
            return 0;
        }
        if (kind < 15) {
            return 1 + random.nextInt(7);
        }
        if (kind < 90) {
            return 1 + random.nextInt(3000);
        }
        return 3000 + random.nextInt(MAX_RECORD_BYTES - 3000 + 1);
    }

    /**
     * Random bytes without zeros, so that no part of a frame ever looks unwritten.
     *
     * @param random the source.
     * @param length how many.
     * @return the bytes.
     */
    static byte[] payload(final Random random, final int length) {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                bytes[i] = 0x5A;
            }
        }
        return bytes;
    }

    /**
     * Where the non-zero bytes of a file's content end.
     *
     * @param bytes the content.
     * @param fromOffset where to start looking.
     * @return the offset after the last non-zero byte at or after {@code fromOffset}, or {@code
     *     fromOffset} if there is none.
     */
    static long dataEnd(final byte[] bytes, final long fromOffset) {
        for (int i = bytes.length - 1; i >= fromOffset; i--) {
            if (bytes[i] != 0) {
                return i + 1;
            }
        }
        return fromOffset;
    }

    private static int countIn(final List<LogRecord> records, final long base) {
        int count = 0;
        for (final LogRecord record : records) {
            if (segmentBase(record.lsn()) == base) {
                count++;
            }
        }
        return count;
    }

    private static long countSegmentsWithRecords(final List<LogRecord> records) {
        return records.stream().mapToLong(r -> segmentBase(r.lsn())).distinct().count();
    }
}
