package io.walden;

import static io.walden.ContractChecks.LEVELS;
import static io.walden.ContractChecks.assertWellFormed;
import static io.walden.ContractChecks.invalid;
import static io.walden.ContractFixture.BUFFER_BYTES;
import static io.walden.ContractFixture.SEGMENT_BYTES;
import static io.walden.testing.TestRecords.bytes;
import static io.walden.testing.TestRecords.replayAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.testing.TestRecords.Read;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Configuration: refused settings name the setting; defaults and system properties.
 *
 * <p>Part of the contract suite every storage backend runs: see {@link WalContractTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ConfigContractTest {
    private final ContractFixture fixture;

    /**
     * The topic's tests, run against a backend.
     *
     * @param fixture the backend under test and the logs a test opens.
     */
    protected ConfigContractTest(final ContractFixture fixture) {
        this.fixture = fixture;
    }

    @TestFactory
    Stream<DynamicTest> shouldRefuseEachInvalidSettingWithConfigNamingTheSetting() {
        final int limit = (BUFFER_BYTES - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;
        return Stream.of(
                        invalid(
                                "segmentCapacityBytes",
                                "300000, not a power of two",
                                b -> b.segmentCapacityBytes(300_000)),
                        invalid(
                                "segmentCapacityBytes",
                                "32 KiB, below the minimum",
                                b -> b.segmentCapacityBytes(32 * 1024)),
                        invalid("segmentCapacityBytes", "negative", b -> b.segmentCapacityBytes(-SEGMENT_BYTES)),
                        invalid(
                                "bufferCapacityBytes",
                                "100000, not a power of two",
                                b -> b.bufferCapacityBytes(100_000)),
                        invalid(
                                "bufferCapacityBytes",
                                "32 KiB, below the minimum",
                                b -> b.bufferCapacityBytes(32 * 1024)),
                        invalid(
                                "bufferCapacityBytes",
                                "larger than the segment",
                                b -> b.bufferCapacityBytes(2 * SEGMENT_BYTES)),
                        invalid(
                                "maxRecordBytes",
                                "a frame larger than half the buffer",
                                b -> b.maxRecordBytes(limit + 1)),
                        invalid("maxRecordBytes", "negative", b -> b.maxRecordBytes(-1)),
                        invalid("maxBatchBytes", "1000, below the minimum", b -> b.maxBatchBytes(1000)),
                        invalid("groupWindowNs", "negative", b -> b.groupWindowNs(-1)),
                        invalid("syncIntervalNs", "negative", b -> b.syncIntervalNs(-1)),
                        invalid("waitYieldNs", "negative", b -> b.waitYieldNs(-1)),
                        invalid(
                                "waitYieldNs",
                                "above the maximum",
                                b -> b.waitYieldNs(WalConfig.WAIT_YIELD_NS_MAX + 1)),
                        invalid("appendTimeoutNs", "zero", b -> b.appendTimeoutNs(0)),
                        invalid("appendTimeoutNs", "negative", b -> b.appendTimeoutNs(-5)),
                        invalid("recoveryPolicy", "null", b -> b.recoveryPolicy(null)))
                .map(c -> DynamicTest.dynamicTest(c.name(), () -> {
                    final WalConfig.Builder builder = fixture.config(fixture.logDirectory());
                    c.change().accept(builder);
                    final WalException ex = assertThrows(WalException.class, builder::build);
                    assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode(), ex.getMessage());
                    assertTrue(ex.getMessage().contains(c.setting()), ex.getMessage());
                }));
    }

    @Test
    void shouldAcceptAndStoreTheLargestRecordTheBufferAllows() {
        final int limit = (BUFFER_BYTES - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;
        final Wal wal = fixture.open(
                fixture.config(fixture.logDirectory()).maxRecordBytes(limit).build());
        final List<Read> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final byte[] payload = bytes(i, i % 3 == 0 ? limit : 1000 * i);
            expected.add(new Read(wal.append(payload, LEVELS[i % LEVELS.length]), payload));
        }
        wal.sync();
        assertWellFormed(expected);
        assertEquals(expected, replayAll(wal));
    }

    @Test
    void shouldRefuseAMaxRecordBytesTheExistingLogsSegmentsCannotHold() {
        final Path directory = fixture.logDirectory();
        final int small = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
        final long firstLsn;
        try (Wal wal = fixture.open(fixture.config(directory)
                .segmentCapacityBytes(small)
                .bufferCapacityBytes(small)
                .maxRecordBytes(1000)
                .build())) {
            firstLsn = wal.append(bytes(1, 1000), Durability.SYNCED);
        }
        final int large = 1024 * 1024;
        final WalException ex = assertThrows(
                WalException.class,
                () -> fixture.open(fixture.config(directory)
                        .segmentCapacityBytes(large)
                        .bufferCapacityBytes(large)
                        .maxRecordBytes(200_000)
                        .build()));
        assertEquals(WalException.ErrorCode.CONFIG, ex.errorCode(), ex.getMessage());
        assertTrue(ex.getMessage().contains("maxRecordBytes"), ex.getMessage());
        try (Wal wal = fixture.open(fixture.config(directory)
                .segmentCapacityBytes(large)
                .bufferCapacityBytes(large)
                .maxRecordBytes(20_000)
                .build())) {
            assertEquals(small, wal.recoveryReport().segmentCapacityBytes());
            final byte[] payload = bytes(2, 20_000);
            final long lsn = wal.append(payload, Durability.SYNCED);
            assertEquals(List.of(new Read(firstLsn, bytes(1, 1000)), new Read(lsn, payload)), replayAll(wal));
        }
    }

    @Test
    void shouldWaitForReturningGroupsByDefaultAndTakeTheSettingFromASystemProperty() {
        assertTrue(WalConfig.builder(fixture.logDirectory()).build().groupReturnWait());
        try {
            System.setProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME, "false");
            assertFalse(WalConfig.builder(fixture.logDirectory())
                    .fromSystemProperties()
                    .build()
                    .groupReturnWait());
            System.setProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME, "sometimes");
            final WalException refused =
                    assertThrows(WalException.class, () -> WalConfig.builder(fixture.logDirectory())
                            .fromSystemProperties());
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(refused.getMessage().contains(WalConfig.GROUP_RETURN_WAIT_PROP_NAME), refused.getMessage());
        } finally {
            System.clearProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME);
        }
    }

    @Test
    void shouldYieldHalfAMillisecondByDefaultAndTakeTheWaitYieldFromASystemProperty() {
        assertEquals(
                WalConfig.WAIT_YIELD_NS_DEFAULT,
                WalConfig.builder(fixture.logDirectory()).build().waitYieldNs());
        assertEquals(TimeUnit.MICROSECONDS.toNanos(500), WalConfig.WAIT_YIELD_NS_DEFAULT);
        try {
            System.setProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME, "0");
            assertEquals(
                    0,
                    WalConfig.builder(fixture.logDirectory())
                            .fromSystemProperties()
                            .build()
                            .waitYieldNs());
            System.setProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME, "-5");
            final WalException refused =
                    assertThrows(WalException.class, () -> WalConfig.builder(fixture.logDirectory())
                            .fromSystemProperties()
                            .build());
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(refused.getMessage().contains("waitYieldNs=-5"), refused.getMessage());
        } finally {
            System.clearProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME);
        }
    }

    @Test
    void shouldBoundTheDurableWritesInFlightAndTakeTheBoundFromASystemProperty() {
        assertEquals(
                WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_DEFAULT,
                WalConfig.builder(fixture.logDirectory()).build().durableWritesInFlightMax());
        for (final int refused : new int[] {0, WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_LIMIT + 1}) {
            final WalException ex = assertThrows(WalException.class, () -> WalConfig.builder(fixture.logDirectory())
                    .durableWritesInFlightMax(refused)
                    .build());
            assertTrue(ex.getMessage().contains("durableWritesInFlightMax=" + refused), ex.getMessage());
        }
        try {
            System.setProperty(WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME, "4");
            assertEquals(
                    4,
                    WalConfig.builder(fixture.logDirectory())
                            .fromSystemProperties()
                            .build()
                            .durableWritesInFlightMax());
            System.setProperty(WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME, "4294967297");
            final WalException refused =
                    assertThrows(WalException.class, () -> WalConfig.builder(fixture.logDirectory())
                            .fromSystemProperties());
            assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
            assertTrue(
                    refused.getMessage().contains(WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME),
                    refused.getMessage());
        } finally {
            System.clearProperty(WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME);
        }
    }
}
