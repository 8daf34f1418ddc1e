package io.walden.tools;

import io.walden.RecoveryReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log positions (LSNs) a recovery gave up, as ranges: what {@code repair} prints and a dry run
 * predicts. {@link RecoveryReport} carries them only in its findings, one sentence per finding that
 * names positions ({@code "positions A to B"}, {@code "positions [A, B)"}); this class reads them
 * from there and merges ranges that touch, so a torn tail and the positions given up after it, or a
 * damaged segment's end and the later segments {@code TRUNCATE} discards, show as one range.
 *
 * <p>The tool's tests pin the sentences it reads (a change in wal-core's wording fails them).
 *
 * <p><b>Threading:</b> stateless.
 */
final class GivenUpRanges {
    private static final Pattern POSITIONS = Pattern.compile("positions \\[?(\\d+)(?:, | to )(\\d+)");

    /**
     * A range of positions given up.
     *
     * @param what {@code skipped} (the damaged frames SKIP gave up, kept as evidence and covered by a
     *     discard frame, or, inside a batch no discard frame fits, skipped on every open), {@code cut} (a
     *     torn tail) or {@code discarded} (the rest, zeroed after it was kept as evidence).
     * @param from the first position.
     * @param to the end, exclusive.
     */
    record Range(String what, long from, long to) {
        /** @return the range as {@code [from, to)}. */
        @Override
        public String toString() {
            return "[" + from + ", " + to + ")";
        }
    }

    private GivenUpRanges() {}

    /**
     * Reads the ranges from a recovery's findings.
     *
     * @param report what recovery found and did.
     * @return the ranges, in position order, touching ranges merged.
     */
    static List<Range> of(final RecoveryReport report) {
        final List<Range> found = new ArrayList<>();
        for (final String finding : report.findings()) {
            final Matcher matcher = POSITIONS.matcher(finding);
            while (matcher.find()) {
                found.add(new Range(what(finding), Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2))));
            }
        }
        found.sort(Comparator.comparingLong(Range::from).thenComparing(Range::what));
        final List<Range> merged = new ArrayList<>();
        for (final Range range : found) {
            final int last = merged.size() - 1;
            if (last >= 0 && range.from() <= merged.get(last).to()) {
                final Range before = merged.get(last);
                merged.set(last, new Range(before.what(), before.from(), Math.max(before.to(), range.to())));
            } else {
                merged.add(range);
            }
        }
        return List.copyOf(merged);
    }

    private static String what(final String finding) {
        if (finding.startsWith("skipped")) {
            return "skipped";
        }
        return finding.startsWith("cut the torn tail") ? "cut" : "discarded";
    }
}
