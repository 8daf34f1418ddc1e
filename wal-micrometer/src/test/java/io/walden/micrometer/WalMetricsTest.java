package io.walden.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalStats;
import io.walden.nio.NioStorageBackend;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every meter of {@link WalMetrics} against the {@link WalStats} component it reads, by a table of
 * this test's own: a meter wired to the wrong stat, a missing or an extra meter fails it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WalMetricsTest {
    private static final int TAIL_RECORDS = 10;
    private static final long STABLE_DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    /** Meter name (with its phi tag, if any) to the value it must report. */
    private static final Map<String, ToDoubleFunction<WalStats>> EXPECTED = expected();

    @TempDir
    Path tempDir;

    private static Map<String, ToDoubleFunction<WalStats>> expected() {
        final Map<String, ToDoubleFunction<WalStats>> expected = new TreeMap<>();
        expected.put("walden.appends", WalStats::appends);
        expected.put("walden.append.bytes", WalStats::appendBytes);
        expected.put("walden.writes", WalStats::writes);
        expected.put("walden.write.bytes", WalStats::writeBytes);
        expected.put("walden.syncs", WalStats::syncs);
        expected.put("walden.back.pressure.waits", WalStats::backPressureWaits);
        expected.put("walden.segments.rolled", WalStats::segmentsRolled);
        expected.put("walden.segments.deleted.for.space", WalStats::segmentsDeletedForSpace);
        expected.put("walden.writes.waited.for.space", WalStats::writesWaitedForSpace);
        expected.put("walden.records.compressed", WalStats::recordsCompressed);
        expected.put("walden.compressed.input", WalStats::compressedInputBytes);
        expected.put("walden.compressed.stored", WalStats::compressedStoredBytes);
        expected.put("walden.durability.marks", WalStats::durabilityMarks);
        expected.put("walden.appends.run.by.caller", WalStats::appendsRunByCaller);
        expected.put("walden.start.position", WalStats::startPosition);
        expected.put("walden.tail.position", WalStats::tailPosition);
        expected.put("walden.written.position", WalStats::writtenPosition);
        expected.put("walden.durable.position", WalStats::durablePosition);
        expected.put("walden.unwritten.bytes", WalStats::unwrittenBytes);
        expected.put("walden.unsynced.bytes", WalStats::unsyncedBytes);
        expected.put("walden.undurable.bytes", s -> s.tailPosition() - s.durablePosition());
        expected.put("walden.buffer.capacity", WalStats::bufferCapacityBytes);
        expected.put("walden.failed", s -> s.failed() ? 1 : 0);
        expected.put("walden.survives.power.loss", s -> s.survivesPowerLoss() ? 1 : 0);
        expected.put("walden.sync.records.mean", WalStats::recordsPerSyncMean);
        expected.put("walden.sync.records.max", WalStats::recordsPerSyncMax);
        expected.put("walden.sync.bytes.mean", WalStats::bytesPerSyncMean);
        expected.put("walden.sync.bytes.max", WalStats::bytesPerSyncMax);
        expected.put(
                "walden.sync.latency.percentile{phi=0.5}", s -> s.syncLatency().percentileNs(50));
        expected.put(
                "walden.sync.latency.percentile{phi=0.99}", s -> s.syncLatency().percentileNs(99));
        expected.put("walden.sync.latency.percentile{phi=0.999}", s -> s.syncLatency()
                .percentileNs(99.9));
        expected.put("walden.sync.latency.max", s -> s.syncLatency().maxNs());
        return expected;
    }

    private Wal open(final Path directory) {
        return Wal.open(WalConfig.builder(directory)
                .backend(new NioStorageBackend())
                .segmentCapacityBytes(WalConfig.SEGMENT_CAPACITY_BYTES_MIN)
                .syncIntervalNs(0)
                .build());
    }

    @Test
    void shouldReportEveryStatUnderItsOwnNameAndTrackItAfterMoreAppends() {
        final Path directory = tempDir.resolve("log");
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Wal wal = open(directory);
                WalMetrics metrics = new WalMetrics(wal, Tags.of("log", "orders"))) {
            appendAtEveryDurability(wal, 600, 0);
            wal.truncateBefore(wal.durablePosition() / 2);
            metrics.bindTo(registry);

            assertEquals(EXPECTED.keySet(), read(registry).keySet(), "the meters bound");
            for (final Meter meter : registry.getMeters()) {
                assertEquals(directory.toString(), meter.getId().getTag("directory"), meter.getId()::toString);
                assertEquals(wal.stats().backend(), meter.getId().getTag("backend"), meter.getId()::toString);
                assertEquals("orders", meter.getId().getTag("log"), meter.getId()::toString);
            }
            final WalStats first = assertMetersEqualStats(wal, registry);
            // A workload that makes the stats this test tells apart differ from one another, so
            // that a meter wired to another stat shows a different value.
            assertTrue(first.segmentsRolled() >= 2, first::toString);
            assertTrue(first.startPosition() > 0, first::toString);
            assertTrue(first.syncs() > 0 && first.syncs() != first.writes(), first::toString);
            assertTrue(first.unsyncedBytes() > 0 && first.durablePosition() > first.startPosition(), first::toString);
            assertNotEquals(first.appendBytes(), first.writeBytes(), first::toString);

            appendAtEveryDurability(wal, 300, 1);
            final WalStats second = assertMetersEqualStats(wal, registry);
            assertTrue(second.appends() > first.appends(), second::toString);
            assertTrue(second.syncs() > first.syncs(), second::toString);
            assertTrue(second.segmentsRolled() > first.segmentsRolled(), second::toString);
        }
    }

    @Test
    void shouldReportAClosedLogsLastValuesUntilClosedAndThenRemoveItsMeters() {
        final Path directory = tempDir.resolve("log");
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final Wal wal = open(directory);
        final WalMetrics metrics = new WalMetrics(wal);
        metrics.bindTo(registry);
        appendAtEveryDurability(wal, 90, 0);
        wal.close();
        final WalStats last = wal.stats();
        assertEquals(90, last.appends(), last::toString);
        assertEquals(90.0, read(registry).get("walden.appends"), "a closed log's meters report its last values");
        assertEquals(last.durablePosition(), read(registry).get("walden.durable.position"));

        metrics.close();
        assertEquals(Map.of(), read(registry), "closing the binder removes its meters");
        metrics.close();

        // The same directory reopened: its binder's meters read the new log, not the closed one's.
        try (Wal reopened = open(directory);
                WalMetrics again = new WalMetrics(reopened)) {
            again.bindTo(registry);
            reopened.append(new byte[10], Durability.SYNCED);
            assertMetersEqualStats(reopened, registry);
            assertEquals(1.0, read(registry).get("walden.appends"));
        }
    }

    @Test
    void shouldNotKeepTheLogAliveFromTheRegistry() {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final WeakReference<Wal> log = bindAndForget(tempDir.resolve("log"), registry);
        for (int i = 0; i < 100 && log.get() != null; i++) {
            System.gc();
        }
        assertNull(log.get(), "the registry's meters keep the log reachable");
        assertTrue(Double.isNaN(gauge(registry, "walden.tail.position")), "a collected log's gauges report NaN");
        assertEquals(5.0, read(registry).get("walden.appends"), "a collected log's counters keep their last value");
    }

    private WeakReference<Wal> bindAndForget(final Path directory, final SimpleMeterRegistry registry) {
        try (Wal wal = open(directory)) {
            new WalMetrics(wal).bindTo(registry);
            appendAtEveryDurability(wal, 5, 0);
            assertEquals(5.0, read(registry).get("walden.appends"));
            return new WeakReference<>(wal);
        }
    }

    /**
     * Appends records of varied sizes, cycling BUFFERED, WRITTEN, SYNCED, then ends with a run of
     * BUFFERED records that one WRITTEN append writes without a sync: writes then outnumber syncs,
     * and written bytes wait for a sync.
     */
    private static void appendAtEveryDurability(final Wal wal, final int records, final int seed) {
        final Durability[] levels = {Durability.BUFFERED, Durability.WRITTEN, Durability.SYNCED};
        for (int i = 0; i < records; i++) {
            final Durability level = i >= records - TAIL_RECORDS
                    ? (i == records - 1 ? Durability.WRITTEN : Durability.BUFFERED)
                    : levels[(i + seed) % levels.length];
            wal.append(new byte[1 + (i * 37 + seed) % 700], level);
        }
    }

    /**
     * Asserts that every meter equals its stat, read from stats taken before and after the meters
     * that are equal: the counters and positions only grow, so nothing changed in between.
     *
     * @return the stats the meters were compared with.
     */
    private static WalStats assertMetersEqualStats(final Wal wal, final SimpleMeterRegistry registry) {
        final long deadline = System.nanoTime() + STABLE_DEADLINE_NS;
        while (true) {
            final WalStats before = wal.stats();
            final Map<String, Double> meters = read(registry);
            final WalStats after = wal.stats();
            if (before.equals(after)) {
                assertEquals(EXPECTED.keySet(), meters.keySet());
                // A time gauge converts through the registry's base unit (seconds): a rounding error
                // of a billionth is allowed, far below the one unit that tells two stats apart here.
                EXPECTED.forEach((name, stat) -> {
                    final double expected = stat.applyAsDouble(after);
                    assertEquals(
                            expected,
                            meters.get(name),
                            1e-9 * Math.max(1, Math.abs(expected)),
                            () -> name + " in " + after);
                });
                return after;
            }
            if (System.nanoTime() > deadline) {
                fail("the log's stats did not settle: " + before + " then " + after);
            }
            Thread.onSpinWait();
        }
    }

    private static Map<String, Double> read(final SimpleMeterRegistry registry) {
        final Map<String, Double> values = new TreeMap<>();
        for (final Meter meter : registry.getMeters()) {
            final String phi = meter.getId().getTag("phi");
            final String name = meter.getId().getName() + (phi == null ? "" : "{phi=" + phi + "}");
            final double value;
            if (meter instanceof FunctionCounter counter) {
                value = counter.count();
            } else if (meter instanceof TimeGauge timeGauge) {
                value = timeGauge.value(TimeUnit.NANOSECONDS);
            } else if (meter instanceof Gauge gauge) {
                value = gauge.value();
            } else {
                throw new AssertionError("unexpected meter type " + meter.getClass() + ": " + meter.getId());
            }
            if (values.put(name, value) != null) {
                throw new AssertionError("two meters named " + name);
            }
        }
        return values;
    }

    private static double gauge(final SimpleMeterRegistry registry, final String name) {
        return registry.get(name).gauge().value();
    }
}
