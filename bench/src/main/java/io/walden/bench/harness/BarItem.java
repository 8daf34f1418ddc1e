package io.walden.bench.harness;

import java.util.Locale;

/**
 * One item of the design brief's performance bar, judged from one run: what was measured, against
 * what, the ratio, what the bar needs, and PASS or MISS with the shortfall.
 *
 * @param bar the bar's wording.
 * @param measured Walden's figure, as text.
 * @param reference the reference figure, as text.
 * @param ratio measured / reference (or the absolute figure for absolute bars); NaN if not measured.
 * @param needed the ratio (or figure) the bar needs; NaN for an item with no number.
 * @param verdict {@code PASS}, {@code MISS by N %}, or why it was not judged.
 */
public record BarItem(String bar, String measured, String reference, double ratio, double needed, String verdict) {
    /**
     * Judges a ratio against what the bar needs.
     *
     * @param bar the bar's wording.
     * @param measured Walden's figure.
     * @param reference the reference figure.
     * @param ratio the ratio, NaN if a figure is missing.
     * @param needed the ratio needed.
     * @param missing what to say when the ratio is NaN.
     * @return the item.
     */
    static BarItem judge(
            final String bar,
            final String measured,
            final String reference,
            final double ratio,
            final double needed,
            final String missing) {
        return new BarItem(bar, measured, reference, ratio, needed, verdict(ratio, needed, missing));
    }

    /**
     * PASS, or MISS by the relative shortfall.
     *
     * @param ratio the ratio.
     * @param needed what is needed.
     * @param missing the text when the ratio is NaN.
     * @return the verdict.
     */
    static String verdict(final double ratio, final double needed, final String missing) {
        if (Double.isNaN(ratio)) {
            return "not measured: " + missing;
        }
        if (ratio >= needed) {
            return "PASS";
        }
        return String.format(Locale.ROOT, "MISS by %.0f %%", (1 - ratio / needed) * 100);
    }
}
