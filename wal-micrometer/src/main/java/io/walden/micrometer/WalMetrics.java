package io.walden.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.walden.Wal;
import io.walden.WalStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds a log's {@link Wal#stats()} to a Micrometer {@link MeterRegistry}: the monotonic counts as
 * {@link FunctionCounter}s, positions, lags and flags as {@link Gauge}s, and the latency of the
 * operations that make records durable as {@link TimeGauge}s. Every meter carries the tags {@code
 * directory} (the log directory) and {@code backend} (the storage backend's name, as {@link
 * WalStats#backend()}), plus the tags given here.
 *
 * <pre>{@code
 * WalMetrics metrics = new WalMetrics(wal, Tags.of("log", "orders"));
 * metrics.bindTo(registry);
 * ...
 * metrics.close(); // when the log closes: removes the meters
 * wal.close();
 * }</pre>
 *
 * <table>
 *   <caption>Meters and the {@link WalStats} component each reads</caption>
 *   <tr><th>meter</th><th>type, base unit</th><th>reads</th></tr>
 *   <tr><td>{@code walden.appends}</td><td>counter, records</td><td>{@code appends}</td></tr>
 *   <tr><td>{@code walden.append.bytes}</td><td>counter, bytes</td><td>{@code appendBytes}</td></tr>
 *   <tr><td>{@code walden.writes}</td><td>counter, operations</td><td>{@code writes}</td></tr>
 *   <tr><td>{@code walden.write.bytes}</td><td>counter, bytes</td><td>{@code writeBytes}</td></tr>
 *   <tr><td>{@code walden.syncs}</td><td>counter, operations</td><td>{@code syncs}</td></tr>
 *   <tr><td>{@code walden.back.pressure.waits}</td><td>counter, events</td><td>{@code backPressureWaits}</td></tr>
 *   <tr><td>{@code walden.segments.rolled}</td><td>counter, files</td><td>{@code segmentsRolled}</td></tr>
 *   <tr><td>{@code walden.segments.deleted.for.space}</td><td>counter, files</td><td>{@code segmentsDeletedForSpace}</td></tr>
 *   <tr><td>{@code walden.writes.waited.for.space}</td><td>counter, operations</td><td>{@code writesWaitedForSpace}</td></tr>
 *   <tr><td>{@code walden.records.compressed}</td><td>counter, operations</td><td>{@code recordsCompressed}</td></tr>
 *   <tr><td>{@code walden.compressed.input}</td><td>counter, bytes</td><td>{@code compressedInputBytes}</td></tr>
 *   <tr><td>{@code walden.compressed.stored}</td><td>counter, bytes</td><td>{@code compressedStoredBytes}</td></tr>
 *   <tr><td>{@code walden.durability.marks}</td><td>counter, operations</td><td>{@code durabilityMarks}</td></tr>
 *   <tr><td>{@code walden.appends.run.by.caller}</td><td>counter, records</td><td>{@code appendsRunByCaller}</td></tr>
 *   <tr><td>{@code walden.start.position}</td><td>gauge, bytes</td><td>{@code startPosition}</td></tr>
 *   <tr><td>{@code walden.tail.position}</td><td>gauge, bytes</td><td>{@code tailPosition}</td></tr>
 *   <tr><td>{@code walden.written.position}</td><td>gauge, bytes</td><td>{@code writtenPosition}</td></tr>
 *   <tr><td>{@code walden.durable.position}</td><td>gauge, bytes</td><td>{@code durablePosition}</td></tr>
 *   <tr><td>{@code walden.unwritten.bytes}</td><td>gauge, bytes</td><td>{@code unwrittenBytes()}</td></tr>
 *   <tr><td>{@code walden.unsynced.bytes}</td><td>gauge, bytes</td><td>{@code unsyncedBytes()}</td></tr>
 *   <tr><td>{@code walden.undurable.bytes}</td><td>gauge, bytes</td><td>tail minus durable position</td></tr>
 *   <tr><td>{@code walden.buffer.capacity}</td><td>gauge, bytes</td><td>{@code bufferCapacityBytes}</td></tr>
 *   <tr><td>{@code walden.failed}</td><td>gauge, 1 or 0</td><td>{@code failed}</td></tr>
 *   <tr><td>{@code walden.survives.power.loss}</td><td>gauge, 1 or 0</td><td>{@code survivesPowerLoss}</td></tr>
 *   <tr><td>{@code walden.sync.records.mean}, {@code .max}</td><td>gauges, records</td>
 *       <td>{@code recordsPerSyncMean}, {@code recordsPerSyncMax}</td></tr>
 *   <tr><td>{@code walden.sync.bytes.mean}, {@code .max}</td><td>gauges, bytes</td>
 *       <td>{@code bytesPerSyncMean}, {@code bytesPerSyncMax}</td></tr>
 *   <tr><td>{@code walden.sync.latency.percentile} (tag {@code phi}: 0.5, 0.99, 0.999)</td>
 *       <td>time gauges</td><td>{@code syncLatency().percentileNs(..)}</td></tr>
 *   <tr><td>{@code walden.sync.latency.max}</td><td>time gauge</td><td>{@code syncLatency().maxNs()}</td></tr>
 * </table>
 *
 * <p>The latency meters read the histogram of every operation that made records durable (each data
 * sync, or each write where every write is durable, with O_DSYNC), as the log's MXBean does. The
 * strings of {@link WalStats} (failure, file system type, durability note) are not meters: read
 * them from {@code stats()} or the log's warnings.
 *
 * <p><b>References and closing.</b> As Micrometer's own binders, the meters hold the log weakly
 * (their functions capture nothing else), so a registry never keeps a log alive; once the log is
 * garbage collected, its gauges report {@code NaN} and its counters their last value. The stats of
 * a closed log no longer change, so after {@link Wal#close()} the meters report the log's last
 * values, until {@link #close()} removes them. Close the binder with the log: a log reopened in the
 * same directory has the same meter names and tags, and Micrometer would otherwise hand the new
 * binder the old log's meters.
 *
 * <p>Each meter reads a fresh {@link Wal#stats()} snapshot when the registry reads it, so meters
 * read at one moment may differ slightly while the log runs.
 *
 * <p><b>Threading:</b> any thread; meters are read on the registry's threads.
 */
public final class WalMetrics implements MeterBinder, AutoCloseable {
    private static final String RECORDS = "records";
    private static final List<Percentile> PERCENTILES =
            List.of(new Percentile("0.5", 50), new Percentile("0.99", 99), new Percentile("0.999", 99.9));

    private final Wal wal;
    private final Tags tags;
    private final List<Bound> bound = new ArrayList<>();

    /**
     * A binder with the tags {@code directory} and {@code backend} only.
     *
     * @param wal the log.
     */
    public WalMetrics(final Wal wal) {
        this(wal, Tags.empty());
    }

    /**
     * A binder whose meters carry extra tags.
     *
     * @param wal the log.
     * @param tags tags added to every meter, beside {@code directory} and {@code backend}.
     */
    public WalMetrics(final Wal wal, final Iterable<Tag> tags) {
        this.wal = Objects.requireNonNull(wal, "wal");
        this.tags = Tags.concat(
                tags,
                "directory",
                wal.config().directory().toString(),
                "backend",
                wal.stats().backend());
    }

    @Override
    public void bindTo(final MeterRegistry registry) {
        final List<Meter> meters = new ArrayList<>();
        addCounters(registry, meters);
        addPositionGauges(registry, meters);
        addLogGauges(registry, meters);
        addSyncGauges(registry, meters);
        synchronized (bound) {
            bound.add(new Bound(registry, meters));
        }
    }

    /** The counters: appends, writes, syncs and the write path's events. */
    private void addCounters(final MeterRegistry registry, final List<Meter> meters) {
        meters.add(counter(registry, "walden.appends", RECORDS, "records appended", WalStats::appends));
        meters.add(counter(
                registry, "walden.append.bytes", BaseUnits.BYTES, "payload bytes appended", WalStats::appendBytes));
        meters.add(counter(registry, "walden.writes", BaseUnits.OPERATIONS, "writes completed", WalStats::writes));
        meters.add(counter(
                registry,
                "walden.write.bytes",
                BaseUnits.BYTES,
                "bytes written, padding and block rewrites included",
                WalStats::writeBytes));
        meters.add(counter(registry, "walden.syncs", BaseUnits.OPERATIONS, "data syncs completed", WalStats::syncs));
        meters.add(counter(
                registry,
                "walden.back.pressure.waits",
                BaseUnits.EVENTS,
                "appends that found the log buffer full and waited",
                WalStats::backPressureWaits));
        meters.add(counter(
                registry,
                "walden.segments.rolled",
                BaseUnits.FILES,
                "segments the log moved past",
                WalStats::segmentsRolled));
        meters.add(counter(
                registry,
                "walden.segments.deleted.for.space",
                BaseUnits.FILES,
                "freed segments deleted, not kept for reuse, because the file system was short of space",
                WalStats::segmentsDeletedForSpace));
        meters.add(counter(
                registry,
                "walden.writes.waited.for.space",
                BaseUnits.OPERATIONS,
                "writes that found the file system full, waited and were written again",
                WalStats::writesWaitedForSpace));
        meters.add(counter(
                registry,
                "walden.records.compressed",
                BaseUnits.OPERATIONS,
                "records stored compressed",
                WalStats::recordsCompressed));
        meters.add(counter(
                registry,
                "walden.compressed.input",
                BaseUnits.BYTES,
                "bytes of the records stored compressed, as appended",
                WalStats::compressedInputBytes));
        meters.add(counter(
                registry,
                "walden.compressed.stored",
                BaseUnits.BYTES,
                "bytes of the records stored compressed, as stored",
                WalStats::compressedStoredBytes));
        meters.add(counter(
                registry,
                "walden.durability.marks",
                BaseUnits.OPERATIONS,
                "segment header rewrites recording durability after the log went idle",
                WalStats::durabilityMarks));
        meters.add(counter(
                registry,
                "walden.appends.run.by.caller",
                RECORDS,
                "appends whose I/O the appending thread ran itself",
                WalStats::appendsRunByCaller));
    }

    /** The positions of the log and the bytes between them. */
    private void addPositionGauges(final MeterRegistry registry, final List<Meter> meters) {
        meters.add(gauge(
                registry, "walden.start.position", BaseUnits.BYTES, "first position held", WalStats::startPosition));
        meters.add(gauge(
                registry,
                "walden.tail.position",
                BaseUnits.BYTES,
                "where the next record goes",
                WalStats::tailPosition));
        meters.add(gauge(
                registry,
                "walden.written.position",
                BaseUnits.BYTES,
                "records below it are written to the file",
                WalStats::writtenPosition));
        meters.add(gauge(
                registry,
                "walden.durable.position",
                BaseUnits.BYTES,
                "records below it are durable",
                WalStats::durablePosition));
        meters.add(gauge(
                registry,
                "walden.unwritten.bytes",
                BaseUnits.BYTES,
                "bytes appended but not yet written",
                WalStats::unwrittenBytes));
        meters.add(gauge(
                registry,
                "walden.unsynced.bytes",
                BaseUnits.BYTES,
                "bytes written but not yet durable",
                WalStats::unsyncedBytes));
        meters.add(gauge(
                registry,
                "walden.undurable.bytes",
                BaseUnits.BYTES,
                "bytes appended but not yet durable",
                stats -> Math.max(0, stats.tailPosition() - stats.durablePosition())));
    }

    /** The log buffer's size and the log's health. */
    private void addLogGauges(final MeterRegistry registry, final List<Meter> meters) {
        meters.add(gauge(
                registry,
                "walden.buffer.capacity",
                BaseUnits.BYTES,
                "size of the log buffer",
                WalStats::bufferCapacityBytes));
        meters.add(gauge(
                registry,
                "walden.failed",
                null,
                "1 if the log failed and must be reopened, else 0",
                stats -> stats.failed() ? 1 : 0));
        meters.add(gauge(
                registry,
                "walden.survives.power.loss",
                null,
                "0 if the log's file system lives in memory (SYNCED survives no power loss), else 1",
                stats -> stats.survivesPowerLoss() ? 1 : 0));
    }

    /** What each sync covered, and how long syncs took. */
    private void addSyncGauges(final MeterRegistry registry, final List<Meter> meters) {
        meters.add(gauge(
                registry,
                "walden.sync.records.mean",
                RECORDS,
                "records newly covered per sync, mean",
                WalStats::recordsPerSyncMean));
        meters.add(gauge(
                registry,
                "walden.sync.records.max",
                RECORDS,
                "records newly covered per sync, max",
                WalStats::recordsPerSyncMax));
        meters.add(gauge(
                registry,
                "walden.sync.bytes.mean",
                BaseUnits.BYTES,
                "bytes newly covered per sync, mean",
                WalStats::bytesPerSyncMean));
        meters.add(gauge(
                registry,
                "walden.sync.bytes.max",
                BaseUnits.BYTES,
                "bytes newly covered per sync, max",
                WalStats::bytesPerSyncMax));

        for (final Percentile percentile : PERCENTILES) {
            final double share = percentile.percentile();
            meters.add(TimeGauge.builder("walden.sync.latency.percentile", wal, TimeUnit.NANOSECONDS, log -> log.stats()
                            .syncLatency()
                            .percentileNs(share))
                    .tags(tags)
                    .tag("phi", percentile.phi())
                    .description("time an operation that made records durable took, percentile")
                    .register(registry));
        }
        meters.add(TimeGauge.builder("walden.sync.latency.max", wal, TimeUnit.NANOSECONDS, log -> log.stats()
                        .syncLatency()
                        .maxNs())
                .tags(tags)
                .description("longest time an operation that made records durable took")
                .register(registry));
    }

    /**
     * Removes every meter this binder registered from the registries it was bound to. Idempotent;
     * binding again registers them again.
     */
    @Override
    public void close() {
        final List<Bound> removing;
        synchronized (bound) {
            removing = new ArrayList<>(bound);
            bound.clear();
        }
        for (final Bound binding : removing) {
            for (final Meter meter : binding.meters()) {
                binding.registry().remove(meter);
            }
        }
    }

    private FunctionCounter counter(
            final MeterRegistry registry,
            final String name,
            final String unit,
            final String description,
            final ToDoubleFunction<WalStats> stat) {
        // The function captures the stat accessor only: the meter holds the log weakly.
        return FunctionCounter.builder(name, wal, log -> stat.applyAsDouble(log.stats()))
                .tags(tags)
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private Gauge gauge(
            final MeterRegistry registry,
            final String name,
            final String unit,
            final String description,
            final ToDoubleFunction<WalStats> stat) {
        return Gauge.builder(name, wal, log -> stat.applyAsDouble(log.stats()))
                .tags(tags)
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private record Bound(MeterRegistry registry, List<Meter> meters) {}

    private record Percentile(String phi, double percentile) {}
}
