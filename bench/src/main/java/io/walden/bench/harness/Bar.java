package io.walden.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Judges the design brief's performance bar (section 7) from one run's rows, as same-run ratios.
 * Each item names the exact scenarios it compares; nothing is picked as the best of several.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Bar {
    /** Walden's bound on direct memory in the blow-up run: 8 MiB buffer + a preparation block of at most 16 KiB + slack. */
    static final double WALDEN_DIRECT_BOUND_MB = 8 + 0.25 + 0.25;

    /** What a new log's first moments need of the same scenario at steady state (issue 29). */
    static final double START_UP_NEEDED = 0.85;

    private Bar() {}

    /**
     * Judges every item.
     *
     * @param results the run.
     * @return the items in the brief's order.
     */
    static List<BarItem> judge(final RunResults results) {
        final List<BarItem> items = new ArrayList<>();
        final String nio = Plan.BAR_BACKEND;
        final Optional<ResultRow> synced1 = results.walden(nio, "SYNCED", 1, 128);
        final Optional<ResultRow> synced16 = results.walden(nio, "SYNCED", 16, 128);
        final Optional<ResultRow> synced64 = results.walden(nio, "SYNCED", 64, 128);
        final Optional<ResultRow> fioAppend = results.find(Systems.FIO, "psync", "append", "SYNCED", 1, 128);
        items.add(ratio(
                "1 writer, SYNCED, 128 B >= 1.0x fio append+fdatasync (psync, 128 B)",
                synced1,
                fioAppend,
                1.0,
                "walden nio SYNCED 1 writer vs fio psync append bs=128",
                results.fioVersion() == null ? "fio is not installed (apt-get install -y fio)" : "a scenario failed"));
        items.add(ratio(
                "16 writers, SYNCED, 128 B >= 8x Walden's 1-writer SYNCED",
                synced16,
                synced1,
                8.0,
                "walden nio SYNCED 16 writers vs 1 writer",
                "a scenario failed"));
        items.add(ratio(
                "64 writers, SYNCED, 128 B >= 2x RocksDB sync=true at 64 threads",
                synced64,
                results.find(Systems.ROCKSDB, "wal", Scenario.NONE, "SYNCED", 64, 128),
                2.0,
                "walden nio SYNCED 64 writers vs rocksdb sync=true 64 threads",
                "rocksdb not run or a scenario failed"));
        // One writer against hand-written code (issue 15): what most embedders run.
        items.add(ratio(
                "1 writer, SYNCED, 128 B >= 1.2x FileChannel write + force(false) per record",
                synced1,
                results.find(Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", 1, 128),
                1.2,
                "filechannel-force 1 writer, growing file",
                "filechannel-force not run or a scenario failed"));
        final Optional<ResultRow> synced1Page = results.walden(nio, "SYNCED", 1, 4096);
        items.add(ratio(
                "1 writer, SYNCED, 4 KiB >= 1.2x FileChannel write + force(false) per record",
                synced1Page,
                results.find(Systems.FILECHANNEL_FORCE, "buffered", Scenario.NONE, "SYNCED", 1, 4096),
                1.2,
                "filechannel-force 1 writer, growing file",
                "not in this run (4 KiB is in the full run) or a scenario failed"));
        items.add(ratio(
                "1 writer, SYNCED, 4 KiB >= 1.0x fio append+fdatasync (psync, 4 KiB)",
                synced1Page,
                results.find(Systems.FIO, "psync", "append", "SYNCED", 1, 4096),
                1.0,
                "walden nio SYNCED 1 writer vs fio psync append bs=4096",
                results.fioVersion() == null
                        ? "fio is not installed (apt-get install -y fio)"
                        : "not in this run (4 KiB is in the full run) or a scenario failed"));
        items.add(startUp(results));
        items.add(ratio(
                "1 writer, WRITTEN (blocking), 128 B >= 1.0x a plain FileChannel write loop",
                results.walden(nio, "WRITTEN", 1, 128),
                results.find(Systems.FILECHANNEL_FORCE_EVERY, "buffered", "every-1000", "WRITTEN", 1, 128),
                1.0,
                "filechannel-force-every every-1000, 1 writer",
                "filechannel-force-every not run or a scenario failed"));
        final Optional<ResultRow> asyncAck =
                results.find(Systems.WALDEN, nio, Systems.VARIANT_ASYNC_ACK, "WRITTEN", 1, 128);
        final Optional<ResultRow> chronicle =
                results.find(Systems.CHRONICLE_QUEUE, "mmap", Scenario.NONE, "WRITTEN", 1, 128);
        final double asyncRate = asyncAck.map(ResultRow::recordsPerS).orElse(Double.NaN);
        items.add(BarItem.judge(
                "1 writer, WRITTEN acknowledged asynchronously, 128 B >= 1,000,000 appends/s (next to Chronicle Queue)",
                asyncAck.map(r -> Report.count(r.recordsPerS()) + "/s").orElse("–"),
                "1,000,000/s; Chronicle Queue 1 writer: "
                        + chronicle
                                .map(r -> Report.count(r.recordsPerS()) + "/s (Walden "
                                        + Report.ratio(asyncRate / r.recordsPerS()) + ")")
                                .orElse("–"),
                asyncRate / 1e6,
                1.0,
                "the async-ack scenario failed"));
        items.add(ratio(
                "WRITTEN, 4 KiB records >= 0.8x the device's buffered sequential write bandwidth",
                results.walden(nio, "WRITTEN", 16, 4096),
                results.find(Systems.FIO, "psync", "seq-buffered", "WRITTEN", 1, 4096),
                0.8,
                "walden nio WRITTEN 16 writers 4 KiB MB/s vs fio buffered sequential bs=4k end_fsync=1 MB/s",
                results.fioVersion() == null ? "fio is not installed (apt-get install -y fio)" : "a scenario failed"));
        items.add(ratio(
                "WRITTEN, 4 KiB records, retention keeping the log at a fixed size (recycled segments) >= 0.9x the"
                        + " device's buffered sequential write bandwidth",
                results.find(Systems.WALDEN, nio, Systems.VARIANT_RETAINED, "WRITTEN", 16, 4096),
                results.find(Systems.FIO, "psync", "seq-buffered", "WRITTEN", 1, 4096),
                0.9,
                "walden nio WRITTEN retained 16 writers 4 KiB MB/s vs fio buffered sequential bs=4k end_fsync=1 MB/s",
                results.fioVersion() == null ? "fio is not installed (apt-get install -y fio)" : "a scenario failed"));
        items.add(ratio(
                "WRITTEN, 4 KiB records, acknowledged asynchronously (1 writer) >= 0.8x the device's buffered"
                        + " sequential write bandwidth",
                results.find(Systems.WALDEN, nio, Systems.VARIANT_ASYNC_ACK, "WRITTEN", 1, 4096),
                results.find(Systems.FIO, "psync", "seq-buffered", "WRITTEN", 1, 4096),
                0.8,
                "walden nio WRITTEN async-ack 1 writer 4 KiB MB/s vs fio buffered sequential bs=4k end_fsync=1 MB/s",
                results.fioVersion() == null ? "fio is not installed (apt-get install -y fio)" : "a scenario failed"));
        items.add(allocation(results));
        items.add(boundedMemory(results));
        final Optional<ResultRow> recovery = results.rows().stream()
                .filter(r -> r.system().equals(Systems.WALDEN)
                        && r.variant().startsWith(Systems.VARIANT_RECOVERY)
                        && r.measured())
                .findFirst();
        items.add(BarItem.judge(
                "Recovery scans >= 1 GB/s from the page cache",
                recovery.map(r -> Report.decimal(r.mbPerS()) + " MB/s").orElse("–"),
                "1,000 MB/s",
                recovery.map(r -> r.mbPerS() / 1000).orElse(Double.NaN),
                1.0,
                "the recovery scenario failed"));
        items.add(uringVersusNio(results));
        items.add(new BarItem(
                "Latency as p50/p99/p99.9/max (HdrHistogram), never an average alone",
                "every table below",
                "–",
                Double.NaN,
                Double.NaN,
                "reported"));
        return items;
    }

    /**
     * Judges the start-up row ({@link Plan#startUp()}) against the steady-state row of the same
     * scenario: Walden {@value Plan#BAR_BACKEND}, {@code SYNCED}, one writer, 128 B, no variant.
     *
     * @param results the run.
     * @return the item; its ratio is start-up / steady state.
     */
    static BarItem startUp(final RunResults results) {
        final Scenario startUp = Plan.startUp();
        return ratio(
                "1 writer, SYNCED, 128 B on a new log, " + startUp.measureMs() + " ms measured after "
                        + startUp.warmupMs() + " ms of warm-up >= " + Report.ratio(START_UP_NEEDED)
                        + " the same at steady state",
                results.find(
                        startUp.system(),
                        startUp.backend(),
                        startUp.variant(),
                        startUp.durability(),
                        startUp.writers(),
                        startUp.recordBytes()),
                results.walden(startUp.backend(), startUp.durability(), startUp.writers(), startUp.recordBytes()),
                START_UP_NEEDED,
                "walden nio SYNCED 1 writer at steady state, " + steadyDurations(results),
                "a scenario failed");
    }

    /**
     * The warm-up and measured time of the run's steady-state scenarios.
     *
     * @param results the run.
     * @return e.g. {@code "1000 ms warm-up, 1500 ms measured"}, or what the run chose if unknown.
     */
    static String steadyDurations(final RunResults results) {
        if (results.plan() == null) {
            return "the run's warm-up and measured time";
        }
        final Plan.Settings settings = results.plan().settings();
        return settings.warmupMs() + " ms warm-up, " + settings.measureMs() + " ms measured";
    }

    private static BarItem ratio(
            final String bar,
            final Optional<ResultRow> walden,
            final Optional<ResultRow> reference,
            final double needed,
            final String what,
            final String missing) {
        final boolean bandwidth = bar.contains("bandwidth");
        final double w =
                walden.map(r -> bandwidth ? r.mbPerS() : r.recordsPerS()).orElse(Double.NaN);
        final double b =
                reference.map(r -> bandwidth ? r.mbPerS() : r.recordsPerS()).orElse(Double.NaN);
        final String unit = bandwidth ? " MB/s" : "/s";
        return BarItem.judge(
                bar,
                walden.isPresent() ? (bandwidth ? Report.decimal(w) : Report.count(w)) + unit : "–",
                reference.isPresent()
                        ? (bandwidth ? Report.decimal(b) : Report.count(b)) + unit + " (" + what + ")"
                        : what,
                w / b,
                needed,
                missing);
    }

    private static BarItem allocation(final RunResults results) {
        double worst = Double.NaN;
        String worstWhat = "";
        for (final ResultRow row : results.rows()) {
            if (row.system().equals(Systems.WALDEN)
                    && row.backend().equals(Plan.BAR_BACKEND)
                    && row.variant().equals(Scenario.NONE)
                    && row.measured()
                    && !Double.isNaN(row.allocBytesPerRecord())
                    && (Double.isNaN(worst) || row.allocBytesPerRecord() > worst)) {
                worst = row.allocBytesPerRecord();
                worstWhat = row.durability() + " " + row.writers() + "w " + row.recordBytes() + " B";
            }
        }
        final String verdict = Double.isNaN(worst)
                ? "not measured: no Walden nio scenario"
                : worst < 1.0 ? "PASS" : String.format(Locale.ROOT, "MISS: %.1f B per record", worst);
        return new BarItem(
                "Zero bytes allocated per append in steady state",
                Double.isNaN(worst) ? "–" : Report.decimal(worst) + " B/record at most (" + worstWhat + ")",
                "< 1 B/record, all threads of the scenario JVM incl. the harness's sampler; the exact figure is"
                        + " JMH -prof gc (bench/README.md)",
                Double.NaN,
                Double.NaN,
                verdict);
    }

    private static BarItem boundedMemory(final RunResults results) {
        final Optional<BlowupResult> walden = results.blowups().stream()
                .filter(b -> b.system().equals(Systems.WALDEN))
                .findFirst();
        if (walden.isEmpty()) {
            return new BarItem(
                    "Memory stays within the configured bound when the disk is slower than the writers",
                    "–",
                    "–",
                    Double.NaN,
                    Double.NaN,
                    "not measured: the blow-up reproduction did not run");
        }
        final BlowupResult b = walden.get();
        final boolean ok = "completed".equals(b.outcome())
                && b.heapPeakMb() < b.heapMaxMb()
                && b.directPeakMb() <= WALDEN_DIRECT_BOUND_MB;
        return new BarItem(
                "Memory stays within the configured bound when the disk is slower than the writers",
                String.format(
                        Locale.ROOT,
                        "%s; heap peak %.1f MiB, direct peak %.1f MiB",
                        b.outcome(),
                        b.heapPeakMb(),
                        b.directPeakMb()),
                String.format(
                        Locale.ROOT,
                        "heap limit %.0f MiB; direct bound %.2f MiB (8 MiB buffer + preparation block of at most 16 KiB + slack)",
                        b.heapMaxMb(),
                        WALDEN_DIRECT_BOUND_MB),
                Double.NaN,
                Double.NaN,
                ok ? "PASS" : "MISS");
    }

    private static BarItem uringVersusNio(final RunResults results) {
        int pairs = 0;
        int below = 0;
        double worst = Double.NaN;
        String worstWhat = "";
        for (final ResultRow uring : results.rows()) {
            if (!uring.system().equals(Systems.WALDEN)
                    || !uring.backend().startsWith("uring")
                    || !uring.variant().equals(Scenario.NONE)
                    || uring.groupWindowUs() != 0
                    || !uring.measured()) {
                continue;
            }
            final String nioBackend = "nio" + uring.backend().substring("uring".length());
            final Optional<ResultRow> nio =
                    results.walden(nioBackend, uring.durability(), uring.writers(), uring.recordBytes());
            if (nio.isEmpty()) {
                continue;
            }
            pairs++;
            final double ratio = uring.recordsPerS() / nio.get().recordsPerS();
            if (ratio < 1.0) {
                below++;
            }
            if (Double.isNaN(worst) || ratio < worst) {
                worst = ratio;
                worstWhat = uring.backend() + " " + uring.durability() + " " + uring.writers() + "w "
                        + uring.recordBytes() + " B";
            }
        }
        final String verdict = pairs == 0
                ? "not measured: run uring and nio backends"
                : below == 0
                        ? "PASS"
                        : String.format(
                                Locale.ROOT,
                                "MISS in %d of %d scenarios; worst by %.0f %%",
                                below,
                                pairs,
                                (1 - worst) * 100);
        return new BarItem(
                "io_uring at least as fast as FileChannel in every scenario",
                pairs == 0 ? "–" : "worst " + Report.ratio(worst) + " (" + worstWhat + ")",
                pairs + " uring/nio pairs at the same level, writers and size",
                worst,
                1.0,
                verdict);
    }
}
