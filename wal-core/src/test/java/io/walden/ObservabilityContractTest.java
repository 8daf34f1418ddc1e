package io.walden;

import static io.walden.ContractChecks.appendSegments;
import static io.walden.ContractChecks.fillBuffer;
import static io.walden.ContractChecks.frameSpace;
import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.ContractFixture.WAIT_NS;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.events.BackPressureEvent;
import io.walden.internal.events.FailStopEvent;
import io.walden.internal.events.RecoveryEvent;
import io.walden.internal.events.SegmentPreparationEvent;
import io.walden.internal.events.SegmentRollEvent;
import io.walden.internal.events.SyncEvent;
import io.walden.spi.FileSystemTypes;
import io.walden.testing.ControllableBackend;
import io.walden.testing.TestRecords.Read;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the log tells its operator: stats, Flight Recorder events, the file system, messages in words.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ObservabilityContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected ObservabilityContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    /**
     * The log's counters as a JMX MXBean: registered on request under a name that carries the
     * directory, every attribute read from the log as it stands, unregistered when the log closes.
     */
    @Test
    void shouldServeItsCountersAsAnMBeanUntilItCloses() throws Exception {
        final Path directory = fixture.logDirectory();
        final javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        final javax.management.ObjectName name;
        final Wal wal = fixture.open(fixture.config(directory).build());
        name = wal.registerMBean();
        assertEquals(name, wal.registerMBean(), "a second registration returns the same name");
        assertEquals("io.walden", name.getDomain());
        assertEquals(directory.toString(), javax.management.ObjectName.unquote(name.getKeyProperty("directory")));
        long lsn = -1;
        for (int i = 0; i < 10; i++) {
            lsn = wal.append(bytes(100, i), Durability.SYNCED);
        }
        assertEquals(10L, server.getAttribute(name, "Appends"));
        assertEquals(wal.durablePosition(), server.getAttribute(name, "DurablePosition"));
        assertTrue((Long) server.getAttribute(name, "DurablePosition") > lsn);
        assertEquals(0L, server.getAttribute(name, "UndurableBytes"));
        assertEquals(Boolean.FALSE, server.getAttribute(name, "Failed"));
        assertEquals(directory.toString(), server.getAttribute(name, "Directory"));
        assertEquals(wal.stats().backend(), server.getAttribute(name, "Backend"));
        assertTrue((Double) server.getAttribute(name, "SyncLatencyP99Micros") >= 0);
        final WalMXBean proxy = javax.management.JMX.newMXBeanProxy(server, name, WalMXBean.class);
        assertEquals(10, proxy.getAppends());
        wal.close();
        assertFalse(server.isRegistered(name), "closing the log unregisters its MBean");
        final WalException closed = assertThrows(WalException.class, wal::registerMBean);
        assertEquals(WalException.ErrorCode.CLOSED, closed.errorCode());
    }

    @Test
    void shouldReportPositionsLagFailureAndSyncLatencyInStats() throws IOException {
        final ControllableBackend backend = fixture.controllable();
        final Wal wal = fixture.open(fixture.config(fixture.logDirectory())
                .backend(backend)
                .syncIntervalNs(0)
                .build());
        for (int i = 0; i < 50; i++) {
            wal.append(bytes(i, 200), Durability.SYNCED);
        }
        final WalStats settled = wal.stats();
        assertEquals(wal.startPosition(), settled.startPosition());
        assertEquals(wal.tailPosition(), settled.tailPosition());
        assertEquals(wal.writtenPosition(), settled.writtenPosition());
        assertEquals(wal.durablePosition(), settled.durablePosition());
        assertEquals(0, settled.unwrittenBytes(), settled.toString());
        assertEquals(0, settled.unsyncedBytes(), settled.toString());
        assertFalse(settled.failed());
        assertNull(settled.failure());
        final LatencyHistogram latency = settled.syncLatency();
        if (fixture.writesDurable()) {
            assertTrue(latency.count() >= 1 && latency.count() <= settled.writes(), latency + " / " + settled);
        } else {
            assertEquals(settled.syncs(), latency.count(), settled.toString());
            assertEquals(settled.syncLatencyNsMax(), latency.maxNs(), settled.toString());
        }
        assertTrue(latency.percentileNs(50) > 0, latency.toString());
        assertTrue(latency.percentileNs(50) <= latency.percentileNs(99), latency.toString());
        assertTrue(latency.percentileNs(99) <= latency.maxNs(), latency.toString());

        // Lag: appended but not written while the device holds writes, written but not synced after.
        backend.holdWrites();
        final long held = wal.append(bytes(100, 300), Durability.BUFFERED);
        assertTrue(wal.stats().unwrittenBytes() >= frameSpace(300), wal.stats().toString());
        backend.releaseWrites();
        assertTrue(wal.await(held, Durability.WRITTEN, WAIT_NS));
        if (!fixture.writesDurable()) {
            assertTrue(
                    wal.stats().unsyncedBytes() >= frameSpace(300), wal.stats().toString());
        }

        final IOException injected = new IOException("injected failure (stats contract test)");
        if (fixture.writesDurable()) {
            backend.failNextDataWrite(injected);
        } else {
            backend.failNextDataSync(injected);
        }
        assertThrows(WalException.class, () -> wal.append(bytes(101, 100), Durability.SYNCED));
        final WalStats failed = wal.stats();
        assertTrue(failed.failed(), failed.toString());
        assertTrue(failed.failure().contains("injected failure"), failed.failure());
    }

    @Test
    void shouldEmitFlightRecorderEventsForSyncsRollsPreparationBackPressureRecoveryAndFailStop() throws IOException {
        final Path directory = fixture.logDirectory();
        final Path refused = fixture.tempDir().resolve("refused");
        final Path recordingFile = fixture.tempDir().resolve("walden.jfr");
        final List<Read> appended;
        final String expectedMethod = fixture.writesDurable() ? "O_DSYNC write" : "fdatasync";
        try (Recording recording = new Recording()) {
            for (final String name : List.of(
                    SyncEvent.NAME,
                    SegmentRollEvent.NAME,
                    SegmentPreparationEvent.NAME,
                    BackPressureEvent.NAME,
                    RecoveryEvent.NAME,
                    FailStopEvent.NAME)) {
                recording.enable(name).withThreshold(Duration.ZERO);
            }
            recording.start();
            final ControllableBackend backend = fixture.controllable();
            final Wal wal = fixture.open(fixture.config(directory)
                    .backend(backend)
                    .syncIntervalNs(0)
                    .appendTimeoutNs(TimeUnit.MILLISECONDS.toNanos(50))
                    .build());
            appended = appendSegments(wal, 2.5);

            backend.holdWrites();
            final byte[] payload = bytes(7, 1000);
            fillBuffer(wal, payload);
            final WalException timedOut =
                    assertThrows(WalException.class, () -> wal.append(payload, Durability.BUFFERED));
            assertEquals(WalException.ErrorCode.BACK_PRESSURE_TIMEOUT, timedOut.errorCode());
            backend.releaseWrites();

            final IOException injected = new IOException("injected failure (flight recorder contract test)");
            if (fixture.writesDurable()) {
                backend.failNextDataWrite(injected);
            } else {
                backend.failNextDataSync(injected);
            }
            assertThrows(WalException.class, () -> wal.append(bytes(8, 100), Durability.SYNCED));

            Files.createDirectories(refused);
            Files.write(SegmentNames.segmentPath(refused, 0), new byte[2 * SegmentHeaderDescriptor.HEADER_LENGTH]);
            assertThrows(
                    WalException.class,
                    () -> fixture.open(fixture.config(refused).build()));
            recording.stop();
            recording.dump(recordingFile);
        }
        final java.util.Map<String, List<RecordedEvent>> events = RecordingFile.readAllEvents(recordingFile).stream()
                .filter(e -> e.getEventType().getName().startsWith("io.walden."))
                .filter(e -> e.getString("directory").equals(directory.toString())
                        || e.getString("directory").equals(refused.toString()))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));

        final List<RecordedEvent> recoveries = events.getOrDefault(RecoveryEvent.NAME, List.of());
        assertEquals(2, recoveries.size(), recoveries.toString());
        final RecordedEvent created = recoveries.get(0);
        assertEquals(directory.toString(), created.getString("directory"));
        assertTrue(created.getBoolean("newLog"));
        assertNull(created.getString("refusal"));
        final RecordedEvent refusal = recoveries.get(1);
        assertEquals(refused.toString(), refusal.getString("directory"));
        assertNotNull(refusal.getString("refusal"), refusal.toString());

        final List<RecordedEvent> syncs = events.getOrDefault(SyncEvent.NAME, List.of());
        assertFalse(syncs.isEmpty(), "no sync events");
        long syncedRecords = 0;
        for (final RecordedEvent sync : syncs) {
            assertEquals(expectedMethod, sync.getString("method"));
            assertTrue(sync.getLong("bytes") >= 0 && sync.getLong("durablePosition") > 0, sync.toString());
            assertFalse(sync.getDuration().isNegative(), sync.toString());
            syncedRecords += sync.getLong("records");
        }
        // appendSegments syncs at its end: every record it appended was made durable by some event.
        assertTrue(syncedRecords >= appended.size(), syncedRecords + " records in sync events, " + appended.size());

        final List<RecordedEvent> rolls = events.getOrDefault(SegmentRollEvent.NAME, List.of());
        assertTrue(rolls.size() >= 2, rolls.toString());
        for (final RecordedEvent roll : rolls) {
            assertEquals(roll.getLong("fromBasePosition") + SEGMENT_BYTES, roll.getLong("toBasePosition"));
        }
        final List<RecordedEvent> preparations = events.getOrDefault(SegmentPreparationEvent.NAME, List.of());
        assertTrue(preparations.size() >= 2, preparations.toString());
        for (final RecordedEvent preparation : preparations) {
            assertEquals(0, preparation.getLong("basePosition") % SEGMENT_BYTES, preparation.toString());
            assertTrue(preparation.getLong("basePosition") > 0, preparation.toString());
        }

        final List<RecordedEvent> waits = events.getOrDefault(BackPressureEvent.NAME, List.of());
        assertTrue(
                waits.stream()
                        .anyMatch(w -> !w.getBoolean("gotSpace")
                                && w.getDuration().toMillis() >= 40
                                && w.getLong("frameBytes") == frameSpace(1000)
                                && w.getLong("bufferCapacityBytes") == BUFFER_BYTES),
                waits.toString());

        final List<RecordedEvent> failures = events.getOrDefault(FailStopEvent.NAME, List.of());
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.get(0).getString("cause").contains("injected failure"), failures.toString());
    }

    @Test
    void shouldRefuseANullDurabilityBeforeAppendingAnything() throws IOException {
        try (Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build())) {
            final long tail = wal.stats().tailPosition();
            for (final org.junit.jupiter.api.function.Executable call :
                    List.<org.junit.jupiter.api.function.Executable>of(
                            () -> wal.append(bytes(1, 10), null),
                            () -> wal.append(ByteBuffer.wrap(bytes(2, 10)), null),
                            () -> wal.append(new WalBatch().add(bytes(3, 10)).add(bytes(4, 10)), null),
                            () -> wal.appendAsync(bytes(5, 10), null))) {
                final WalException ex = assertThrows(WalException.class, call);
                assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode());
                assertTrue(ex.getMessage().contains("durability is null"), ex.getMessage());
            }
            assertEquals(tail, wal.stats().tailPosition(), "a refused append claims nothing");
        }
    }

    @Test
    void shouldRefuseANullPayloadNamingItBeforeAppendingAnything() throws IOException {
        try (Wal wal = fixture.open(fixture.config(fixture.logDirectory()).build())) {
            final long tail = wal.stats().tailPosition();
            for (final org.junit.jupiter.api.function.Executable call :
                    List.<org.junit.jupiter.api.function.Executable>of(
                            () -> wal.append((byte[]) null, Durability.SYNCED),
                            () -> wal.append((byte[]) null, 0, 0, Durability.WRITTEN),
                            () -> wal.append((ByteBuffer) null, Durability.SYNCED),
                            () -> wal.append((org.agrona.DirectBuffer) null, 0, 0, Durability.SYNCED),
                            () -> wal.tryAppend(null, 0, 0),
                            () -> wal.appendAsync(null, Durability.SYNCED))) {
                final WalException ex = assertThrows(WalException.class, call);
                assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode());
                assertTrue(ex.getMessage().startsWith("payload is null"), ex.getMessage());
            }
            final WalException batch =
                    assertThrows(WalException.class, () -> wal.append((WalBatch) null, Durability.SYNCED));
            assertTrue(batch.getMessage().startsWith("batch is null"), batch.getMessage());
            assertEquals(tail, wal.stats().tailPosition(), "a refused append claims nothing");
        }
    }

    @Test
    void shouldRefuseANewReaderOnAClosedLogNamingTheReadOnlyView() throws IOException {
        final Path directory = fixture.logDirectory();
        final Wal wal = fixture.open(fixture.config(directory).build());
        wal.append(bytes(1, 10), Durability.SYNCED);
        wal.close();
        for (final Durability visibility : List.of(Durability.SYNCED, Durability.WRITTEN)) {
            final WalException ex = assertThrows(WalException.class, () -> wal.reader(0, visibility));
            assertEquals(WalException.ErrorCode.CLOSED, ex.errorCode());
            assertTrue(ex.getMessage().contains(directory.toString()), ex.getMessage());
            assertTrue(ex.getMessage().contains("Wal.openReadOnly"), ex.getMessage());
        }
    }

    @Test
    void shouldOpenOnAThreadWhoseInterruptIsPendingAndLeaveItPending() throws IOException {
        final Path directory = fixture.logDirectory();
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            wal.append(bytes(1, 100), Durability.SYNCED);
        }
        Thread.currentThread().interrupt();
        try (Wal wal = fixture.open(fixture.config(directory).build())) {
            assertTrue(Thread.interrupted(), "the caller's interrupt stays pending (and is cleared here)");
            assertEquals(1, replayAll(wal).size());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldSayInWordsWhyTheLogDirectoryCannotBeCreated() throws IOException {
        final Path file = Files.writeString(fixture.tempDir().resolve("a-file"), "not a directory");
        final WalException ex = assertThrows(
                WalException.class, () -> fixture.open(fixture.config(file).build()));
        assertEquals(WalException.ErrorCode.IO, ex.errorCode());
        assertTrue(ex.getMessage().contains("not a directory"), ex.getMessage());
    }

    @Test
    void shouldReportInEachSyncEventTheDurablePositionItsSyncMadeAndAgreeWithStats() throws IOException {
        // Each event is committed once its sync moved the durable position, so the last one reports the
        // position the log reports; one event per sync the counters count.
        final Path directory = fixture.logDirectory();
        final Path recordingFile = fixture.tempDir().resolve("syncs.jfr");
        final int records = 40;
        final long durable;
        final WalStats stats;
        try (Recording recording = new Recording()) {
            recording.enable(SyncEvent.NAME).withThreshold(Duration.ZERO);
            recording.start();
            try (Wal wal =
                    fixture.open(fixture.config(directory).syncIntervalNs(0).build())) {
                for (int i = 0; i < records; i++) {
                    wal.append(bytes(i, 100), Durability.SYNCED);
                }
                durable = wal.durablePosition();
                stats = wal.stats();
                recording.stop();
            }
            recording.dump(recordingFile);
        }
        final List<RecordedEvent> syncs = RecordingFile.readAllEvents(recordingFile).stream()
                .filter(e -> e.getEventType().getName().equals(SyncEvent.NAME))
                .filter(e -> e.getString("directory").equals(directory.toString()))
                .collect(Collectors.toList());
        assertFalse(syncs.isEmpty(), "no sync events");
        long bytes = 0;
        long syncedRecords = 0;
        long highest = 0;
        for (final RecordedEvent sync : syncs) {
            bytes += sync.getLong("bytes");
            syncedRecords += sync.getLong("records");
            highest = Math.max(highest, sync.getLong("durablePosition"));
        }
        assertEquals(durable, highest, "the last event reports the durable position its sync made: " + syncs);
        assertEquals(durable - SegmentHeaderDescriptor.HEADER_LENGTH, bytes, "bytes made durable, event by event");
        assertEquals(records, syncedRecords, "records made durable, event by event");
        if (!fixture.writesDurable()) {
            assertEquals(stats.syncs(), syncs.size(), "one event per sync counted: " + stats);
        }
    }

    @Test
    void shouldReportTheFileSystemAndThatALogInMemorySurvivesNoPowerLoss() {
        final Wal onDisk = fixture.open(fixture.config(fixture.logDirectory()).build());
        assertEquals(
                FileSystemTypes.type(fixture.logDirectory()), onDisk.stats().fileSystemType());
        onDisk.close();
        final Wal inMemory = Wal.open(fixture.config(fixture.logDirectory()).build(), directory -> "tmpfs");
        fixture.closeAfterTheTest(inMemory);
        assertEquals("tmpfs", inMemory.stats().fileSystemType());
        assertFalse(inMemory.stats().survivesPowerLoss(), "SYNCED survives no power loss on tmpfs");
        inMemory.close();
        final Wal onExt4 = Wal.open(fixture.config(fixture.logDirectory()).build(), directory -> "ext4");
        fixture.closeAfterTheTest(onExt4);
        assertTrue(onExt4.stats().survivesPowerLoss());
    }
}
