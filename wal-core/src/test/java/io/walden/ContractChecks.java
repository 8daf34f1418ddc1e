package io.walden;

import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.spi.StorageSession;
import io.walden.testing.TestRecords;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The waits, checks and log-building steps the contract suite's topics share: static, so that a topic
 * suite imports the ones it uses.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
public final class ContractChecks {
    static final Durability[] LEVELS = Durability.values();

    private ContractChecks() {}

    static void assertHoldsExactly(final Wal wal, final long[] lsns, final int keptCount) {
        final List<TestRecords.Read> records = replayAll(wal);
        assertEquals(keptCount, records.size(), "records after the truncation");
        for (int i = 0; i < keptCount; i++) {
            assertEquals(lsns[i], records.get(i).lsn());
            assertArrayEquals(TestRecords.bytes(i, 8 * 1024), records.get(i).payload());
        }
    }

    /**
     * Writes the record of a suffix truncation that began and was interrupted (FORMAT.md, "Suffix
     * truncation"), encoded here from the published layout: the log as it was, plus the record.
     */
    static void writePendingTruncation(final Path directory, final long cut, final long continueAt) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(SegmentNames.segmentPath(directory, 0), StandardOpenOption.READ)) {
            channel.read(header, 0);
        }
        final ByteBuffer record =
                ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        record.putLong(SuffixTruncationDescriptor.MAGIC_OFFSET, SuffixTruncationDescriptor.MAGIC);
        record.putInt(SuffixTruncationDescriptor.VERSION_OFFSET, SuffixTruncationDescriptor.VERSION);
        record.putLong(SuffixTruncationDescriptor.LOG_ID_OFFSET, header.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET));
        record.putLong(SuffixTruncationDescriptor.CUT_POSITION_OFFSET, cut);
        record.putLong(SuffixTruncationDescriptor.CONTINUE_POSITION_OFFSET, continueAt);
        final CRC32C crc = new CRC32C();
        crc.update(record.duplicate().position(0).limit(SuffixTruncationDescriptor.CHECKSUMMED_LENGTH));
        record.putInt(SuffixTruncationDescriptor.CHECKSUM_OFFSET, (int) crc.getValue());
        Files.write(directory.resolve(SuffixTruncationDescriptor.FILE_NAME), record.array());
    }

    /** Appends 8 KiB records to an open log, SYNCED, and returns their LSNs. */
    static long[] appendRecords(final Wal wal, final int count) {
        final long[] lsns = new long[count];
        for (int i = 0; i < count; i++) {
            lsns[i] = wal.append(TestRecords.bytes(i, 8 * 1024), Durability.SYNCED);
        }
        return lsns;
    }

    static List<Long> lsnsOf(final List<TestRecords.Read> records) {
        return records.stream().map(TestRecords.Read::lsn).collect(Collectors.toList());
    }

    static void drain(final WalReader reader, final List<Read> seen, final int expectedCount) {
        final long deadlineNs = System.nanoTime() + WAIT_NS;
        while (seen.size() < expectedCount && System.nanoTime() - deadlineNs < 0) {
            reader.poll(collect(seen), 1000, TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertEquals(expectedCount, seen.size(), "records delivered");
    }

    static RecordHandler collect(final List<Read> into) {
        return (buffer, offset, length, lsn) -> {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            into.add(new Read(lsn, bytes));
        };
    }

    static void awaitCompletion(final StorageSession session, final long[] completion, final IOException[] failure) {
        completion[0] = -1;
        awaitCondition(
                () -> {
                    session.poll(
                            (token, result, cause) -> {
                                completion[0] = token;
                                completion[1] = result;
                                failure[0] = cause;
                            },
                            1);
                    return completion[0] != -1;
                },
                "a storage completion");
    }

    /**
     * Waits for a condition, failing after {@link ContractFixture#WAIT_NS}.
     *
     * @param condition the condition.
     * @param what what is awaited, for the failure message.
     */
    public static void awaitCondition(final BooleanSupplier condition, final String what) {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }

    static int frameSpace(final int payloadLength) {
        return FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payloadLength));
    }

    /** Fills the log buffer with tryAppend while the device holds writes; returns the LSNs. */
    static List<Long> fillBuffer(final Wal wal, final byte[] payload) {
        final UnsafeBuffer source = new UnsafeBuffer(payload);
        final List<Long> accepted = new ArrayList<>();
        final int attempts = BUFFER_BYTES / frameSpace(payload.length) + 2;
        for (int i = 0; i < attempts; i++) {
            final long lsn = wal.tryAppend(source, 0, payload.length);
            if (lsn == Wal.BACK_PRESSURED) {
                assertFalse(accepted.isEmpty(), "the buffer was full before anything was appended");
                return accepted;
            }
            assertTrue(lsn >= 0, "tryAppend returned " + lsn);
            accepted.add(lsn);
        }
        return fail("tryAppend never reported BACK_PRESSURED after " + attempts + " appends into a stalled log");
    }

    /** Appends records of 1000 bytes until the log holds about {@code segments} segments. */
    static List<Read> appendSegments(final Wal wal, final double segments) {
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; wal.tailPosition() < (long) (segments * SEGMENT_BYTES); i++) {
            final byte[] payload = bytes(i, 1000);
            expected.add(new Read(wal.append(payload, i % 50 == 0 ? Durability.SYNCED : Durability.BUFFERED), payload));
        }
        wal.sync();
        return expected;
    }

    static long firstLsnAtOrAfter(final List<Read> records, final long position) {
        return records.stream()
                .mapToLong(Read::lsn)
                .filter(lsn -> lsn >= position)
                .findFirst()
                .orElseThrow();
    }

    static List<Read> recordsFrom(final List<Read> records, final long position) {
        return records.stream().filter(r -> r.lsn() >= position).collect(Collectors.toList());
    }

    static List<Long> segmentBases(final Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(
                            p -> SegmentNames.parseSegmentName(p.getFileName().toString()))
                    .filter(base -> base >= 0)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /**
     * Checks that records lie at increasing, aligned positions, each inside one segment after its
     * header, without overlapping.
     *
     * @param records the records in append order.
     */
    public static void assertWellFormed(final List<Read> records) {
        long end = -1;
        for (final Read record : records) {
            final long lsn = record.lsn();
            assertTrue(lsn >= end, "record at " + lsn + " overlaps the previous one ending at " + end);
            assertEquals(0, lsn % FrameDescriptor.FRAME_ALIGNMENT, "unaligned lsn " + lsn);
            final long offset = lsn % SEGMENT_BYTES;
            assertTrue(offset >= SegmentHeaderDescriptor.HEADER_LENGTH, "lsn " + lsn + " inside a segment header");
            assertTrue(
                    offset + FrameDescriptor.frameLength(record.payload().length) <= SEGMENT_BYTES,
                    "record at " + lsn + " crosses a segment end");
            end = lsn + frameSpace(record.payload().length);
        }
    }

    static void assertCausedBy(final Throwable expectedCause, final Throwable actual) {
        for (Throwable cause = actual; cause != null; cause = cause.getCause()) {
            if (cause == expectedCause) {
                return;
            }
        }
        throw new AssertionError("expected a failure caused by " + expectedCause + " but got " + actual, actual);
    }

    /** Checks that a failed log refuses everything, names the cause and acknowledges nothing more. */
    static void assertFailedStopped(final Wal wal, final IOException injected, final List<Read> acknowledged) {
        final long lastAcknowledged = acknowledged.get(acknowledged.size() - 1).lsn();
        final long written = wal.writtenPosition();
        final long durable = wal.durablePosition();
        final byte[] payload = bytes(2000, 50);
        final List<Runnable> attempts = List.of(
                () -> wal.append(payload, Durability.BUFFERED),
                () -> wal.append(payload, Durability.SYNCED),
                () -> wal.append(ByteBuffer.wrap(payload), Durability.WRITTEN),
                () -> wal.append(new UnsafeBuffer(payload), 0, payload.length, Durability.BUFFERED),
                () -> wal.appendAsync(payload, Durability.WRITTEN),
                wal::sync,
                () -> wal.truncateBefore(lastAcknowledged),
                () -> wal.await(wal.tailPosition() + 4096, Durability.SYNCED));
        for (int i = 0; i < attempts.size(); i++) {
            final WalException ex =
                    assertThrows(WalException.class, attempts.get(i)::run, "attempt " + i + " on a failed log");
            assertCausedBy(injected, ex);
        }
        assertEquals(Wal.FAILED, wal.tryAppend(new UnsafeBuffer(payload), 0, payload.length));
        assertEquals(written, wal.writtenPosition(), "nothing may be acknowledged after a failure");
        assertEquals(durable, wal.durablePosition(), "nothing may be acknowledged after a failure");
    }

    /** Checks that a recovered log starts with every acknowledged record, followed at most by some unacknowledged ones. */
    static void assertRecoveredPrefix(
            final List<Read> acknowledged, final List<Read> recovered, final byte[]... unacknowledged) {
        for (int i = 0; i < acknowledged.size(); i++) {
            if (i >= recovered.size() || !acknowledged.get(i).equals(recovered.get(i))) {
                fail("acknowledged record " + i + " of " + acknowledged.size() + " " + acknowledged.get(i)
                        + " was not recovered; found " + (i < recovered.size() ? recovered.get(i) : "the end")
                        + "; recovered " + recovered.size() + " records, the last acknowledged ones "
                        + acknowledged.subList(Math.max(0, i - 2), acknowledged.size()) + ", recovered "
                        + recovered.subList(Math.max(0, Math.min(recovered.size(), i - 2)), recovered.size()));
            }
        }
        int next = 0;
        for (final Read extra : recovered.subList(acknowledged.size(), recovered.size())) {
            while (next < unacknowledged.length && !Arrays.equals(unacknowledged[next], extra.payload())) {
                next++;
            }
            assertTrue(next < unacknowledged.length, "recovered a record that was never appended: " + extra);
            next++;
        }
    }

    record InvalidSetting(String name, String setting, Consumer<WalConfig.Builder> change) {}

    static InvalidSetting invalid(
            final String setting, final String description, final Consumer<WalConfig.Builder> change) {
        return new InvalidSetting(setting + " " + description, setting, change);
    }
}
