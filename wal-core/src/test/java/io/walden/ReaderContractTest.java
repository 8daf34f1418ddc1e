package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.collect;
import static io.walden.ContractChecks.drain;
import static io.walden.ContractChecks.frameSpace;
import static io.walden.ContractChecks.segmentBases;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.pollAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentNames;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Readers: tailing a live log, visibility, waiting polls, seeks, and read-only views beside a writer.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ReaderContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected ReaderContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Test
    void shouldLetAReaderTailALiveLogAndSeeRecordsOnceTheyAreDurable() throws IOException {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .backend(backend)
                .syncIntervalNs(0)
                .build());
        try (WalReader reader = wal.reader(wal.startPosition())) {
            assertEquals(0, pollAll(reader, 10).size());
            backend.holdSyncs();
            final byte[] first = bytes(1, 300);
            final long firstLsn = wal.append(first, Durability.WRITTEN);
            if (!fixture.writesDurable()) {
                assertTrue(wal.durablePosition() <= firstLsn);
                assertEquals(List.of(), pollAll(reader, 10), "a default reader sees only durable records");
            }
            backend.releaseSyncs();
            wal.sync();
            assertEquals(List.of(new Read(firstLsn, first)), pollAll(reader, 10));
            for (int i = 0; i < 30; i++) {
                final byte[] payload = bytes(i + 10, 100 + i * 40);
                final long lsn = wal.append(payload, Durability.SYNCED);
                assertEquals(List.of(new Read(lsn, payload)), pollAll(reader, 10));
                assertEquals(lsn + frameSpace(payload.length), reader.position());
            }
        }
    }

    @Test
    void shouldLetAWrittenVisibilityReaderSeeWrittenButUnsyncedRecords() throws IOException {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .backend(backend)
                .syncIntervalNs(0)
                .build());
        final long start = wal.startPosition();
        try (WalReader writtenReader = wal.reader(start, Durability.WRITTEN);
                WalReader durableReader = wal.reader(start, Durability.SYNCED)) {
            backend.holdSyncs();
            final byte[] payload = bytes(1, 1000);
            final long lsn = wal.append(payload, Durability.WRITTEN);
            assertEquals(List.of(new Read(lsn, payload)), pollAll(writtenReader, 10));
            if (!fixture.writesDurable()) {
                assertTrue(wal.durablePosition() <= lsn);
                assertEquals(List.of(), pollAll(durableReader, 10));
            }
            backend.releaseSyncs();
            wal.sync();
            if (!fixture.writesDurable()) {
                assertEquals(List.of(new Read(lsn, payload)), pollAll(durableReader, 10));
            }
        }
    }

    @Test
    void shouldRefuseAReaderThatStartsInsideARecordWithPosition() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final byte[] payload = bytes(4, 200);
        // Make the payload's first word look like a plausible frame length.
        payload[0] = 24;
        payload[1] = 0;
        payload[2] = 0;
        payload[3] = 0;
        final long lsn = wal.append(payload, Durability.SYNCED);
        wal.append(bytes(5, 200), Durability.SYNCED);
        for (final long inside : new long[] {lsn + 8, lsn + 16, lsn + 64}) {
            try (WalReader reader = wal.reader(inside)) {
                final WalException ex =
                        assertThrows(WalException.class, () -> reader.poll((b, o, l, p) -> fail("delivered"), 10));
                assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
                assertTrue(ex.getMessage().contains(String.valueOf(inside)), ex.getMessage());
            }
        }
        final long beyond = wal.tailPosition() + 4096;
        final WalException ex = assertThrows(WalException.class, () -> wal.reader(beyond));
        assertEquals(WalException.ErrorCode.POSITION, ex.errorCode(), ex.getMessage());
    }

    @Test
    void shouldRefuseToPollAClosedReaderAndCloseItIdempotently() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final long lsn = wal.append(bytes(1, 10), Durability.SYNCED);
        final WalReader reader = wal.reader(lsn);
        reader.close();
        reader.close();
        final WalException ex = assertThrows(WalException.class, () -> reader.poll((b, o, l, p) -> {}, 1));
        assertEquals(WalException.ErrorCode.CLOSED, ex.errorCode(), ex.getMessage());
    }

    @Test
    void shouldWaitInPollForARecordAppendedMeanwhileAndTimeOutWhenNoneComes() throws Exception {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final long first = wal.append(bytes(1, 100), Durability.SYNCED);
        try (WalReader reader = wal.reader(first, Durability.WRITTEN)) {
            final List<Read> read = new ArrayList<>();
            assertEquals(1, reader.poll(collect(read), 10, WAIT_NS));
            assertEquals(0, reader.poll(collect(read), 10, TimeUnit.MILLISECONDS.toNanos(30)), "nothing came");
            final CompletableFuture<Long> later = CompletableFuture.supplyAsync(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                return wal.append(bytes(2, 200), Durability.WRITTEN);
            });
            assertEquals(1, reader.poll(collect(read), 10, WAIT_NS), "the poll waited for the record");
            assertEquals(List.of(new Read(first, bytes(1, 100)), new Read(later.get(), bytes(2, 200))), read);
        }
    }

    @Test
    void shouldLetTheHandlerEndAPollAfterOrBeforeARecordAndSeek() {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final List<Long> lsns = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            lsns.add(wal.append(bytes(i, 50 + i), Durability.SYNCED));
        }
        try (WalReader reader = wal.reader(wal.startPosition())) {
            final List<Long> seen = new ArrayList<>();
            // Takes two records, then stops after the second.
            assertEquals(
                    2,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return seen.size() == 2
                                        ? ControlledRecordHandler.Action.BREAK
                                        : ControlledRecordHandler.Action.CONTINUE;
                            },
                            10));
            assertEquals(lsns.get(2), reader.position());
            // Refuses the third: it comes again.
            assertEquals(
                    0,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return ControlledRecordHandler.Action.ABORT;
                            },
                            10));
            assertEquals(lsns.get(2), reader.position());
            assertEquals(
                    4,
                    reader.controlledPoll(
                            (buffer, offset, length, lsn) -> {
                                seen.add(lsn);
                                return ControlledRecordHandler.Action.CONTINUE;
                            },
                            10));
            assertEquals(
                    List.of(lsns.get(0), lsns.get(1), lsns.get(2), lsns.get(2), lsns.get(3), lsns.get(4), lsns.get(5)),
                    seen);
            reader.seek(lsns.get(1));
            final List<Read> again = new ArrayList<>();
            assertEquals(5, reader.poll(collect(again), 10));
            assertEquals(new Read(lsns.get(1), bytes(1, 51)), again.get(0));
            final WalException inside = assertThrows(WalException.class, () -> {
                reader.seek(lsns.get(1) + 8);
                reader.poll(collect(again), 10);
            });
            assertEquals(WalException.ErrorCode.POSITION, inside.errorCode());
        }
    }

    @Test
    void shouldFollowALiveLogReadOnlyAcrossRollsAndRetention() throws Exception {
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build());
        final List<Read> expected = new ArrayList<>();
        try (WalView view = Wal.openReadOnly(fixture.logDirectory());
                WalReader written = view.reader(view.startPosition(), Durability.WRITTEN);
                WalReader durable = view.reader(view.startPosition(), Durability.SYNCED)) {
            final List<Read> seenWritten = new ArrayList<>();
            final List<Read> seenDurable = new ArrayList<>();
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 60; i++) {
                    final byte[] payload = bytes(round * 1000 + i, 100 + (i * 97) % 5000);
                    expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
                }
                wal.sync();
                drain(written, seenWritten, expected.size());
                drain(durable, seenDurable, expected.size());
                if (round == 1) {
                    // Retention below what both readers have read: they go on without noticing.
                    assertTrue(
                            wal.truncateBefore(expected.get(expected.size() - 1).lsn()) > 0);
                }
            }
            assertTrue(segmentBases(fixture.logDirectory()).get(0) > 0, "segments were deleted under the view");
            assertEquals(expected, seenWritten, "every record once, in order, intact (WRITTEN)");
            assertEquals(expected, seenDurable, "every record once, in order, intact (SYNCED)");
            assertTrue(view.durablePosition() <= view.writtenPosition());
            assertEquals(wal.writtenPosition(), view.writtenPosition());
        }
    }

    @Test
    void shouldShowOnlyWhatFramesProveDurableToADurableViewReader() throws IOException {
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).syncIntervalNs(0).build());
        try (WalView view = Wal.openReadOnly(fixture.logDirectory());
                WalReader durable = view.reader(view.startPosition(), Durability.SYNCED)) {
            final long first = wal.append(bytes(1, 300), Durability.WRITTEN);
            final List<Read> seen = new ArrayList<>();
            if (!fixture.writesDurable()) {
                // Where every write is durable (O_DSYNC) a WRITTEN record is durable at once, and the
                // durability mark of the idle log may prove it before this poll: nothing to check.
                assertEquals(0, durable.poll(collect(seen), 10), "a WRITTEN record is not durable yet");
            }
            assertTrue(view.writtenPosition() > first);
            wal.append(bytes(2, 300), Durability.SYNCED);
            // Both are synced now; a later frame or the durability mark of an idle log proves them.
            drain(durable, seen, 2);
        }
    }

    @Test
    void shouldReportDamageToAViewReaderThatReachesItAndDeliverNoDamagedRecord() throws IOException {
        final List<Read> expected = new ArrayList<>();
        try (Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build())) {
            for (int i = 0; wal.writtenPosition() < SEGMENT_BYTES + SEGMENT_BYTES / 2; i++) {
                final byte[] payload = bytes(i, 200 + (i * 131) % 3000);
                expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
            wal.sync();
        }
        // One flipped bit in the payload of a record in the middle of the first, sealed, segment.
        int victim = 0;
        while (expected.get(victim + 1).lsn() < SEGMENT_BYTES / 2) {
            victim++;
        }
        final long victimLsn = expected.get(victim).lsn();
        final Path firstSegment = SegmentNames.segmentPath(fixture.logDirectory(), 0);
        final long damagedOffset = victimLsn + FrameDescriptor.HEADER_LENGTH + 7;
        try (FileChannel channel = FileChannel.open(firstSegment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, damagedOffset);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            channel.write(one, damagedOffset);
        }
        try (WalView view = Wal.openReadOnly(fixture.logDirectory());
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            final List<Read> seen = new ArrayList<>();
            final WalCorruptionException damage = assertThrows(WalCorruptionException.class, () -> {
                for (int polls = 0; polls < 1000; polls++) {
                    reader.poll(collect(seen), 1000);
                }
            });
            assertEquals(expected.subList(0, victim), seen, "every record before the damage, intact; none after");
            assertEquals(firstSegment, damage.file());
            assertEquals(victimLsn, damage.fileOffset());
        }
    }

    @Test
    void shouldNotShowAViewReaderAFrameThatIsStillBeingWritten() throws IOException {
        final List<Read> expected = new ArrayList<>();
        final long end;
        try (Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build())) {
            for (int i = 0; i < 5; i++) {
                final byte[] payload = bytes(i, 700);
                expected.add(new Read(wal.append(payload, Durability.WRITTEN), payload));
            }
            end = wal.writtenPosition();
        }
        try (WalView view = Wal.openReadOnly(fixture.logDirectory());
                WalReader reader = view.reader(view.startPosition(), Durability.WRITTEN)) {
            assertEquals(end, view.writtenPosition());
            // What a write in progress can look like to a reader of the file: the frame's length is
            // there, its checksum and body are not yet.
            final ByteBuffer partial =
                    ByteBuffer.allocate(FrameDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            partial.putInt(FrameDescriptor.LENGTH_OFFSET, FrameDescriptor.frameLength(700));
            try (FileChannel channel =
                    FileChannel.open(SegmentNames.segmentPath(fixture.logDirectory(), 0), StandardOpenOption.WRITE)) {
                channel.write(partial, end);
            }
            assertEquals(end, view.writtenPosition(), "a frame that does not validate is not visible");
            final List<Read> seen = new ArrayList<>();
            drain(reader, seen, expected.size());
            assertEquals(expected, seen);
            assertEquals(0, reader.poll(collect(seen), 10), "nothing more, and no error");
        }
    }

    @Test
    void shouldRefuseAReadOnlyViewOfWhatIsNoLogWithAClearMessage() throws IOException {
        final WalException missing = assertThrows(
                WalException.class, () -> Wal.openReadOnly(fixture.tempDir().resolve("absent")));
        assertEquals(WalException.ErrorCode.CONFIG, missing.errorCode());
        assertTrue(missing.getMessage().contains("absent"), missing.getMessage());
        final Path empty = Files.createDirectories(fixture.tempDir().resolve("empty"));
        final WalException none = assertThrows(WalException.class, () -> Wal.openReadOnly(empty));
        assertTrue(none.getMessage().contains("no Walden log"), none.getMessage());
    }
}
