package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.LogInspection;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.nio.NioStorageBackend;
import io.walden.testing.LogImages;
import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Logs for the tool's tests, written with the FileChannel backend in small segments (256 KiB) so
 * that several segments are quick to make, under {@code target/} (not {@code /tmp}, which may be a
 * tmpfs): clean, crashed with a torn tail, corrupt in an older segment, and directories that hold no
 * log or a file that is not a segment.
 */
final class TestLogs {
    /** Segment capacity of every test log. */
    static final int SEGMENT_BYTES = 256 * 1024;

    private TestLogs() {}

    /**
     * A record as appended.
     *
     * @param lsn its position.
     * @param payload its bytes.
     */
    record Rec(long lsn, byte[] payload) {
        /** @return its payload as text. */
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /**
     * A new empty directory under {@code target/walden-tools-tests}.
     *
     * @param name a prefix.
     * @return the directory.
     * @throws IOException if it cannot be created.
     */
    static Path newRoot(final String name) throws IOException {
        final Path base = Path.of("target", "walden-tools-tests").toAbsolutePath();
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name + "-");
    }

    /**
     * Deletes a test directory.
     *
     * @param root the directory.
     * @throws IOException if deleting fails.
     */
    static void delete(final Path root) throws IOException {
        TestFiles.deleteRecursively(root);
    }

    /**
     * The configuration of every test log.
     *
     * @param directory the log directory.
     * @return the builder.
     */
    static WalConfig.Builder config(final Path directory) {
        return WalConfig.builder(directory)
                .backend(new NioStorageBackend())
                .segmentCapacityBytes(SEGMENT_BYTES)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(16 * 1024);
    }

    /**
     * A text payload: the record's number, then letters, {@code length} bytes in all.
     *
     * @param index the record's number.
     * @param length its length.
     * @return the payload.
     */
    static byte[] payload(final int index, final int length) {
        final byte[] bytes = new byte[length];
        final byte[] tag = ("record-" + index + ":").getBytes(StandardCharsets.US_ASCII);
        final SplittableRandom random = new SplittableRandom(index);
        for (int i = 0; i < length; i++) {
            bytes[i] = i < tag.length ? tag[i] : (byte) ('a' + random.nextInt(26));
        }
        return bytes;
    }

    /**
     * Writes a log and closes it cleanly.
     *
     * @param directory the log directory.
     * @param count how many records.
     * @param payloadBytes each record's length.
     * @return the records.
     */
    static List<Rec> cleanLog(final Path directory, final int count, final int payloadBytes) {
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(config(directory).build())) {
            for (int i = 0; i < count; i++) {
                final byte[] payload = payload(i, payloadBytes);
                written.add(new Rec(wal.append(payload, Durability.WRITTEN), payload));
            }
        }
        return written;
    }

    /**
     * Writes a log that fills {@code segments - 1} segments and part of the next, closed cleanly.
     *
     * @param directory the log directory.
     * @param segments how many segments hold data.
     * @param payloadBytes each record's length.
     * @return the records.
     */
    static List<Rec> logWithSegments(final Path directory, final int segments, final int payloadBytes) {
        final long lastBase = (segments - 1L) * SEGMENT_BYTES;
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(config(directory).build())) {
            int inLast = 0;
            for (int i = 0; inLast < 5; i++) {
                final byte[] payload = payload(i, payloadBytes);
                final Rec rec = new Rec(wal.append(payload, Durability.WRITTEN), payload);
                written.add(rec);
                if (segmentBase(rec.lsn()) == lastBase) {
                    inLast++;
                }
            }
        }
        return written;
    }

    /**
     * What a crash leaves: records appended {@code WRITTEN} with no sync, the files copied while the
     * log is open, then a byte of the last record's payload flipped, as if its write was torn.
     * {@code Wal.inspect} calls it a torn tail.
     *
     * @param directory the directory to create.
     * @param count how many records.
     * @return the records appended (the last one is torn).
     * @throws IOException if copying fails.
     */
    static List<Rec> tornTailLog(final Path directory, final int count) throws IOException {
        final Path live = directory.resolveSibling(directory.getFileName() + "-live");
        final List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(config(live).syncIntervalNs(0).build())) {
            for (int i = 0; i < count; i++) {
                final byte[] payload = payload(i, 500);
                written.add(new Rec(wal.append(payload, Durability.WRITTEN), payload));
            }
            LogImages.crashImage(live, directory);
        }
        delete(live);
        flipPayloadByte(directory, written.get(written.size() - 1));
        assertEquals(LogInspection.Verdict.TORN_TAIL, Wal.inspect(directory).verdict());
        return written;
    }

    /**
     * A log of three segments, closed cleanly, with a byte flipped in a record of the oldest segment:
     * damage to data the log proves durable (later segments hold data), which opening refuses.
     *
     * @param directory the log directory.
     * @return the records and the damaged one.
     * @throws IOException if writing fails.
     */
    static Damaged corruptOlderSegment(final Path directory) throws IOException {
        final List<Rec> written = logWithSegments(directory, 3, 1000);
        final Rec victim = written.get(10);
        assertTrue(segmentBase(victim.lsn()) == 0);
        flipPayloadByte(directory, victim);
        assertEquals(LogInspection.Verdict.CORRUPTION, Wal.inspect(directory).verdict());
        return new Damaged(written, victim);
    }

    /**
     * A log of four segments, closed cleanly, with a byte flipped in a record in the middle of its
     * second segment: frames before it in that segment, and every frame of the segments around it,
     * are valid.
     *
     * @param directory the log directory.
     * @return the records and the damaged one.
     * @throws IOException if writing fails.
     */
    static Damaged corruptMiddleSegment(final Path directory) throws IOException {
        final List<Rec> written = logWithSegments(directory, 4, 1000);
        final List<Rec> second = written.stream()
                .filter(rec -> segmentBase(rec.lsn()) == SEGMENT_BYTES)
                .toList();
        final Rec victim = second.get(second.size() / 2);
        flipPayloadByte(directory, victim);
        assertEquals(LogInspection.Verdict.CORRUPTION, Wal.inspect(directory).verdict());
        return new Damaged(written, victim);
    }

    /**
     * A damaged log.
     *
     * @param written the records appended.
     * @param victim the damaged record.
     */
    record Damaged(List<Rec> written, Rec victim) {
        /** @return the segment file holding the damaged record. */
        Path file(final Path directory) {
            return SegmentNames.segmentPath(directory, segmentBase(victim.lsn()));
        }

        /** @return the damaged record's offset in its segment. */
        long offset() {
            return victim.lsn() - segmentBase(victim.lsn());
        }
    }

    /**
     * A directory whose only file has a segment's name and size but random bytes.
     *
     * @param directory the directory to create.
     * @return the file.
     * @throws IOException if writing fails.
     */
    static Path garbageSegment(final Path directory) throws IOException {
        Files.createDirectories(directory);
        final Path file = SegmentNames.segmentPath(directory, 0);
        final byte[] bytes = new byte[SEGMENT_BYTES];
        new SplittableRandom(7).nextBytes(bytes);
        Files.write(file, bytes);
        return file;
    }

    /**
     * Opens a log under the default recovery policy and reads every record.
     *
     * @param directory the log directory.
     * @return the records, in order.
     */
    static List<Rec> readAll(final Path directory) {
        final List<Rec> records = new ArrayList<>();
        try (Wal wal = Wal.open(config(directory).build());
                WalReader reader = wal.reader(wal.startPosition(), Durability.WRITTEN)) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                records.add(new Rec(lsn, payload));
            });
        }
        return records;
    }

    /**
     * Flips one bit in the middle of a record's payload on disk.
     *
     * @param directory the log directory.
     * @param rec the record.
     * @throws IOException if writing fails.
     */
    static void flipPayloadByte(final Path directory, final Rec rec) throws IOException {
        final long base = segmentBase(rec.lsn());
        final long offset = rec.lsn() - base + FrameDescriptor.HEADER_LENGTH + rec.payload().length / 2;
        try (FileChannel channel = FileChannel.open(
                SegmentNames.segmentPath(directory, base), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x10)).clear();
            channel.write(one, offset);
        }
    }

    /**
     * The base position of the segment holding a position.
     *
     * @param lsn the position.
     * @return its segment's base.
     */
    static long segmentBase(final long lsn) {
        return lsn - lsn % SEGMENT_BYTES;
    }
}
