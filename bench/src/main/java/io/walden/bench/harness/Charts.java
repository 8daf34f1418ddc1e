package io.walden.bench.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the run's charts as PNG files with XChart: records/s against writer threads, one chart per
 * level and record size, with a line per Walden backend and per baseline at that level; and the
 * {@code SYNCED} latency distribution (percentile curves) at the smallest record size for one and
 * sixteen writers. A chart that cannot be drawn (no fonts on a bare JDK, say) is left out with a
 * message; the report and CSV are written regardless.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Charts {
    /** Subdirectory of the results directory that holds the images. */
    static final String IMAGE_DIR = "images";

    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;
    private static final double MAX_PERCENTILE = 99.999;

    private Charts() {}

    /**
     * Draws every chart into the directory.
     *
     * @param results the run.
     * @param out the results directory.
     * @return the file names written, relative to {@code out}.
     */
    static List<String> write(final RunResults results, final Path out) {
        System.setProperty("java.awt.headless", "true");
        final List<String> written = new ArrayList<>();
        try {
            java.nio.file.Files.createDirectories(out.resolve(IMAGE_DIR));
            for (final String durability : List.of("SYNCED", "WRITTEN", "BUFFERED")) {
                for (final int size : sizes(results)) {
                    final XYChart chart = throughput(results, durability, size);
                    if (chart != null) {
                        final String name =
                                IMAGE_DIR + "/throughput-" + durability.toLowerCase(Locale.ROOT) + "-" + size + "b.png";
                        BitmapEncoder.saveBitmap(chart, out.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
                        written.add(name);
                    }
                }
            }
            final int size = sizes(results).isEmpty() ? 128 : sizes(results).first();
            for (final int writers : List.of(1, 16)) {
                final XYChart chart = latency(results, size, writers);
                if (chart != null) {
                    final String name = IMAGE_DIR + "/latency-synced-" + size + "b-" + writers + "w.png";
                    BitmapEncoder.saveBitmap(chart, out.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
                    written.add(name);
                }
            }
        } catch (final IOException | RuntimeException | Error ex) {
            System.out.println("charts: could not draw every chart (" + ex + "); the report lists the ones written");
        }
        return written;
    }

    private static XYChart throughput(final RunResults results, final String durability, final int size) {
        final Map<String, TreeSet<double[]>> series = new LinkedHashMap<>();
        for (final ResultRow row : results.rows()) {
            if (!row.measured()
                    || !row.durability().equals(durability)
                    || row.recordBytes() != size
                    || row.groupWindowUs() != 0
                    || row.system().equals(Systems.FIO)
                    || (row.system().equals(Systems.WALDEN) && !row.variant().equals(Scenario.NONE))) {
                continue;
            }
            series.computeIfAbsent(label(row), key -> new TreeSet<>((a, b) -> Double.compare(a[0], b[0])))
                    .add(new double[] {row.writers(), row.recordsPerS()});
        }
        series.values().removeIf(points -> points.size() < 2);
        if (series.isEmpty()) {
            return null;
        }
        final XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(durability + " appends, " + size + " B records: throughput vs writer threads")
                .xAxisTitle("writer threads")
                .yAxisTitle("acknowledged records/s")
                .build();
        style(chart);
        // Writers on a log2 scale: plotted at log2(writers), labelled with the writer count.
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(x -> String.format(Locale.ROOT, "%.0f", Math.pow(2, x)));
        chart.getStyler().setYAxisDecimalPattern("#,###");
        chart.getStyler().setYAxisLogarithmicDecadeOnly(false);
        for (final Map.Entry<String, TreeSet<double[]>> entry : series.entrySet()) {
            final double[] x = entry.getValue().stream()
                    .mapToDouble(p -> Math.log(p[0]) / Math.log(2))
                    .toArray();
            final double[] y = entry.getValue().stream().mapToDouble(p -> p[1]).toArray();
            final XYSeries s = chart.addSeries(entry.getKey(), x, y);
            s.setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    private static XYChart latency(final RunResults results, final int size, final int writers) {
        final XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title("SYNCED append-to-acknowledgement latency, " + size + " B, " + writers + " writer"
                        + (writers == 1 ? "" : "s"))
                .xAxisTitle("percentile")
                .yAxisTitle("latency (µs)")
                .build();
        style(chart);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(Charts::percentileLabel);
        chart.getStyler().setYAxisDecimalPattern("#,###");
        chart.getStyler().setYAxisLogarithmicDecadeOnly(false);
        int added = 0;
        for (final ResultRow row : results.rows()) {
            if (!row.measured()
                    || !row.durability().equals("SYNCED")
                    || row.recordBytes() != size
                    || row.writers() != writers
                    || row.groupWindowUs() != 0
                    || row.system().equals(Systems.FIO)) {
                continue;
            }
            final Histogram histogram = results.histograms().get(scenarioId(row));
            if (histogram == null || histogram.getTotalCount() == 0) {
                continue;
            }
            final List<Double> x = new ArrayList<>();
            final List<Double> y = new ArrayList<>();
            for (final HistogramIterationValue value : histogram.percentiles(5)) {
                final double percentile = value.getPercentileLevelIteratedTo();
                if (percentile > MAX_PERCENTILE) {
                    break;
                }
                x.add(-Math.log10(1 - percentile / 100));
                y.add(Math.max(1, value.getValueIteratedTo() / 1e3));
            }
            if (x.size() > 1) {
                chart.addSeries(label(row), x, y).setMarker(SeriesMarkers.NONE);
                added++;
            }
        }
        return added == 0 ? null : chart;
    }

    private static String percentileLabel(final double x) {
        final double percentile = (1 - Math.pow(10, -x)) * 100;
        return percentile < 99.5
                ? String.format(Locale.ROOT, "%.0f%%", percentile)
                : String.format(Locale.ROOT, "%s%%", trim(percentile));
    }

    private static String trim(final double percentile) {
        String text = String.format(Locale.ROOT, "%.4f", percentile);
        while (text.endsWith("0")) {
            text = text.substring(0, text.length() - 1);
        }
        return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
    }

    private static void style(final XYChart chart) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setPlotGridLinesVisible(true);
        chart.getStyler().setMarkerSize(6);
    }

    private static String label(final ResultRow row) {
        final StringBuilder label = new StringBuilder(row.system());
        if (!Scenario.NONE.equals(row.backend())) {
            label.append(' ').append(row.backend());
        }
        if (!Scenario.NONE.equals(row.variant())) {
            label.append(' ').append(row.variant());
        }
        return label.toString();
    }

    private static String scenarioId(final ResultRow row) {
        return new Scenario(
                        row.system(),
                        row.backend(),
                        row.variant(),
                        row.durability(),
                        row.writers(),
                        row.recordBytes(),
                        row.groupWindowUs(),
                        0,
                        0)
                .id();
    }

    private static TreeSet<Integer> sizes(final RunResults results) {
        final TreeSet<Integer> sizes = new TreeSet<>();
        for (final ResultRow row : results.rows()) {
            if (row.system().equals(Systems.WALDEN) && row.measured()) {
                sizes.add(row.recordBytes());
            }
        }
        return sizes;
    }
}
